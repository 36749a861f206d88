#include "cli/experiment_local_test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/config_override.h"
#include "cli/process_util.h"
#include "common/build_layout.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/experiment_config.h"

namespace det::cli {
namespace {

using nlohmann::json;

// Runs `argv` in `dir` with `python_path` first on PYTHONPATH and waits for it.
absl::StatusOr<int> RunInDirectory(const std::vector<std::string>& argv, const std::filesystem::path& dir,
                                   const std::string& python_path) {
  pid_t pid = ::fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    const char* old = ::getenv("PYTHONPATH");
    std::string path = old != nullptr && *old != '\0' ? absl::StrCat(python_path, ":", old) : python_path;
    ::setenv("PYTHONPATH", path.c_str(), 1);
    if (::chdir(dir.c_str()) != 0) {
      ::dprintf(2, "cannot enter the context directory %s: %s\n", dir.c_str(), std::strerror(errno));
      ::_exit(2);
    }
    std::vector<char*> cargv;
    for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    ::execvp(cargv[0], cargv.data());
    ::dprintf(2, "cannot run %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(errno)));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace

absl::StatusOr<json> LocalTestConfig(const CreateExperimentArgs& args, bool test_mode) {
  if (!test_mode) {
    return absl::InvalidArgumentError(
        "--local without --test is not supported: local training is not yet supported. Add --test to "
        "check one batch of the trial locally, or drop --local to train on the cluster");
  }
  absl::StatusOr<std::string> text = ReadFile(args.config_file);
  if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read experiment config file ", args.config_file));
  ASSIGN_OR_RETURN(std::string yaml, ConfigTextWithOverrides(*text, args.overrides, args.config_file));
  ASSIGN_OR_RETURN(json config, ParseYaml(yaml));
  const json& entrypoint = config.contains("entrypoint") ? config["entrypoint"] : json();
  if (!entrypoint.is_string() || !config::IsLegacyTrialEntrypoint(entrypoint.get<std::string>())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--local --test runs Trial classes only (entrypoint: module:TrialClass, e.g. model_def:MyTrial); "
        "this config's entrypoint is ", entrypoint.dump(), ": run a script entrypoint directly instead"));
  }
  return config;
}

std::vector<std::string> LocalTestCommand(const std::string& entrypoint, const std::filesystem::path& config_file) {
  std::string python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  return {python, "-m", "determined.exec.harness", "--local-test", config_file.string(), entrypoint};
}

absl::StatusOr<int> RunLocalTest(const CreateExperimentArgs& args, bool test_mode) {
  ASSIGN_OR_RETURN(json config, LocalTestConfig(args, test_mode));
  ASSIGN_OR_RETURN(std::filesystem::path bin, ExecutableDir());
  std::filesystem::path python_dir = HarnessPythonDir(bin);

  char tmpl[] = "/tmp/det-local-test-XXXXXX.json";
  int fd = ::mkstemps(tmpl, 5);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a temporary file: ", std::strerror(errno)));
  ::close(fd);
  std::filesystem::path config_file = tmpl;
  std::ofstream(config_file) << config.dump();
  std::filesystem::path dir = args.context_dir.value_or(".");
  absl::StatusOr<int> status =
      RunInDirectory(LocalTestCommand(config["entrypoint"].get<std::string>(), std::filesystem::absolute(config_file)),
                     dir, python_dir.string());
  std::error_code ec;
  std::filesystem::remove(config_file, ec);
  return status;
}

}  // namespace det::cli
