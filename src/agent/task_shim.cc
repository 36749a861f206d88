// determined-task-shim: the first process of every task the agent runs (ProcessRuntime). It starts
// the task's program as its child in the same process group, waits for it, writes its exit status
// to a file, and then SIGKILLs whatever is left of the group, itself included. Because the status
// and the output (the agent points stdout/stderr at files) do not depend on the agent, a task keeps
// running and keeps its result when the agent dies, and a restarted agent can adopt it.
//
//   determined-task-shim [--user=UID:GID] EXIT_STATUS_FILE PROGRAM ARGV0 [ARG...]
//
// runs PROGRAM with the argument vector ARGV0 ARG..., as user UID and group GID (with no
// supplementary groups) when --user is given; the shim itself stays the agent's user, so that it can
// write the exit status into the agent's state.
//
// The agent has already set up the session, working directory, stdio and environment. Descriptor 3
// is the agent's report pipe: a ChildFailure record when PROGRAM cannot be executed, EOF once it runs.
// SIGTERM, SIGINT, SIGHUP and SIGQUIT sent to the group reach PROGRAM; the shim ignores them and
// only ever ends by the group SIGKILL (its own, or the agent's after a kill's grace period).
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <utility>

#include "agent/child_failure.h"

namespace {

constexpr int kReportFd = 3;

// The exit status as the agent reports it: the exit code, or 128+N when signal N ended the process.
int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

// Writes "CODE\n" to `path` atomically (a temporary file, then rename), so a reader never sees half.
bool WriteExitStatus(const char* path, int code) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= static_cast<int>(sizeof tmp)) return false;
  int fd = ::open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  char text[16];
  int len = snprintf(text, sizeof text, "%d\n", code);
  bool ok = ::write(fd, text, static_cast<size_t>(len)) == len;
  ok = ::close(fd) == 0 && ok;
  return ok && ::rename(tmp, path) == 0;
}

// "--user=UID:GID" into `uid` and `gid`.
bool ParseUser(const char* arg, uid_t* uid, gid_t* gid) {
  unsigned long u = 0, g = 0;
  int end = 0;
  if (sscanf(arg, "--user=%lu:%lu%n", &u, &g, &end) != 2 || arg[end] != '\0') return false;
  *uid = static_cast<uid_t>(u);
  *gid = static_cast<gid_t>(g);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<std::pair<uid_t, gid_t>> user;
  if (argc > 1 && strncmp(argv[1], "--user=", 7) == 0) {
    uid_t uid;
    gid_t gid;
    if (!ParseUser(argv[1], &uid, &gid)) {
      fprintf(stderr, "determined-task-shim: bad %s (want --user=UID:GID)\n", argv[1]);
      return 2;
    }
    user.emplace(uid, gid);
    ++argv;
    --argc;
  }
  if (argc < 4) {
    fprintf(stderr, "usage: determined-task-shim [--user=UID:GID] EXIT_STATUS_FILE PROGRAM ARGV0 [ARG...]\n");
    return 2;
  }
  const char* exit_status_file = argv[1];
  ::fcntl(kReportFd, F_SETFD, FD_CLOEXEC);

  // Before the fork, so a SIGTERM that comes at once cannot end the shim instead of the program.
  constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  for (int sig : kForwarded) ::signal(sig, SIG_IGN);

  int exec_pipe[2];
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    det::agent::ReportChildFailure(kReportFd, det::agent::ChildFailure::kProgramExec);
  }
  pid_t child = ::fork();
  if (child < 0) det::agent::ReportChildFailure(kReportFd, det::agent::ChildFailure::kProgramExec);
  if (child == 0) {
    // The program starts with every signal at its default, as the agent set them for the shim.
    for (int sig : kForwarded) ::signal(sig, SIG_DFL);
    ::close(exec_pipe[0]);
    // Groups first: once the user is switched, the groups cannot be.
    if (user && (::setgroups(0, nullptr) != 0 || ::setgid(user->second) != 0 || ::setuid(user->first) != 0)) {
      det::agent::ReportChildFailure(exec_pipe[1], det::agent::ChildFailure::kSetUser);
    }
    ::execv(argv[2], argv + 3);
    det::agent::ReportChildFailure(exec_pipe[1], det::agent::ChildFailure::kProgramExec);
  }
  ::close(exec_pipe[1]);

  det::agent::ChildFailure failure{};
  if (det::agent::ReadChildFailure(exec_pipe[0], &failure)) {
    ssize_t ignored = ::write(kReportFd, &failure, sizeof failure);
    (void)ignored;
    int status;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return 127;
  }
  ::close(exec_pipe[0]);
  ::close(kReportFd);  // EOF: the program runs

  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      status = 0xff00;  // exit code 255: the child is gone without a status we could read
      break;
    }
  }
  if (!WriteExitStatus(exit_status_file, ExitCode(status))) {
    fprintf(stderr, "determined-task-shim: cannot write %s: %s\n", exit_status_file, strerror(errno));
  }
  // Leftovers of the group (background processes of the task) end with it, as in a container.
  ::kill(0, SIGKILL);
  return ExitCode(status);
}
