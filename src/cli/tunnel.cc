#include "cli/tunnel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/token_cache.h"
#include "client/tcp_or_tls_stream.h"

namespace det::cli {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
// The tunnel's WebSocket, over plain TCP or TLS (one type: Beast's WebSocket is compiled once).
using TunnelWs = websocket::stream<client::TcpOrTlsStream>;

constexpr size_t kChunk = 64 * 1024;

struct MasterAddress {
  bool tls = false;
  std::string host;  // without brackets for IPv6
  std::string port;
  std::string path_prefix;  // "" or "/prefix" (no trailing '/')
  std::string host_header;  // as in the URL: "host:port", "[::1]:port"
};

absl::StatusOr<MasterAddress> ParseMasterUrl(const std::string& url) {
  MasterAddress a;
  std::string rest;
  if (absl::StartsWith(url, "https://")) {
    a.tls = true;
    rest = url.substr(8);
  } else if (absl::StartsWith(url, "http://")) {
    rest = url.substr(7);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("master URL \"", url, "\": expected http://HOST:PORT or https://HOST:PORT"));
  }
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) a.path_prefix = rest.substr(slash);
  while (!a.path_prefix.empty() && a.path_prefix.back() == '/') a.path_prefix.pop_back();
  a.host_header = authority;
  std::string host_part = authority;
  size_t colon = authority.rfind(':');
  size_t bracket = authority.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    host_part = authority.substr(0, colon);
    a.port = authority.substr(colon + 1);
  } else {
    a.port = a.tls ? "443" : "80";
  }
  if (host_part.size() >= 2 && host_part.front() == '[' && host_part.back() == ']') {
    host_part = host_part.substr(1, host_part.size() - 2);
  }
  if (host_part.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("master URL \"", url, "\" has no host"));
  }
  a.host = host_part;
  return a;
}

// The path for a service id: every byte outside [A-Za-z0-9-._~:@] percent-encoded.
std::string EncodePathSegment(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c) ||
        std::string_view("-._~:@").find(static_cast<char>(c)) != std::string_view::npos) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

absl::StatusOr<std::string> ProxyTarget(const MasterAddress& a, const std::string& service_id) {
  if (service_id.empty() || service_id.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("service id \"", service_id, "\": expected a task id (or TASK_ID:PORT)"));
  }
  return absl::StrCat(a.path_prefix, "/proxy/", EncodePathSegment(service_id), "/");
}

bool IsIpAddress(const std::string& host) {
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

// The master's words from an error body: the gateway's {"error": {"error": "..."}} or
// {"message": "..."}, else the text itself (shortened).
std::string ErrorBodyMessage(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object()) {
    for (const char* key : {"error", "message"}) {
      auto it = j.find(key);
      if (it == j.end()) continue;
      if (it->is_string()) return it->get<std::string>();
      if (it->is_object()) {
        for (const char* inner : {"error", "message"}) {
          auto m = it->find(inner);
          if (m != it->end() && m->is_string()) return m->get<std::string>();
        }
      }
    }
  }
  std::string text(absl::StripAsciiWhitespace(body));
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text;
}

absl::Status UpgradeRefused(const std::string& service_id, const websocket::response_type& res) {
  int status = static_cast<int>(res.result_int());
  std::string reason(res.reason());
  std::string message = ErrorBodyMessage(res.body());
  std::string text =
      absl::StrCat("cannot open a tunnel to ", service_id, ": the master answered ", status,
                   reason.empty() ? "" : " ", reason, message.empty() ? "" : ": ", message);
  switch (status) {
    case 400:
      return absl::InvalidArgumentError(text);
    case 401:
      return absl::UnauthenticatedError(absl::StrCat(text, " (log in with `det user login`)"));
    case 403:
      return absl::PermissionDeniedError(text);
    case 404:
      return absl::NotFoundError(text);
    default:
      if (status >= 500) return absl::UnavailableError(text);
      return absl::FailedPreconditionError(text);
  }
}

