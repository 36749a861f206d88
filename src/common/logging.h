#pragma once
#include <string>

namespace det {

// Configures the default spdlog logger for a binary: "[time] [name] [level] message" on stderr.
// `level` is one of trace, debug, info, warn, error; unknown values fall back to info.
void InitLogging(const std::string& program, const std::string& level);

}  // namespace det
