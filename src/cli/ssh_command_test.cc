#include "cli/ssh_command.h"
#include "common/test_temp_dir.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(SshArgsHaveCommandTest, OptionsAndTheirArgumentsAreNotACommand) {
  EXPECT_FALSE(SshArgsHaveCommand({}));
  EXPECT_FALSE(SshArgsHaveCommand({"-L", "8888:localhost:8888"}));
  EXPECT_FALSE(SshArgsHaveCommand({"-L8888:localhost:8888", "-v", "-N"}));
  EXPECT_FALSE(SshArgsHaveCommand({"-vo", "ServerAliveInterval=5"}));
  EXPECT_FALSE(SshArgsHaveCommand({"--"}));
  EXPECT_TRUE(SshArgsHaveCommand({"hostname"}));
  EXPECT_TRUE(SshArgsHaveCommand({"-L", "1:h:2", "nvidia-smi", "-L"}));
  EXPECT_TRUE(SshArgsHaveCommand({"-v", "--", "-weird-command"}));
  EXPECT_TRUE(SshArgsHaveCommand({"-oBatchMode=yes", "ls"}));
}

SshInvocation Invocation() {
  SshInvocation in;
  in.det_program = "det";
  in.master_url = "http://master:8080";
  in.shell_id = "3f2a0000-0000-4000-8000-000000000001";
  in.user = "alice";
  in.key_file = "/home/a/.cache/determined/shell/3f2a/key";
  return in;
}

TEST(SshArgvTest, UpstreamsCommandLine) {
  SshInvocation in = Invocation();
  EXPECT_EQ(SshArgv(in),
            (std::vector<std::string>{
                "ssh", "-o", "ProxyCommand=det -m http://master:8080 tunnel %h", "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-tt", "-o",
                "IdentitiesOnly=yes", "-i", "/home/a/.cache/determined/shell/3f2a/key",
                "alice@3f2a0000-0000-4000-8000-000000000001"}));
  in.user = "";
  EXPECT_EQ(SshArgv(in)[12], "root@3f2a0000-0000-4000-8000-000000000001");
}

TEST(SshArgvTest, TtyOnlyForATerminalOrAnInteractiveLogin) {
  SshInvocation in = Invocation();
  auto has_tt = [](const std::vector<std::string>& argv) {
    return std::find(argv.begin(), argv.end(), "-tt") != argv.end();
  };
  in.ssh_args = {"hostname"};
  in.stdin_is_tty = false;
  EXPECT_FALSE(has_tt(SshArgv(in)));
  EXPECT_EQ(SshArgv(in).back(), "hostname");
  in.stdin_is_tty = true;
  EXPECT_TRUE(has_tt(SshArgv(in)));
  in.stdin_is_tty = false;
  in.ssh_args = {"-L", "8888:localhost:8888"};  // options only: still a login
  EXPECT_TRUE(has_tt(SshArgv(in)));
  in.ssh_args = {};
  EXPECT_TRUE(has_tt(SshArgv(in)));
}

TEST(SshArgvTest, TheProxyCommandIsQuotedForTheShellAndPercentEscaped) {
  SshInvocation in = Invocation();
  in.det_program = "/opt/my tools/det";
  in.master_url = "https://master:8443";
  in.tunnel_flags = {"--cert-file", "/etc/ca 100%.pem", "--cert-name", "master"};
  std::vector<std::string> argv = SshArgv(in);
  EXPECT_EQ(argv[2],
            "ProxyCommand='/opt/my tools/det' -m https://master:8443 tunnel --cert-file "
            "'/etc/ca 100%%.pem' --cert-name master %h");
  // Pasted into sh, the printed line gives back exactly these arguments (ShellJoin's round trip:
  // common/shell_quote_test.cc).
  EXPECT_EQ(ShellJoin({"ssh", "-o", argv[2]}),
            "ssh -o 'ProxyCommand='\\''/opt/my tools/det'\\'' -m https://master:8443 tunnel "
            "--cert-file '\\''/etc/ca 100%%.pem'\\'' --cert-name master %h'");
}

