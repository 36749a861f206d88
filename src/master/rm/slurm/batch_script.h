#pragma once
// The batch script of an allocation's Slurm job (pure): it exports the task's environment, names the
// job's hosts for the runner's rendezvous (DET_SLURM_HOSTS), runs determined-pod-runner as every task of
// one srun step, each in its own directory, and writes the step's exit status to a file in the job
// directory, which the master reads once Slurm says the job ended (Slurm forgets an ended job after
// MinJobAge, and without slurmdbd keeps no history). A TERM (scancel --signal) is caught by the batch
// shell, so the status is still written after the step ends.
#include <map>
#include <string>

namespace det::master::slurm {

struct BatchScriptInput {
  std::string allocation_id;
  // The runner's environment: DET_MASTER, DET_SESSION_TOKEN, DET_TASK_SPEC, ... (any characters).
  std::map<std::string, std::string> env;
  std::string runner;   // the path of determined-pod-runner on the nodes
  std::string job_dir;  // <job_storage_root>/<allocation>: task-N directories and the exit status
  std::string path;     // PATH for the job; "" = the submitting environment's
  std::string ld_library_path;
};

std::string BatchScript(const BatchScriptInput& in);

// The file in `job_dir` that holds the exit status of the job's step once it ended. Task N works in
// `job_dir`/task-N.
std::string ExitStatusFile(const std::string& job_dir);

}  // namespace det::master::slurm
