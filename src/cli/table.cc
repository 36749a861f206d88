#include "cli/table.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_split.h"

namespace det::cli {
namespace {

bool LooksNumeric(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::vector<std::string> Lines(const std::string& cell) { return absl::StrSplit(cell, '\n'); }

// Display width: counts UTF-8 code points, not bytes, so names with accents still line up.
size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string Pad(const std::string& s, size_t width, bool right) {
  size_t w = DisplayWidth(s);
  if (w >= width) return s;
  std::string pad(width - w, ' ');
  return right ? pad + s : s + pad;
}

void StripTrailingSpaces(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::Render() const {
  const size_t ncols = headers_.size();
  std::vector<size_t> widths(ncols, 0);
  std::vector<bool> numeric(ncols, true);
  std::vector<bool> any_value(ncols, false);
  for (size_t c = 0; c < ncols; ++c) {
    for (const std::string& line : Lines(headers_[c]))
      widths[c] = std::max(widths[c], DisplayWidth(line));
  }
  for (const auto& row : rows_) {
    for (size_t c = 0; c < ncols; ++c) {
      for (const std::string& line : Lines(row[c]))
        widths[c] = std::max(widths[c], DisplayWidth(line));
      if (!row[c].empty()) {
        any_value[c] = true;
        if (!LooksNumeric(row[c])) numeric[c] = false;
      }
    }
  }
  for (size_t c = 0; c < ncols; ++c) numeric[c] = numeric[c] && any_value[c];

  std::string out;
  auto emit_row = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> split(ncols);
    size_t height = 1;
    for (size_t c = 0; c < ncols; ++c) {
      split[c] = Lines(cells[c]);
      height = std::max(height, split[c].size());
    }
    for (size_t h = 0; h < height; ++h) {
      std::string line;
      for (size_t c = 0; c < ncols; ++c) {
        if (c > 0) line += " |";
        line += ' ';
        line += Pad(h < split[c].size() ? split[c][h] : std::string(), widths[c], numeric[c]);
      }
      StripTrailingSpaces(line);
      out += line;
      out += '\n';
    }
  };
  emit_row(headers_);
  std::string sep;
  for (size_t c = 0; c < ncols; ++c) {
    if (c > 0) sep += '+';
    sep += std::string(widths[c] + 2, '-');
  }
  out += sep + "\n";
  for (const auto& row : rows_) emit_row(row);
  return out;
}

std::string Table::ToCsv() const {
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += ',';
      out += CsvField(cells[c]);
    }
    out += '\n';
  };
  emit(headers_);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace det::cli
