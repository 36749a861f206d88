#include "master/rm/kubernetes/scripted_http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace det::master::kube {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "ScriptedHttpServer: %s\n", what.c_str());
  std::abort();
}

std::string PercentDecode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && absl::ascii_isxdigit(s[i + 1]) &&
        absl::ascii_isxdigit(s[i + 2])) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Status";
  }
}

}  // namespace

std::string RecordedRequest::Param(std::string_view name) const {
  for (absl::string_view pair : absl::StrSplit(query, '&')) {
    size_t eq = pair.find('=');
    if (PercentDecode(pair.substr(0, eq)) == name) {
      return eq == absl::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1));
    }
  }
  return "";
}

bool RecordedRequest::HasParam(std::string_view name) const {
  for (absl::string_view pair : absl::StrSplit(query, '&')) {
    if (PercentDecode(pair.substr(0, pair.find('='))) == name) return true;
  }
  return false;
}

std::string RecordedRequest::Header(const std::string& lower_case_name) const {
  auto it = headers.find(lower_case_name);
  return it == headers.end() ? "" : it->second;
}

ScriptedResponse ScriptedResponse::Json(int status, const nlohmann::json& body) {
  ScriptedResponse r;
  r.status = status;
  r.body = body.dump();
  return r;
}

ScriptedResponse ScriptedResponse::KubeStatus(int code, const std::string& reason,
                                              const std::string& message) {
  return Json(code, {{"kind", "Status"},
                     {"apiVersion", "v1"},
                     {"metadata", nlohmann::json::object()},
                     {"status", "Failure"},
                     {"message", message},
                     {"reason", reason},
                     {"code", code}});
}

// One accepted connection, plain or TLS.
struct ScriptedHttpServer::Connection {
  int fd;
  int wake_fd;
  SSL* ssl = nullptr;

  // Blocks until there is something to read (or the peer is gone); false at shutdown.
  bool WaitReadable() const {
    if (ssl != nullptr && SSL_pending(ssl) > 0) return true;
    pollfd fds[2] = {{.fd = fd, .events = POLLIN, .revents = 0},
                     {.fd = wake_fd, .events = POLLIN, .revents = 0}};
    while (poll(fds, 2, -1) < 0) {
      if (errno != EINTR) return false;
    }
    return fds[1].revents == 0;
  }
  // Some bytes; 0 at the end of the stream or on an error.
  size_t ReadSome(char* buf, size_t n) const {
    if (ssl != nullptr) {
      int got = SSL_read(ssl, buf, static_cast<int>(n));
      return got > 0 ? static_cast<size_t>(got) : 0;
    }
    ssize_t got = recv(fd, buf, n, 0);
    return got > 0 ? static_cast<size_t>(got) : 0;
  }
  bool WriteAll(absl::string_view data) const {
    while (!data.empty()) {
      ssize_t sent = ssl != nullptr ? SSL_write(ssl, data.data(), static_cast<int>(data.size()))
                                    : send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      data.remove_prefix(static_cast<size_t>(sent));
    }
    return true;
  }
};

ScriptedHttpServer::ScriptedHttpServer(const ServerTls* tls) {
  if (tls != nullptr) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    if (SSL_CTX_use_certificate_chain_file(ctx, tls->cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, tls->key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      Die("cannot load " + tls->cert_file + " and " + tls->key_file);
    }
    if (!tls->client_ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx, tls->client_ca_file.c_str(), nullptr) != 1) {
        Die("cannot load " + tls->client_ca_file);
      }
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    ssl_ctx_ = ctx;
  }
  if (pipe2(wake_pipe_, O_CLOEXEC) != 0) Die("pipe2 failed");
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listen_fd_, 64) != 0) {
    Die("cannot listen on 127.0.0.1");
  }
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
  }
  char byte = 1;
  (void)!write(wake_pipe_[1], &byte, 1);
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    threads.swap(connection_threads_);
  }
  for (std::thread& t : threads) t.join();
  close(listen_fd_);
  close(wake_pipe_[0]);
  close(wake_pipe_[1]);
  if (ssl_ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
}

std::string ScriptedHttpServer::url() const {
  return absl::StrCat(ssl_ctx_ != nullptr ? "https" : "http", "://127.0.0.1:", port_);
}

void ScriptedHttpServer::Reply(ScriptedResponse response) {
  absl::MutexLock lock(&mu_);
  script_.push_back(std::move(response));
}

std::vector<RecordedRequest> ScriptedHttpServer::requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}

bool ScriptedHttpServer::WaitForRequests(size_t n, std::chrono::milliseconds timeout) const {
  absl::MutexLock lock(&mu_);
  auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return requests_.size() >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&enough), absl::FromChrono(timeout));
}

int ScriptedHttpServer::held_streams_closed_by_client() const {
  absl::MutexLock lock(&mu_);
  return held_closed_;
}

