#include "cli/log_printer.h"

#include <nlohmann/json.hpp>

#include "cli/format.h"

namespace det::cli {

std::string LogEntryText(const nlohmann::json& entry) {
  std::string text = Str(entry, "message");
  if (text.empty()) text = Str(entry, "log");
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

}  // namespace det::cli