// A failed TLS handshake: a certificate problem names the settings that fix it.
absl::Status TlsFailed(const MasterAddress& a, const beast::error_code& ec) {
  std::string what = ec.message();
  if (ec.category() == asio::error::get_ssl_category()) {
    char buf[256];
    ERR_error_string_n(static_cast<unsigned long>(ec.value()), buf, sizeof(buf));
    what = buf;
  }
  if (absl::StrContains(absl::AsciiStrToLower(what), "certificate")) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the master's certificate at ", a.host, ":", a.port, " failed verification (", what,
        "); pass --cert-file with the master's certificate (or its CA), --cert-name with the name "
        "in it, or --cert-file noverify (or set DET_MASTER_CERT_FILE / DET_MASTER_CERT_NAME)"));
  }
  return absl::UnavailableError(
      absl::StrCat("TLS handshake with the master at ", a.host, ":", a.port, " failed: ", what));
}

// Writes all of `data` to `fd`, waiting while a non-blocking descriptor is full. False when the
// descriptor no longer takes data.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The two directions of one open tunnel. The WebSocket is used only on the io_context's thread (the
// one calling Run()); a reader thread blocks on `in_fd` and hands each chunk over, one at a time:
// it reads the next chunk only once the previous one is written, so a slow master slows the input
// down instead of filling memory.
class Pipe {
 public:
  Pipe(asio::io_context& ioc, TunnelWs& ws, int in_fd, int out_fd)
      : ioc_(ioc), ws_(ws), in_fd_(in_fd), out_fd_(out_fd) {}

  absl::Status Run() {
    if (::pipe2(wake_, O_CLOEXEC) != 0) {
      return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
    }
    ws_.binary(true);
    ReadFrame();
    std::thread reader([this] { ReadInput(); });
    ioc_.run();
    StopReader();  // the io_context ran out of work: the tunnel is over
    reader.join();
    ::close(wake_[0]);
    ::close(wake_[1]);
    return absl::OkStatus();
  }

 private:
  // --- the io_context's thread ---

  void ReadFrame() {
    ws_.async_read(frame_, [this](beast::error_code ec, size_t) {
      if (ec) {  // closed by the master (or after our close), dropped, or timed out
        done_ = true;
        StopReader();
        return;
      }
      asio::const_buffer payload = frame_.data();  // a flat_buffer is one contiguous block
      bool ok = WriteAll(out_fd_, static_cast<const char*>(payload.data()), payload.size());
      frame_.consume(frame_.size());
      if (!ok) {  // nobody reads the output any more
        done_ = true;
        StopReader();
        Close();
        return;
      }
      ReadFrame();
    });
  }

  void WriteChunk(std::shared_ptr<std::string> chunk) {
    if (done_ || closing_) return ChunkDone();
    ws_.async_write(asio::buffer(*chunk), [this, chunk](beast::error_code ec, size_t) {
      ChunkDone();
      if (ec) {
        done_ = true;
        StopReader();
      }
    });
  }

  void InputEnded() {
    if (!done_) Close();
  }

  // Starts the closing handshake; the pending read still delivers what the master sends until its
  // close frame, then fails with `closed`, which ends the tunnel.
  void Close() {
    if (closing_) return;
    closing_ = true;
    ws_.async_close(websocket::close_code::normal, [](beast::error_code) {});
  }

  // --- either thread ---

