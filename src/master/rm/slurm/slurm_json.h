#pragma once
// Readers of Slurm's machine-readable outputs: `squeue --json`, `sinfo --json` (openapi v0.0.38 in
// Slurm 22.05; the later shapes of job_state, exit_code and the numbers are read too) and
// `scontrol show partition --oneliner` (22.05's sinfo --json has no partitions). Pure functions; the
// recorded 22.05.8 outputs under testdata/ are their tests.
//
// Missing optional fields become empty values; output that is not JSON, or a field of the wrong type,
// is Internal naming the command and the field; a non-empty "errors" array is Unavailable with Slurm's
// error text.
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "master/rm/slurm/slurm_client.h"

namespace det::master::slurm {

absl::StatusOr<std::vector<SlurmJob>> ParseSqueueJson(std::string_view output);
absl::StatusOr<std::vector<SlurmNode>> ParseSinfoJson(std::string_view output);
// Partitions from scontrol's lines; their GPUs summed from `nodes` (from ParseSinfoJson).
absl::StatusOr<std::vector<SlurmPartition>> ParseScontrolPartitions(std::string_view output,
                                                                    const std::vector<SlurmNode>& nodes);

// Slurm's host list expression ("vm", "n[1-3,7],gpu[01-02]") as host names; InvalidArgument when
// malformed.
absl::StatusOr<std::vector<std::string>> ExpandHostList(std::string_view hostlist);
// The GPUs in a GRES string ("gpu:a100:2(S:0-1),nic:1" -> 2, type "a100").
int GpusInGres(std::string_view gres, std::string* gpu_type = nullptr);

}  // namespace det::master::slurm