TEST(TunnelTlsFlagsTest, OnlyWhatIsSet) {
  EXPECT_TRUE(TunnelTlsFlags({}).empty());
  client::TlsOptions nv;
  nv.no_verify = true;
  EXPECT_EQ(TunnelTlsFlags(nv), (std::vector<std::string>{"--cert-file", "noverify"}));
  client::TlsOptions ca;
  ca.ca_file = "/etc/ca.pem";
  ca.cert_name = "m";
  EXPECT_EQ(TunnelTlsFlags(ca),
            (std::vector<std::string>{"--cert-file", "/etc/ca.pem", "--cert-name", "m"}));
  client::TlsOptions rel;
  rel.ca_file = "certs/../ca.pem";
  EXPECT_EQ(TunnelTlsFlags(rel)[1], (fs::current_path() / "ca.pem").string());
}

TEST(DetProgramTest, BareDetOnlyWhenPathFindsThisBinary) {
  TestTempDir dir("det_ssh_test");
  fs::path self = dir.path() / "real-det";
  std::ofstream(self) << "#!/bin/sh\n";
  fs::permissions(self, fs::perms::owner_all);
  fs::create_directories(dir.path() / "bin");
  fs::create_symlink(self, dir.path() / "bin" / "det");
  EXPECT_EQ(DetProgramForProxy((dir.path() / "bin").string(), self), "det");
  EXPECT_EQ(DetProgramForProxy("/nonexistent", self), self.string());
  fs::path other = dir.path() / "other" / "det";
  fs::create_directories(other.parent_path());
  std::ofstream(other) << "#!/bin/sh\n";
  fs::permissions(other, fs::perms::owner_all);
  EXPECT_EQ(DetProgramForProxy((dir.path() / "other").string(), self), self.string());
}

TEST(ShellUserTest, AgentUserOrRoot) {
  EXPECT_EQ(ShellUser(json{{"agentUserGroup", {{"user", "det"}, {"uid", 1000}}}}), "det");
  EXPECT_EQ(ShellUser(json{{"agentUserGroup", nullptr}}), "root");
  EXPECT_EQ(ShellUser(json::object()), "root");
}

TEST(PrivateKeyTest, WrittenWithMode0600AndAFinalNewline) {
  TestTempDir dir("det_ssh_test");
  fs::path key = dir.path() / "cache" / "shell" / "id" / "key";
  ASSERT_TRUE(WritePrivateKey(key, "-----BEGIN KEY-----\nabc\n-----END KEY-----").ok());
  std::stringstream text;
  text << std::ifstream(key).rdbuf();
  EXPECT_EQ(text.str(), "-----BEGIN KEY-----\nabc\n-----END KEY-----\n");
  EXPECT_EQ(fs::status(key).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::status(key.parent_path()).permissions() & fs::perms::all, fs::perms::owner_all);
  ASSERT_TRUE(WritePrivateKey(key, "new\n").ok());  // replaced, not appended
  std::stringstream again;
  again << std::ifstream(key).rdbuf();
  EXPECT_EQ(again.str(), "new\n");

  absl::StatusOr<fs::path> tmp = WriteTempPrivateKey(dir.path(), "k");
  ASSERT_TRUE(tmp.ok()) << tmp.status();
  EXPECT_EQ(tmp->parent_path(), dir.path());
  EXPECT_EQ(fs::status(*tmp).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(RunForegroundTest, ExitStatusAndMissingProgram) {
  EXPECT_EQ(RunForeground({"sh", "-c", "exit 7"}).value_or(-1), 7);
  EXPECT_EQ(RunForeground({"sh", "-c", "kill -TERM $$"}).value_or(-1), 128 + 15);
  EXPECT_EQ(RunForeground({"no-such-program-xyz"}).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::cli
