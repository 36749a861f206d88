#pragma once
// Finds the GPUs an agent can offer, the way upstream's agent does:
// - CUDA: `nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader` (with `--id=LIST` when
//   only some GPUs are visible to the agent); a GPU whose `mig.mode.current` is Enabled offers its
//   MIG instances instead, as `nvidia-smi -L` lists them (each one a device with the MIG uuid);
// - ROCm: `rocm-smi --showproductname --showuniqueid --json`.
// The parsers are pure functions of a tool's output; Detect* run the tools through a CommandRunner,
// so tests drive them with captured outputs (shared/fixtures/gpu-h200) and no GPU.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/command_runner.h"

namespace det::agent {

enum class GpuType { kCuda, kRocm };

struct GpuDevice {
  int id = 0;         // the index the driver's tools use (nvidia-smi's index; MIG: its position)
  std::string brand;  // "NVIDIA H200", "NVIDIA A100-SXM4-40GB MIG 1g.5gb", "AMD Instinct MI210"
  std::string uuid;   // "GPU-...", "MIG-...", or rocm-smi's unique id
  GpuType type = GpuType::kCuda;

  bool operator==(const GpuDevice&) const = default;
};

// `--query-gpu=index,name,uuid --format=csv,noheader` lines: "0, NVIDIA H200, GPU-7033...".
absl::StatusOr<std::vector<GpuDevice>> ParseNvidiaSmiQuery(absl::string_view csv);

// `--query-gpu=mig.mode.current --format=csv,noheader`, one line a GPU in the order of the query
// above: whether each has MIG enabled ("Enabled"; "Disabled" and "[N/A]" are not).
std::vector<bool> ParseMigModes(absl::string_view csv);

// `nvidia-smi -L`: the MIG instances ("  MIG 1g.5gb Device 0: (UUID: MIG-...)") of the GPUs whose
// uuids are in `mig_gpu_uuids`, numbered from 0 in the order listed, each branded
// "<GPU name> MIG <profile>".
absl::StatusOr<std::vector<GpuDevice>> ParseMigInstances(
    absl::string_view listing, const std::vector<std::string>& mig_gpu_uuids);

// `rocm-smi --showproductname --showuniqueid --json`:
// {"card0": {"Card series": ..., "Unique ID": ...}}.
absl::StatusOr<std::vector<GpuDevice>> ParseRocmSmiJson(absl::string_view json);

// The CUDA devices nvidia-smi shows (only `visible` GPU indexes when not empty). A missing or
// failing nvidia-smi is an error that says so (the caller logs it and offers no CUDA slot).
absl::StatusOr<std::vector<GpuDevice>> DetectCuda(CommandRunner& runner,
                                                  const std::vector<int>& visible);

// The ROCm devices rocm-smi shows (only the `visible` indexes when not empty).
absl::StatusOr<std::vector<GpuDevice>> DetectRocm(CommandRunner& runner,
                                                  const std::vector<int>& visible);

}  // namespace det::agent
