#include "master/master_flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace det::master {

std::string MasterUsage() {
  return "usage: determined-master [--data-dir DIR] [--host ADDR] [--port PORT (0 = any free port)]\n"
         "                         [--port-file FILE] [--log-level trace|debug|info|warn|error]\n"
         "                         [--cluster-name NAME]\n";
}

absl::StatusOr<MasterFlags> ParseMasterFlags(const std::vector<std::string>& args) {
  MasterFlags f;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "-h" || name == "--help") {
      f.help = true;
      continue;
    }
    auto take = [&]() -> absl::StatusOr<std::string> {
      if (has_value) return value;
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      return args[++i];
    };
    absl::StatusOr<std::string> v = take();
    if (name == "--data-dir" && v.ok()) {
      f.data_dir = *v;
    } else if (name == "--host" && v.ok()) {
      f.host = *v;
    } else if (name == "--port" && v.ok()) {
      if (!absl::SimpleAtoi(*v, &f.port) || f.port < 0 || f.port > 65535) {
        return absl::InvalidArgumentError(absl::StrCat("--port must be 0..65535, got \"", *v, "\""));
      }
    } else if (name == "--port-file" && v.ok()) {
      f.port_file = *v;
    } else if (name == "--log-level" && v.ok()) {
      f.log_level = *v;
    } else if (name == "--cluster-name" && v.ok()) {
      f.cluster_name = *v;
    } else if (name.rfind("--", 0) == 0 &&
               (name == "--data-dir" || name == "--host" || name == "--port" || name == "--port-file" ||
                name == "--log-level" || name == "--cluster-name")) {
      return v.status();
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag \"", args[i], "\"\n", MasterUsage()));
    }
  }
  return f;
}

}  // namespace det::master
