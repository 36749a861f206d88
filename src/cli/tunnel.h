#pragma once
// `det tunnel SERVICE_ID`: a TCP stream over a WebSocket to the master's proxy, as upstream's
// determined.cli.tunnel speaks it (docs/interactive.md, "The proxy"). The master upgrades
// GET /proxy/{serviceId}/ to a WebSocket whose binary frames carry the raw bytes of a TCP
// connection to the service (sshd for shells); this side pipes a pair of file descriptors (stdin
// and stdout, for ssh's ProxyCommand) or each connection accepted on a local port into it.
//
// Boost.Beast lives in tunnel.cc only (it is slow to compile).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/rest_client.h"

namespace det::cli {

struct TunnelOptions {
  std::string master_url;  // http://host:port or https://host:port, maybe with a path prefix
  std::string service_id;  // a task id, or "<task id>:<port>"
  std::string token;       // sent as "Authorization: Bearer <token>"; "" = none (shells need none)
  client::TlsOptions tls;  // for https masters
};

// ws://host:port/proxy/<service>/ (wss:// for an https master; the master URL's path, if any, in
// front of /proxy). InvalidArgument for a URL that is not http(s) or a service id with '/'.
absl::StatusOr<std::string> TunnelUrl(const std::string& master_url, const std::string& service_id);

// Opens the WebSocket, then copies bytes from `in_fd` into binary frames and the payload of every
// frame the master sends to `out_fd`, both directions at once, unbuffered, until either side ends:
// end of input (the WebSocket is then closed cleanly, still delivering what the master sends
// before its close frame), the master closing or dropping the connection, or `out_fd` refusing
// writes. OK once the tunnel was open, however it ended. Errors say why it could not be opened: the
// master's HTTP answer to the upgrade ("service ... not found" is NotFound, 401
// Unauthenticated...), the connection or the TLS handshake (Unavailable, FailedPrecondition for a
// certificate that fails verification). `in_fd` and `out_fd` may be the same socket; neither is
// closed. SIGPIPE is ignored for the process from the first call on (a closed `out_fd` is an error
// to handle, not a reason to die).
absl::Status RunTunnel(const TunnelOptions& options, int in_fd, int out_fd);

// `det tunnel --listener PORT`: accepts connections on 127.0.0.1:PORT and runs a tunnel for each
// (RunTunnel with the connection as both ends) on its own thread.
class TunnelListener {
 public:
  // Binds and listens; port 0 picks a free one.
  static absl::StatusOr<std::unique_ptr<TunnelListener>> Listen(TunnelOptions options,
                                                                uint16_t port);
  ~TunnelListener();  // Stop()s and waits for every connection's tunnel to end
  TunnelListener(const TunnelListener&) = delete;
  TunnelListener& operator=(const TunnelListener&) = delete;

  uint16_t port() const { return port_; }
  // Accepts until Stop(); a connection whose tunnel cannot be opened is closed with its error on
  // `err` ("Error: ..."), and the listener goes on. Call from one thread; `err` must outlive the
  // listener (connection threads write to it until the destructor joins them).
  void Serve(std::ostream& err);
  // Ends Serve() and every open connection (they are shut down). Any thread; idempotent.
  void Stop();

 private:
  TunnelListener(TunnelOptions options, int fd, uint16_t port);

  const TunnelOptions options_;
  const int fd_;
  const uint16_t port_;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stopped_{false};
  std::mutex mu_;
  // The open connections' sockets; each has a detached thread running its tunnel, which removes
  // its socket when done. The destructor waits until none is left.
  std::vector<int> connections_ ABSL_GUARDED_BY(mu_);
  std::condition_variable connection_ended_;
};

// The token cached by `det user login` for `master_url` (token_cache.h), when it belongs to `user`
// ("" = whoever logged in last); "" when there is none. Never logs in or asks for a password: the
// tunnel runs as ssh's ProxyCommand, whose stdin is the SSH stream.
std::string CachedSessionToken(const std::string& master_url, const std::string& user);

}  // namespace det::cli
