#pragma once
// A small text table for list/describe output, in the layout of upstream's `tabulate(...,
// tablefmt="presto")`:
//
//    ID | Owner      | State
//   ----+------------+-----------
//     1 | determined | COMPLETED
//
// Columns whose non-empty cells are all numbers are right-aligned; others are left-aligned. A cell
// may hold several lines; its row then spans that many lines.
#include <string>
#include <vector>

namespace det::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);

  // A row with fewer cells than headers is padded with empty cells; extra cells are dropped.
  void AddRow(std::vector<std::string> cells);
  size_t num_rows() const { return rows_.size(); }

  // Aligned text, one '\n'-terminated line per output line, without trailing spaces.
  std::string Render() const;
  // RFC 4180 CSV with a header line (fields quoted when they hold a comma, quote or newline).
  std::string ToCsv() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace det::cli
