#pragma once
// sbatch's command line for a Determined allocation: the options Determined controls, then the
// experiment's slurm.sbatch_args, which must not touch what Determined controls. Pure functions.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/rm/slurm/slurm_client.h"

namespace det::master::slurm {

// The options after "sbatch": --parsable (so sbatch prints "ID" or "ID;CLUSTER"), -p, -J, --wckey,
// --ntasks or -N and --ntasks-per-node, --cpus-per-task, --gpus-per-task=N, --gpus-per-node=N or
// --gres=gpu[:TYPE]:N, -o, --export, then
// request.user_sbatch_args unchanged. InvalidArgument when a count is out of range, an env name or value
// cannot travel in --export, or CheckUserSbatchArgs refuses the user's args.
absl::StatusOr<std::vector<std::string>> SbatchArgs(const SubmitRequest& request);

// OK when the user's sbatch args leave alone what Determined controls. Refused, with upstream
// Determined's message "slurm option -G is not configurable" (the option as upstream names it: -G,
// --gpus, -N, --nodes, ...), are upstream's list (master/pkg/tasks/dispatcher_verification.go):
// -G/--gpus, -N/--nodes, -n/--ntasks, --ntasks-per-node, -D/--chdir, -e/--error, -o/--output,
// -p/--partition, --requeue, and --gres naming a gpu ("slurm option --gres may not be used to configure
// GPU resources"); and, because this master reads sbatch's output and sets them itself: --gpus-per-node,
// --gpus-per-task, --gpus-per-socket, -J/--job-name, --wckey, --export, -a/--array, --wrap, -W/--wait,
// --test-only.
// Each element is one argv word ("--gpus=2", "-G7", "-G", "--nodes 2" as one word is read as
// "--nodes"); long options may be abbreviated as sbatch (getopt) allows ("--part=x"); short options may be
// grouped ("-vN2"). One InvalidArgument lists every refusal, each naming the element.
absl::Status CheckUserSbatchArgs(const std::vector<std::string>& args);

}  // namespace det::master::slurm
