#pragma once
// `--json` / `--csv` flags shared by the list commands (the *_cmd.cc files only: includes CLI11).
#include <CLI/CLI.hpp>
#include <memory>

#include "cli/experiment_view.h"

namespace det::cli {

struct FormatFlagValues {
  bool csv = false;
  bool json = false;
  OutputFormat format() const {
    return json ? OutputFormat::kJson : csv ? OutputFormat::kCsv : OutputFormat::kTable;
  }
};

inline std::shared_ptr<FormatFlagValues> AddJsonCsvFlags(CLI::App* cmd) {
  auto f = std::make_shared<FormatFlagValues>();
  CLI::Option* json = cmd->add_flag("--json", f->json, "print as JSON");
  cmd->add_flag("--csv", f->csv, "print as CSV")->excludes(json);
  return f;
}

}  // namespace det::cli
