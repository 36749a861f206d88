#pragma once
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::master {

struct MasterFlags {
  std::string data_dir = "/var/lib/determined";
  std::string host = "0.0.0.0";
  int port = 8080;
  std::string port_file;
  std::string log_level = "info";
  std::string cluster_name = "determined";
  bool help = false;
};

// Parses `--name value` / `--name=value` flags; unknown flags and bad values are errors naming them.
absl::StatusOr<MasterFlags> ParseMasterFlags(const std::vector<std::string>& args);
std::string MasterUsage();

}  // namespace det::master
