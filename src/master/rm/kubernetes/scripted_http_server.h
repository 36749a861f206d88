#pragma once
// For tests: a small HTTP/1.1 server on 127.0.0.1 (a port of its own) that records every request
// and answers each with the next scripted response, whole or chunked in pieces with pauses (a watch
// or a log follow), optionally over TLS. Enough to drive KubeHttpClient through what a real API
// server does on the wire.
//
// Threads: one accepting, one per connection (keep-alive: several requests a connection). All
// methods may be called from any thread; the destructor ends every connection and joins.
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace det::master::kube {

struct RecordedRequest {
  std::string method;
  std::string path;                            // before '?'
  std::string query;                           // after '?', as sent
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;

  // A query parameter, percent-decoded ("" when absent).
  std::string Param(std::string_view name) const;
  bool HasParam(std::string_view name) const;
  std::string Header(const std::string& lower_case_name) const;
};

struct ScriptedResponse {
  struct Piece {
    std::chrono::milliseconds pause{0};  // before this piece goes
    std::string data;
  };

  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // more headers
  std::string body;      // sent whole, with Content-Length, unless `chunked`
  bool chunked = false;  // send `pieces`, each as an HTTP chunk
  std::vector<Piece> pieces;
  bool hold_open = false;        // chunked: after the pieces, send nothing until the client goes
  bool cut_off = false;          // chunked: after the pieces, close without ending the body
  bool drop_connection = false;  // close the connection instead of answering

  static ScriptedResponse Json(int status, const nlohmann::json& body);
  // A Kubernetes Status object reply: {"kind":"Status","status":"Failure","code":..,...}.
  static ScriptedResponse KubeStatus(int code, const std::string& reason,
                                     const std::string& message);
};

struct ServerTls {
  std::string cert_file;       // the server's certificate (PEM)
  std::string key_file;        // and its key
  std::string client_ca_file;  // "" = no client certificate asked; else one is required
};

class ScriptedHttpServer {
 public:
  explicit ScriptedHttpServer(const ServerTls* tls = nullptr);  // aborts if TLS setup fails
  ~ScriptedHttpServer();
  ScriptedHttpServer(const ScriptedHttpServer&) = delete;
  ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

  // "http://127.0.0.1:PORT" (or https://).
  std::string url() const;
  // Queues the answer to the next request that has none yet. A request with none gets a 599.
  void Reply(ScriptedResponse response);
  std::vector<RecordedRequest> requests() const;
  // Waits until `n` requests have come; false after `timeout`.
  bool WaitForRequests(size_t n, std::chrono::milliseconds timeout) const;
  // Connections the client closed while a held response was open (a stopped stream).
  int held_streams_closed_by_client() const;
  int connections_accepted() const;

 private:
  struct Connection;
  void AcceptLoop();
  void Serve(int fd);
  // False when the connection is to be closed.
  bool Answer(Connection& conn, const ScriptedResponse& response);
  // Sleeps `pause`; false when the server is shutting down.
  bool Pause(std::chrono::milliseconds pause) const;

  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};  // written once, at shutdown: wakes every poll
  int port_ = 0;
  void* ssl_ctx_ = nullptr;  // SSL_CTX*, when serving TLS
  std::thread acceptor_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<ScriptedResponse> script_ ABSL_GUARDED_BY(mu_);
  std::vector<RecordedRequest> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> connection_threads_ ABSL_GUARDED_BY(mu_);
  std::set<int> open_fds_ ABSL_GUARDED_BY(mu_);  // shut down at shutdown
  int held_closed_ ABSL_GUARDED_BY(mu_) = 0;
  int accepted_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace det::master::kube
