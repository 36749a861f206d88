#include "cli/ssh_command.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli/browser.h"
#include "cli/experiment_view.h"
#include "cli/format.h"

namespace det::cli {
namespace fs = std::filesystem;

namespace {

// ssh's option letters that take an argument (its getopt string
// "1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy").
constexpr std::string_view kSshOptionsWithArgument = "bceilmopBDEFIJLOPQRSWw";

absl::Status WriteAll(int fd, const std::string& data, const fs::path& path) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::InternalError(
          absl::StrCat("cannot write ", path.string(), ": ", std::strerror(errno)));
    }
    off += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

std::string WithFinalNewline(std::string pem) {
  if (!pem.empty() && pem.back() != '\n') pem.push_back('\n');
  return pem;
}

}  // namespace

bool SshArgsHaveCommand(const std::vector<std::string>& ssh_args) {
  for (size_t i = 0; i < ssh_args.size(); ++i) {
    const std::string& a = ssh_args[i];
    if (a == "--") return i + 1 < ssh_args.size();
    if (a.size() < 2 || a[0] != '-') return true;
    // A cluster of letters ("-vL" ...): the first letter that takes an argument takes the rest of
    // the word, or the next word when the rest is empty.
    for (size_t j = 1; j < a.size(); ++j) {
      if (kSshOptionsWithArgument.find(a[j]) == std::string_view::npos) continue;
      if (j + 1 == a.size()) ++i;
      break;
    }
  }
  return false;
}

std::string DetProgramForProxy(const std::string& path, const fs::path& self_exe) {
  std::optional<std::string> on_path = FindOnPath("det", path);
  std::error_code ec;
  if (on_path.has_value() && fs::equivalent(*on_path, self_exe, ec) && !ec) return "det";
  return self_exe.string();
}

std::string DetProgramForProxy() {
  const char* path = std::getenv("PATH");
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "det";
  return DetProgramForProxy(path == nullptr ? "" : path, self);
}

std::vector<std::string> TunnelTlsFlags(const client::TlsOptions& tls) {
  std::vector<std::string> flags;
  if (tls.no_verify) {
    flags = {"--cert-file", "noverify"};
  } else if (!tls.ca_file.empty()) {
    std::error_code ec;
    fs::path abs = fs::absolute(tls.ca_file, ec);
    flags = {"--cert-file", ec ? tls.ca_file : abs.lexically_normal().string()};
  }
  if (!tls.cert_name.empty()) {
    flags.push_back("--cert-name");
    flags.push_back(tls.cert_name);
  }
  return flags;
}

std::vector<std::string> SshArgv(const SshInvocation& in) {
  std::vector<std::string> tunnel = {in.det_program, "-m", in.master_url, "tunnel"};
  tunnel.insert(tunnel.end(), in.tunnel_flags.begin(), in.tunnel_flags.end());
  std::string proxy = absl::StrCat(absl::StrReplaceAll(ShellJoin(tunnel), {{"%", "%%"}}), " %h");
  std::vector<std::string> argv = {"ssh",
                                   "-o",
                                   absl::StrCat("ProxyCommand=", proxy),
                                   "-o",
                                   "StrictHostKeyChecking=no",
                                   "-o",
                                   "UserKnownHostsFile=/dev/null"};
  if (in.stdin_is_tty || !SshArgsHaveCommand(in.ssh_args)) argv.push_back("-tt");
  argv.insert(argv.end(), {"-o", "IdentitiesOnly=yes", "-i", in.key_file,
                           absl::StrCat(in.user.empty() ? "root" : in.user, "@", in.shell_id)});
  argv.insert(argv.end(), in.ssh_args.begin(), in.ssh_args.end());
  return argv;
}

std::string ShellUser(const nlohmann::json& shell) {
  std::string user = Str(Field(shell, "agentUserGroup"), "user");
  return user.empty() ? "root" : user;
}

absl::Status WritePrivateKey(const fs::path& path, const std::string& pem) {
  std::error_code ec;
  fs::path dir = path.parent_path();
  if (!dir.empty() && !fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot create directory ", dir.string(), ": ", ec.message()));
    }
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  // A new file each time (an old one may have other permissions), renamed into place.
  fs::path tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot write ", tmp.string(), ": ", std::strerror(errno)));
  }
  ::fchmod(fd, 0600);
  absl::Status s = WriteAll(fd, WithFinalNewline(pem), tmp);
  ::close(fd);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    s = absl::InternalError(
        absl::StrCat("cannot write ", path.string(), ": ", std::strerror(errno)));
  }
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

absl::StatusOr<fs::path> WriteTempPrivateKey(const fs::path& dir, const std::string& pem) {
  std::string tmpl = (dir / "det-shell-key-XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());  // mode 0600
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create a key file in ", dir.string(), ": ", std::strerror(errno)));
  }
  absl::Status s = WriteAll(fd, WithFinalNewline(pem), tmpl);
  ::close(fd);
  if (!s.ok()) {
    ::unlink(tmpl.c_str());
    return s;
  }
  return fs::path(tmpl);
}

absl::StatusOr<int> RunForeground(const std::vector<std::string>& argv) {
  if (argv.empty()) return absl::InvalidArgumentError("RunForeground: empty argv");
  const char* path = std::getenv("PATH");
  std::optional<std::string> program = FindOnPath(argv[0], path == nullptr ? "" : path);
  if (!program.has_value()) {
    return absl::NotFoundError(absl::StrCat(argv[0],
                                            " not found on PATH; install it (for ssh: the "
                                            "OpenSSH client) and try again"));
  }
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  // As system(3): the terminal's SIGINT/SIGQUIT go to the child (ssh), not to us.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    ::execv(program->c_str(), cargv.data());
    ::_exit(127);
  }
  int status = 0;
  pid_t waited = -1;
  if (pid > 0) {
    do {
      waited = ::waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
  }
  int fork_errno = errno;
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(fork_errno)));
  if (waited < 0) return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(fork_errno)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace det::cli
