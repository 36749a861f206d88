#pragma once
// Transport-neutral request/response types for the master's HTTP layer; Beast stays in server.cc.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace det::master {

// Who is calling: a user session, or a task holding its allocation token.
struct Principal {
  int64_t user_id = 0;
  std::string username;
  bool admin = false;
  std::string allocation_id;  // set when authenticated by an allocation token
  std::string token;          // the presented token (user or allocation)
};

struct HttpRequest {
  std::string method;
  std::string path;                              // without the query string, trailing '/' removed
  std::multimap<std::string, std::string> query;  // decoded
  std::map<std::string, std::string> headers;     // keys lower-cased
  std::string body;
  std::map<std::string, std::string> path_params;  // filled by the router
  std::optional<Principal> principal;              // filled by the router for authenticated routes
  std::string remote_address;                      // the peer's IP address, "" when unknown

  // First value of a query parameter accepting both snake_case and lowerCamelCase names.
  std::optional<std::string> Query(const std::string& snake_name) const;
  std::vector<std::string> QueryAll(const std::string& snake_name) const;
  std::string Header(const std::string& lower_name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// How a handler answers. Safe to call from any thread; exactly one of Send or a stream must be used.
class Responder {
 public:
  virtual ~Responder() = default;
  virtual void Send(HttpResponse response) = 0;
  // A chunked response: BeginStream once, WriteChunk any number of times (each `done` runs once the
  // chunk was written, with false when the client went away), then EndStream.
  virtual void BeginStream(int status, std::string content_type) = 0;
  virtual void WriteChunk(std::string data, std::function<void(bool ok)> done) = 0;
  virtual void EndStream() = 0;
};
using ResponderPtr = std::shared_ptr<Responder>;

// A websocket connection to a peer (agents). Safe to call from any thread.
class WebSocketConnection {
 public:
  virtual ~WebSocketConnection() = default;
  virtual void Send(std::string text) = 0;
  virtual void Close() = 0;
};

// Where the server relays a request whose path is under a relay prefix (the proxy, /proxy/...).
struct RelayTarget {
  std::string host;  // an IP address or a host name
  int port = 0;
  // The client's WebSocket carries a raw TCP stream to the backend (binary messages both ways);
  // otherwise the request itself (HTTP, or a WebSocket upgrade passed through) goes to the backend.
  bool tcp_over_websocket = false;
  std::vector<std::string> remove_headers;                       // lower-case names
  std::vector<std::pair<std::string, std::string>> set_headers;  // added after removal
  std::string name;  // for errors: "service 7f3e..."
};

// Decides from a request's head (its body not read yet) where it goes, or answers it (401, 404...).
using RelayResolver = std::function<std::variant<RelayTarget, HttpResponse>(const HttpRequest& head)>;

struct WebSocketHandlers {
  std::function<void(std::string text)> on_message;
  std::function<void()> on_close;  // called once, whatever ended the connection
};

}  // namespace det::master
