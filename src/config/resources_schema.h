#pragma once
// The `resources` section (reference §2.4).
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "absl/strings/string_view.h"
#include "config/schema_fields.h"

namespace det::config {

// Checks `resources` in place and fills its defaults (slots_per_trial 1, weight 1, resource_pool
// "", devices [], native_parallel false; the rest null). Device strings "host:container[:mode]"
// become {host_path, container_path, mode}. `slots` is refused with a pointer to slots_per_trial.
void CheckResources(nlohmann::json& resources, Problems& p);

// True for sizes like "4G", "512 MiB", "1.5gb", "100": upstream's
// ^([0-9]*[.])?[0-9]+ ?(([kmgtpKMGTP]([iI]?[bB])?)|[bB])?$ without a regex engine.
bool IsSizeString(absl::string_view s);

// Bytes of a size the config accepts: an integer, or a size string ("4G", "512 MiB", "1.5gb"; K, M, G, T, P
// are powers of 1024, as Docker reads them). nullopt for anything else.
std::optional<int64_t> SizeInBytes(const nlohmann::json& size);

// Checks a list of devices (objects or "host:container[:mode]" strings) in place, normalizing
// strings to objects. Shared with commands' resources.
void CheckDevices(nlohmann::json& devices, absl::string_view path, Problems& p);

}  // namespace det::config
