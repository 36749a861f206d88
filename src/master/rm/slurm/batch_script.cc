#include "master/rm/slurm/batch_script.h"

#include "absl/strings/str_cat.h"
#include "common/shell_quote.h"

namespace det::master::slurm {

std::string ExitStatusFile(const std::string& job_dir) { return absl::StrCat(job_dir, "/exit-status"); }

std::string BatchScript(const BatchScriptInput& in) {
  std::string s = absl::StrCat("#!/bin/bash\n# Determined allocation ", in.allocation_id,
                               ", submitted by the master's Slurm resource manager.\n");
  if (!in.path.empty()) absl::StrAppend(&s, "export PATH=", ShellQuote(in.path), "\n");
  if (!in.ld_library_path.empty()) absl::StrAppend(&s, "export LD_LIBRARY_PATH=", ShellQuote(in.ld_library_path), "\n");
  for (const auto& [name, value] : in.env) absl::StrAppend(&s, "export ", name, "=", ShellQuote(value), "\n");
  const std::string job_dir = ShellQuote(in.job_dir);
  const std::string status = ShellQuote(ExitStatusFile(in.job_dir));
  absl::StrAppend(
      &s,
      // The nodes in order, for the runner's rendezvous (a host list like "n[1-3]" expanded).
      "DET_SLURM_HOSTS=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" 2>/dev/null | tr '\\n' ' ')\"\n",
      "export DET_SLURM_HOSTS=\"${DET_SLURM_HOSTS:-$SLURMD_NODENAME}\"\n",
      // A TERM for the job reaches the step's tasks; the shell lives on to write their status.
      "trap 'echo \"determined: job signalled; waiting for its tasks\" >&2' TERM INT\n",
      "srun --kill-on-bad-exit=1 /bin/sh -c 'd=\"$1/task-$SLURM_PROCID\"; mkdir -p \"$d\" && cd \"$d\" && exec \"$2\"' "
      "determined-task ",
      job_dir, " ", ShellQuote(in.runner), "\n",
      "status=$?\n",
      "echo \"$status\" > ", status, ".tmp && mv -f ", status, ".tmp ", status, "\n",
      "exit \"$status\"\n");
  return s;
}

}  // namespace det::master::slurm
