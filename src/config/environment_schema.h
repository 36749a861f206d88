#pragma once
// The `environment` section (reference §2.6) and `bind_mounts` (§2.1).
#include <nlohmann/json.hpp>
#include <string>

#include "config/schema_fields.h"

namespace det::config {

// Default task images per device type (upstream 0.38).
inline constexpr char kDefaultCpuImage[] = "determinedai/pytorch-ngc-dev:0736b6d";
inline constexpr char kDefaultCudaImage[] = "determinedai/pytorch-ngc-dev:0736b6d";
inline constexpr char kDefaultRocmImage[] =
    "determinedai/environments:rocm-5.6-pytorch-1.3-tf-2.10-rocm-mpich-0736b6d";

// Checks `environment` in place and fills its defaults. `image` (a string for every device type or
// {cpu, cuda, rocm, gpu}) becomes {cpu, cuda, rocm} with the default images filling gaps (gpu is
// an alias of cuda); `environment_variables` (a list for every type or the per-type map) becomes
// {cpu, cuda, rocm} lists.
// Warns (once) when `image` names an image other than the defaults: only agents with a container engine
// and Kubernetes use it; elsewhere tasks run as processes on their host.
void CheckEnvironment(nlohmann::json& environment, Problems& p);

// That warning's text for a checked `environment`, or "" when its images are the defaults.
std::string UnusedImageNote(const nlohmann::json& environment);

// Checks `bind_mounts` in place: a list of {host_path, container_path, read_only=false,
// propagation="rprivate"}.
void CheckBindMounts(nlohmann::json& bind_mounts, Problems& p);

}  // namespace det::config