int ScriptedHttpServer::connections_accepted() const {
  absl::MutexLock lock(&mu_);
  return accepted_;
}

bool ScriptedHttpServer::Pause(std::chrono::milliseconds pause) const {
  if (pause.count() <= 0) return true;
  pollfd wake{.fd = wake_pipe_[0], .events = POLLIN, .revents = 0};
  return poll(&wake, 1, static_cast<int>(pause.count())) == 0;
}

void ScriptedHttpServer::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{.fd = listen_fd_, .events = POLLIN, .revents = 0},
                     {.fd = wake_pipe_[0], .events = POLLIN, .revents = 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      close(fd);
      return;
    }
    open_fds_.insert(fd);
    ++accepted_;
    connection_threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void ScriptedHttpServer::Serve(int fd) {
  // OpenSSL writes with write(2): a client that went away would raise SIGPIPE, which kills a test
  // process. Blocked in this thread, the write fails with EPIPE instead.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  Connection conn{.fd = fd, .wake_fd = wake_pipe_[0]};
  bool ok = true;
  if (ssl_ctx_ != nullptr) {
    conn.ssl = SSL_new(static_cast<SSL_CTX*>(ssl_ctx_));
    SSL_set_fd(conn.ssl, fd);
    ok = SSL_accept(conn.ssl) == 1;  // fails when the client refuses our certificate
  }
  std::string buf;
  char chunk[16384];
  while (ok) {
    size_t header_end;
    while (ok && (header_end = buf.find("\r\n\r\n")) == std::string::npos) {
      size_t got = conn.WaitReadable() ? conn.ReadSome(chunk, sizeof(chunk)) : 0;
      ok = got > 0;
      buf.append(chunk, got);
    }
    if (!ok) break;
    RecordedRequest request;
    std::vector<absl::string_view> lines =
        absl::StrSplit(absl::string_view(buf).substr(0, header_end), "\r\n");
    std::vector<absl::string_view> first = absl::StrSplit(lines[0], ' ');
    if (first.size() < 2) break;
    request.method = std::string(first[0]);
    absl::string_view target = first[1];
    size_t question = target.find('?');
    request.path = std::string(target.substr(0, question));
    if (question != absl::string_view::npos)
      request.query = std::string(target.substr(question + 1));
    size_t content_length = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      size_t colon = lines[i].find(':');
      if (colon == absl::string_view::npos) continue;
      std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
      std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
      if (name == "content-length" && !absl::SimpleAtoi(value, &content_length)) ok = false;
      request.headers[name] = value;
    }
    size_t body_start = header_end + 4;
    while (ok && buf.size() < body_start + content_length) {
      size_t got = conn.WaitReadable() ? conn.ReadSome(chunk, sizeof(chunk)) : 0;
      ok = got > 0;
      buf.append(chunk, got);
    }
    if (!ok) break;
    request.body = buf.substr(body_start, content_length);
    buf.erase(0, body_start + content_length);

    ScriptedResponse response;
    {
      absl::MutexLock lock(&mu_);
      requests_.push_back(std::move(request));
      if (script_.empty()) {
        response = ScriptedResponse::Json(599, {{"message", "no scripted response"}});
      } else {
        response = std::move(script_.front());
        script_.pop_front();
      }
    }
    ok = Answer(conn, response);
  }
  {
    absl::MutexLock lock(&mu_);
    open_fds_.erase(fd);
  }
  if (conn.ssl != nullptr) SSL_free(conn.ssl);
  close(fd);
}

bool ScriptedHttpServer::Answer(Connection& conn, const ScriptedResponse& response) {
  if (response.drop_connection) return false;
  std::string head = absl::StrCat("HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status),
                                  "\r\nContent-Type: ", response.content_type, "\r\n");
  for (const auto& [name, value] : response.headers)
    absl::StrAppend(&head, name, ": ", value, "\r\n");
  if (!response.chunked) {
    absl::StrAppend(&head, "Content-Length: ", response.body.size(), "\r\n\r\n", response.body);
    return conn.WriteAll(head);
  }
  absl::StrAppend(&head, "Transfer-Encoding: chunked\r\n\r\n");
  if (!conn.WriteAll(head)) return false;
  for (const ScriptedResponse::Piece& piece : response.pieces) {
    if (!Pause(piece.pause)) return false;
    if (piece.data.empty()) continue;  // an empty chunk would end the body
    if (!conn.WriteAll(absl::StrCat(absl::Hex(piece.data.size()), "\r\n", piece.data, "\r\n"))) {
      return false;
    }
  }
  if (response.hold_open) {
    char byte;
    while (conn.WaitReadable() && conn.ReadSome(&byte, 1) > 0) {
    }
    absl::MutexLock lock(&mu_);
    if (!stopping_) ++held_closed_;
    return false;
  }
  if (response.cut_off) return false;
  return conn.WriteAll("0\r\n\r\n");
}

}  // namespace det::master::kube