  void ChunkDone() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      chunk_in_flight_ = false;
    }
    cv_.notify_all();
  }

  void StopReader() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    cv_.notify_all();
    char b = 0;
    (void)!::write(wake_[1], &b, 1);
  }

  // --- the reader thread ---

  void ReadInput() {
    std::vector<char> buf(kChunk);
    while (true) {
      pollfd fds[2] = {{in_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      int r = ::poll(fds, 2, -1);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 || fds[1].revents != 0) return;
      ssize_t n = ::read(in_fd_, buf.data(), buf.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      std::unique_lock<std::mutex> lock(mu_);
      if (stopped_) return;
      if (n <= 0) {  // end of input (or an error reading it)
        asio::post(ioc_, [this] { InputEnded(); });
        return;
      }
      chunk_in_flight_ = true;
      auto chunk = std::make_shared<std::string>(buf.data(), static_cast<size_t>(n));
      asio::post(ioc_, [this, chunk] { WriteChunk(chunk); });
      cv_.wait(lock, [this] { return !chunk_in_flight_ || stopped_; });
      if (stopped_) return;
    }
  }

  asio::io_context& ioc_;
  TunnelWs& ws_;
  const int in_fd_;
  const int out_fd_;
  beast::flat_buffer frame_;
  bool done_ = false;     // io thread only
  bool closing_ = false;  // io thread only
  int wake_[2] = {-1, -1};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  bool chunk_in_flight_ ABSL_GUARDED_BY(mu_) = false;
};

absl::Status Upgrade(asio::io_context& ioc, TunnelWs& ws, const MasterAddress& a,
                     const std::string& target, const TunnelOptions& options) {
  beast::get_lowest_layer(ws).expires_never();
  websocket::stream_base::timeout timeouts = websocket::stream_base::timeout::suggested(
      beast::role_type::client);  // 30 s for the opening and the closing handshakes
  ws.set_option(timeouts);
  std::string token = options.token;
  ws.set_option(websocket::stream_base::decorator([token](websocket::request_type& req) {
    req.set(http::field::user_agent, "det-tunnel");
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
  }));
  websocket::response_type res;
  beast::error_code ec;
  // Asynchronously, because Beast 1.74's synchronous handshake drops the response of a refused
  // upgrade, and the master's refusal (404 service not found...) is what the user needs to see.
  // Run until the handshake is over, not until the io_context is idle: a refused handshake leaves
  // its timeout's timer pending.
  bool done = false;
  ws.async_handshake(res, a.host_header, target, [&](beast::error_code e) {
    ec = e;
    done = true;
  });
  while (!done && ioc.run_one() > 0) {
  }
  ioc.restart();
  if (!done) return absl::InternalError("the WebSocket handshake neither completed nor failed");
  if (ec) {
    if (res.result_int() != 0 && res.result() != http::status::switching_protocols) {
      return UpgradeRefused(options.service_id, res);
    }
    return absl::UnavailableError(absl::StrCat("cannot open a tunnel to ", options.service_id,
                                               " at ", a.host, ":", a.port,
                                               ": the WebSocket handshake failed: ", ec.message()));
  }
  return absl::OkStatus();
}

absl::Status Connect(tcp::socket& socket, asio::io_context& ioc, const MasterAddress& a) {
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  auto endpoints = resolver.resolve(a.host, a.port, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve the master's host ", a.host, ": ", ec.message()));
  }
  asio::connect(socket, endpoints, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to the master at ", a.host, ":", a.port, ": ", ec.message()));
  }
  socket.set_option(tcp::no_delay(true), ec);  // interactive traffic: no Nagle delays
  return absl::OkStatus();
}

absl::Status RunPlain(const MasterAddress& a, const std::string& target,
                      const TunnelOptions& options, int in_fd, int out_fd) {
  asio::io_context ioc;
  TunnelWs ws{client::TcpOrTlsStream(beast::tcp_stream(ioc))};
  absl::Status s = Connect(beast::get_lowest_layer(ws).socket(), ioc, a);
  if (!s.ok()) return s;
  s = Upgrade(ioc, ws, a, target, options);
  if (!s.ok()) return s;
  return Pipe(ioc, ws, in_fd, out_fd).Run();
}

absl::Status RunTls(const MasterAddress& a, const std::string& target, const TunnelOptions& options,
                    int in_fd, int out_fd) {
  asio::io_context ioc;
  ssl::context ctx(ssl::context::tls_client);
  beast::error_code ec;
  if (options.tls.no_verify) {
    ctx.set_verify_mode(ssl::verify_none, ec);
  } else {
    ctx.set_verify_mode(ssl::verify_peer, ec);
    if (!options.tls.ca_file.empty()) {
      ctx.load_verify_file(options.tls.ca_file, ec);
      if (ec) {
        return absl::FailedPreconditionError(absl::StrCat("cannot read the certificate file ",
                                                          options.tls.ca_file, ": ", ec.message()));
      }
    } else {
      ctx.set_default_verify_paths(ec);
    }
  }
  TunnelWs ws{client::TcpOrTlsStream(client::TcpOrTlsStream::TlsStream(ioc, ctx))};
  absl::Status s = Connect(beast::get_lowest_layer(ws).socket(), ioc, a);
  if (!s.ok()) return s;
  SSL* handle = ws.next_layer().tls().native_handle();
  // SNI carries DNS names only; the name to verify is --cert-name, else the host we dial.
  if (!IsIpAddress(a.host)) SSL_set_tlsext_host_name(handle, a.host.c_str());
  if (!options.tls.no_verify) {
    const std::string& name = options.tls.cert_name.empty() ? a.host : options.tls.cert_name;
    X509_VERIFY_PARAM* param = SSL_get0_param(handle);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str()) != 1) {
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
    }
  }
  ws.next_layer().tls().handshake(ssl::stream_base::client, ec);
  if (ec) return TlsFailed(a, ec);
  s = Upgrade(ioc, ws, a, target, options);
  if (!s.ok()) return s;
  return Pipe(ioc, ws, in_fd, out_fd).Run();
}

}  // namespace

