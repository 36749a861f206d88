// `det tunnel SERVICE_ID [--listener PORT]`: the ProxyCommand of `det shell` (tunnel.h). Hidden
// from `det --help` (it is plumbing), documented in `det tunnel --help`.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/tunnel.h"

namespace det::cli {
namespace {

struct TunnelFlags {
  std::string service_id;
  int listener = -1;
  std::string cert_file;  // "" = DET_MASTER_CERT_FILE
  std::string cert_name;  // "" = DET_MASTER_CERT_NAME
};

}  // namespace

void AddTunnelCommand(CLI::App& det, CommandContext& ctx) {
  CLI::App* tunnel = det.add_subcommand(
      "tunnel",
      "Carry a TCP stream to a task's service through the master: opens a WebSocket to "
      "<master>/proxy/SERVICE_ID/ and pipes stdin to it and what it sends to stdout (or, with "
      "--listener, each connection accepted on 127.0.0.1:PORT). ssh uses it as its "
      "ProxyCommand for `det shell` (see `det shell show-ssh-command`), e.g.\n"
      "  ssh -o ProxyCommand='det -m MASTER tunnel %h' USER@SHELL_ID\n"
      "The session token cached by `det user login` is sent when there is one.");
  tunnel->group("");  // not in `det --help`
  auto f = std::make_shared<TunnelFlags>();
  tunnel
      ->add_option("service_id", f->service_id,
                   "the service: a task id (a shell's), or TASK_ID:PORT")
      ->required();
  tunnel
      ->add_option("--listener", f->listener,
                   "listen on 127.0.0.1:PORT and tunnel every connection, instead of stdin and "
                   "stdout")
      ->check(CLI::Range(0, 65535));
  tunnel->add_option("--cert-file", f->cert_file,
                     "the master's TLS certificate (or its CA) file, or 'noverify' (default: "
                     "$DET_MASTER_CERT_FILE)");
  tunnel->add_option("--cert-name", f->cert_name,
                     "the name the master's certificate must carry (default: "
                     "$DET_MASTER_CERT_NAME, else the master's host)");
  tunnel->callback([&ctx, f] {
    ctx.action = [&ctx, f]() -> absl::StatusOr<int> {
      TunnelOptions options;
      options.master_url = ctx.MasterUrl();
      options.service_id = f->service_id;
      options.token = CachedSessionToken(options.master_url, ctx.User());
      options.tls = client::TlsOptions::FromEnvironment();
      if (f->cert_file == "noverify") {
        options.tls.no_verify = true;
        options.tls.ca_file.clear();
      } else if (!f->cert_file.empty()) {
        options.tls.no_verify = false;
        options.tls.ca_file = f->cert_file;
      }
      if (!f->cert_name.empty()) options.tls.cert_name = f->cert_name;
      if (f->listener < 0) {
        absl::Status s = RunTunnel(options, STDIN_FILENO, STDOUT_FILENO);
        if (!s.ok()) return s;
        return 0;
      }
      absl::StatusOr<std::unique_ptr<TunnelListener>> listener =
          TunnelListener::Listen(options, static_cast<uint16_t>(f->listener));
      if (!listener.ok()) return listener.status();
      std::cerr << "Listening on 127.0.0.1:" << (*listener)->port() << "; tunnelling to "
                << options.service_id << std::endl;
      (*listener)->Serve(std::cerr);
      return 0;
    };
  });
}

}  // namespace det::cli
