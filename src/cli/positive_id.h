#pragma once
// The check for id arguments (experiments, trials, checkpoints' experiments) and counts: a positive
// integer, said in those words ("experiment_id: must be a positive integer, got \"abc\"") rather than as a
// floating-point range.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "absl/strings/numbers.h"

namespace det::cli {

inline CLI::Validator PositiveId(const std::string& name = "ID") {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        int64_t id = 0;
        if (absl::SimpleAtoi(value, &id) && id > 0) return "";
        return "must be a positive integer, got \"" + value + "\"";
      },
      name);
}

}  // namespace det::cli