absl::StatusOr<std::string> TunnelUrl(const std::string& master_url,
                                      const std::string& service_id) {
  absl::StatusOr<MasterAddress> a = ParseMasterUrl(master_url);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::string> target = ProxyTarget(*a, service_id);
  if (!target.ok()) return target.status();
  return absl::StrCat(a->tls ? "wss://" : "ws://", a->host_header, *target);
}

absl::Status RunTunnel(const TunnelOptions& options, int in_fd, int out_fd) {
  ::signal(SIGPIPE, SIG_IGN);
  absl::StatusOr<MasterAddress> a = ParseMasterUrl(options.master_url);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::string> target = ProxyTarget(*a, options.service_id);
  if (!target.ok()) return target.status();
  try {
    if (a->tls) return RunTls(*a, *target, options, in_fd, out_fd);
    return RunPlain(*a, *target, options, in_fd, out_fd);
  } catch (const std::exception& e) {  // Beast/Asio throw only on resource exhaustion here
    return absl::InternalError(absl::StrCat("tunnel to ", options.service_id, ": ", e.what()));
  }
}

TunnelListener::TunnelListener(TunnelOptions options, int fd, uint16_t port)
    : options_(std::move(options)), fd_(fd), port_(port) {}

absl::StatusOr<std::unique_ptr<TunnelListener>> TunnelListener::Listen(TunnelOptions options,
                                                                       uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 64) != 0) {
    int err = errno;
    ::close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot listen on 127.0.0.1:", port, ": ", std::strerror(err)));
  }
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::unique_ptr<TunnelListener> l(
      new TunnelListener(std::move(options), fd, ntohs(addr.sin_port)));
  if (::pipe2(l->wake_, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  return l;
}

TunnelListener::~TunnelListener() {
  Stop();
  {
    std::unique_lock<std::mutex> lock(mu_);
    connection_ended_.wait(lock, [this] { return connections_.empty(); });
  }
  ::close(fd_);
  if (wake_[0] >= 0) ::close(wake_[0]);
  if (wake_[1] >= 0) ::close(wake_[1]);
}

void TunnelListener::Serve(std::ostream& err) {
  while (!stopped_) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int r = ::poll(fds, 2, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || fds[1].revents != 0) return;
    int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    int one = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      ::close(c);
      return;
    }
    connections_.push_back(c);
    std::thread([this, c, &err] {
      absl::Status s = RunTunnel(options_, c, c);
      std::lock_guard<std::mutex> lock(mu_);
      if (!s.ok()) err << "Error: " << s.message() << std::endl;
      connections_.erase(std::remove(connections_.begin(), connections_.end(), c),
                         connections_.end());
      ::close(c);  // under the lock: Stop() must not shut down a reused descriptor number
      connection_ended_.notify_all();
    }).detach();
  }
}

void TunnelListener::Stop() {
  if (stopped_.exchange(true)) return;
  char b = 0;
  (void)!::write(wake_[1], &b, 1);
  std::lock_guard<std::mutex> lock(mu_);
  for (int c : connections_) ::shutdown(c, SHUT_RDWR);
}

std::string CachedSessionToken(const std::string& master_url, const std::string& user) {
  absl::StatusOr<TokenCache> cache = TokenCache::Load(TokenCache::DefaultPath());
  if (!cache.ok()) return "";
  std::optional<CachedLogin> login = cache->Get(master_url);
  if (!login.has_value() || (!user.empty() && login->username != user)) return "";
  return login->token;
}

}  // namespace det::cli
