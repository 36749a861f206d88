#pragma once
// Upstream's `File` list (a context directory or model definition: paths, tar type flags, base64
// content) as a tar.gz, as experiments, commands and generic tasks send it.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"

namespace det::master {

// The files of `files` (null: none, "") packed as tar.gz. `field` names the list in errors about one
// file ("modelDefinition", "files", "contextDirectory"), `what` the whole ("model definition",
// "context directory"). The decoded size is limited like upstream's client (96 MiB - 1 MiB): a
// larger one is InvalidArgument naming its size and the limit.
absl::StatusOr<std::string> ContextTarGz(const nlohmann::json& files, const std::string& field,
                                         const std::string& what, int64_t max_bytes);

}  // namespace det::master
