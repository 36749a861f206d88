#pragma once
// The master's HTTP/1.1 + WebSocket server on Boost.Beast (async; no thread per idle connection).
// With EnableTls() it serves HTTPS and WSS instead (TLS 1.2+), with the same routes and websockets.
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "master/http/http_types.h"
#include "master/http/router.h"

namespace boost::asio {
class io_context;
}

namespace det::master {

// Called for a websocket upgrade request on `path`; returns the connection's handlers or an error
// status that is answered as an HTTP error instead of upgrading.
using WebSocketAcceptor = std::function<absl::StatusOr<WebSocketHandlers>(
    const HttpRequest& request, std::shared_ptr<WebSocketConnection> connection)>;

class HttpServer {
 public:
  // Requests larger than `max_body_bytes` are refused with 400 naming the limit.
  HttpServer(boost::asio::io_context& io, const Router& router, size_t max_body_bytes);
  ~HttpServer();

  void AddWebSocket(std::string path, WebSocketAcceptor acceptor);
  // Relays every request whose path is `prefix` or under it ("/proxy/": any method, any depth) to
  // where `resolver` says, streaming bodies both ways (nothing is read whole into memory), passing
  // WebSocket upgrades through, and setting X-Forwarded-For/-Proto/-Host and X-Real-IP. The path
  // is forwarded unchanged.
  void AddRelay(std::string prefix, RelayResolver resolver);
  // Serves HTTPS/WSS with the PEM certificate chain and private key in these files (call before
  // Listen). InvalidArgument naming the file when one cannot be read or they do not match.
  absl::Status EnableTls(const std::string& cert_file, const std::string& key_file);
  bool tls_enabled() const;
  // Binds and starts accepting; returns the bound port (useful with port 0).
  absl::StatusOr<int> Listen(const std::string& host, int port);
  void Stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace det::master
