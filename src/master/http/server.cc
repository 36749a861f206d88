#include "master/http/server.h"

#include <spdlog/spdlog.h>

#include <utility>  // Boost 1.74 asio uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <deque>
#include <limits>
#include <map>

#include "master/http/relay_pipes.h"
#include "master/http/tls_context.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace det::master {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using relay::ClientStream;
using TlsStream = ClientStream::TlsStream;

constexpr auto kIdleTimeout = std::chrono::seconds(600);
constexpr auto kHandshakeTimeout = std::chrono::seconds(30);
// Request and relayed response heads larger than this are refused (431 / 502).
constexpr uint32_t kMaxHeaderBytes = 64 << 10;
constexpr auto kBackendConnectTimeout = std::chrono::seconds(10);
// Relayed bodies have no size limit. (Boost 1.74's parser takes boost::none for "no limit" but then
// compares a Content-Length against the empty optional and refuses every sized body.)
constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();

using Relays = std::vector<std::pair<std::string, RelayResolver>>;

std::string PercentDecode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Everything but the body.
template <class Body>
HttpRequest ToHttpRequest(const http::request<Body>& req) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  std::string target(req.target());
  size_t q = target.find('?');
  out.path = PercentDecode(target.substr(0, q));
  while (out.path.size() > 1 && out.path.back() == '/') out.path.pop_back();
  if (q != std::string::npos) {
    for (absl::string_view pair : absl::StrSplit(target.substr(q + 1), '&', absl::SkipEmpty())) {
      size_t eq = pair.find('=');
      std::string key = PercentDecode(pair.substr(0, eq));
      std::string value = eq == absl::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1));
      out.query.emplace(std::move(key), std::move(value));
    }
  }
  for (const auto& field : req) {
    out.headers[absl::AsciiStrToLower(std::string(field.name_string()))] = std::string(field.value());
  }
  return out;
}

// The relay for `path`, or null. A prefix "/proxy/" takes "/proxy/x/..." and "/proxy/x".
const RelayResolver* FindRelay(const Relays& relays, const std::string& path) {
  for (const auto& [prefix, resolver] : relays) {
    absl::string_view bare = absl::string_view(prefix);
    if (!bare.empty() && bare.back() == '/') bare.remove_suffix(1);
    if (path == bare || absl::StartsWith(path, prefix)) return &resolver;
  }
  return nullptr;
}

// The Cookie header without the master's own `auth` cookie (backends never see master sessions).
std::string WithoutAuthCookie(absl::string_view cookies) {
  std::vector<std::string> kept;
  for (absl::string_view part : absl::StrSplit(cookies, ';', absl::SkipWhitespace())) {
    absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(part);
    if (absl::StartsWith(trimmed, "auth=")) continue;
    kept.emplace_back(trimmed);
  }
  return absl::StrJoin(kept, "; ");
}

class WsSession : public WebSocketConnection,
                  public std::enable_shared_from_this<WsSession> {
 public:
  // Takes over the (already TLS-handshaken, for HTTPS) stream of the HTTP session.
  explicit WsSession(ClientStream stream) : ws_(std::move(stream)) {}

  void Start(http::request<http::string_body> req, WebSocketHandlers handlers) {
    handlers_ = std::move(handlers);
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.read_message_max(64 << 20);
    ws_.async_accept(req, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->Closed();
      self->DoRead();
    });
  }

  void Send(std::string text) override {
    net::post(ws_.get_executor(), [self = shared_from_this(), text = std::move(text)]() mutable {
      self->outbox_.push_back(std::move(text));
      if (self->outbox_.size() == 1) self->DoWrite();
    });
  }

  void Close() override {
    net::post(ws_.get_executor(), [self = shared_from_this()] {
      beast::error_code ec;
      beast::get_lowest_layer(self->ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
      beast::get_lowest_layer(self->ws_).close();
    });
  }

 private:
  void DoRead() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->Closed();
      std::string text = beast::buffers_to_string(self->buffer_.data());
      self->buffer_.consume(self->buffer_.size());
      if (self->handlers_.on_message) self->handlers_.on_message(std::move(text));
      self->DoRead();
    });
  }

  void DoWrite() {
    ws_.text(true);
    ws_.async_write(net::buffer(outbox_.front()), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) {
        self->outbox_.clear();
        return;
      }
      self->outbox_.pop_front();
      if (!self->outbox_.empty()) self->DoWrite();
    });
  }

  void Closed() {
    if (closed_) return;
    closed_ = true;
    if (handlers_.on_close) handlers_.on_close();
    handlers_ = {};
  }

  websocket::stream<ClientStream> ws_;
  beast::flat_buffer buffer_;
  std::deque<std::string> outbox_;
  WebSocketHandlers handlers_;
  bool closed_ = false;
};

class HttpSession;

// Answers one request of an HttpSession; posts everything onto the session's strand.
class SessionResponder : public Responder {
 public:
  SessionResponder(std::shared_ptr<HttpSession> session, bool keep_alive, unsigned version)
      : session_(std::move(session)), keep_alive_(keep_alive), version_(version) {}
  void Send(HttpResponse response) override;
  void BeginStream(int status, std::string content_type) override;
  void WriteChunk(std::string data, std::function<void(bool)> done) override;
  void EndStream() override;

 private:
  std::shared_ptr<HttpSession> session_;
  bool keep_alive_;
  unsigned version_;
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(ClientStream stream, const Router& router,
              const std::map<std::string, WebSocketAcceptor>& websockets, const Relays& relays, size_t max_body)
      : stream_(std::move(stream)), router_(router), websockets_(websockets), relays_(relays), max_body_(max_body) {}

  void Start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->stream_.is_tls()) {
        self->Handshake();
      } else {
        self->DoRead();
      }
    });
  }

  // --- used by SessionResponder, always on the strand ---
  void WriteResponse(HttpResponse r, bool keep_alive, unsigned version) {
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(r.status), version);
    res->set(http::field::server, "determined-master");
    res->set(http::field::content_type, r.content_type);
    for (const auto& [k, v] : r.headers) res->insert(k, v);
    res->keep_alive(keep_alive);
    res->body() = std::move(r.body);
    res->prepare_payload();
    http::async_write(stream_, *res, [self = shared_from_this(), res, keep_alive](beast::error_code ec, size_t) {
      if (ec || !keep_alive) return self->Shutdown();
      self->DoRead();
    });
  }

  void WriteStreamHeader(int status, std::string content_type, unsigned version) {
    auto res = std::make_shared<http::response<http::empty_body>>(static_cast<http::status>(status), version);
    res->set(http::field::server, "determined-master");
    res->set(http::field::content_type, content_type);
    res->chunked(true);
    auto sr = std::make_shared<http::response_serializer<http::empty_body>>(*res);
    beast::get_lowest_layer(stream_).expires_never();
    http::async_write_header(stream_, *sr, [self = shared_from_this(), res, sr](beast::error_code ec, size_t) {
      if (ec) self->stream_broken_ = true;
      self->header_written_ = true;
      self->PumpChunks();
    });
  }

  void QueueChunk(std::string data, std::function<void(bool)> done, bool last) {
    chunks_.push_back({std::move(data), std::move(done), last});
    if (header_written_ && chunks_.size() == 1) PumpChunks();
  }

 private:
  struct Chunk {
    std::string data;
    std::function<void(bool)> done;
    bool last;
  };

  void PumpChunks() {
    if (chunks_.empty() || writing_chunk_) return;
    if (stream_broken_) {
      while (!chunks_.empty()) {
        Chunk c = std::move(chunks_.front());
        chunks_.pop_front();
        if (c.done) c.done(false);
        if (c.last) Shutdown();
      }
      return;
    }
    writing_chunk_ = true;
    auto chunk = std::make_shared<Chunk>(std::move(chunks_.front()));
    chunks_.pop_front();
    auto on_written = [self = shared_from_this(), chunk](beast::error_code ec, size_t) {
      self->writing_chunk_ = false;
      if (ec) self->stream_broken_ = true;
      if (chunk->done) chunk->done(!ec);
      if (chunk->last) {
        self->header_written_ = false;
        if (ec) return self->Shutdown();
        beast::get_lowest_layer(self->stream_).expires_after(kIdleTimeout);
        return self->DoRead();
      }
      self->PumpChunks();
    };
    if (chunk->last) {
      net::async_write(stream_, http::make_chunk_last(), on_written);
    } else {
      net::async_write(stream_, http::make_chunk(net::buffer(chunk->data)), on_written);
    }
  }

  // A plain-HTTP request on the HTTPS port gets a clear 400 (as Go's servers answer) instead of
  // a dropped connection; anything else goes on to the TLS handshake with the bytes already read.
  void Handshake() {
    beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
    beast::async_detect_ssl(
        beast::get_lowest_layer(stream_), buffer_, [self = shared_from_this()](beast::error_code ec, bool is_tls) {
          if (ec) {
            beast::error_code ignored;
            beast::get_lowest_layer(self->stream_).socket().close(ignored);
            return;
          }
          if (!is_tls) return self->RefusePlainHttp();
          self->TlsHandshake();
        });
  }

  void RefusePlainHttp() {
    HttpResponse r = ErrorResponse(absl::InvalidArgumentError(
        "this port serves HTTPS: the client sent a plain HTTP request; use an https:// URL"));
    auto res = std::make_shared<http::response<http::string_body>>(http::status::bad_request, 11);
    res->set(http::field::server, "determined-master");
    res->set(http::field::content_type, r.content_type);
    res->keep_alive(false);
    res->body() = std::move(r.body);
    res->prepare_payload();
    http::async_write(beast::get_lowest_layer(stream_), *res,
                      [self = shared_from_this(), res](beast::error_code, size_t) {
                        beast::error_code ignored;
                        auto& socket = beast::get_lowest_layer(self->stream_).socket();
                        socket.shutdown(tcp::socket::shutdown_send, ignored);
                        // Lets the client read the answer before the close resets the connection.
                        self->DrainAndClose();
                      });
  }

  void DrainAndClose() {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(5));
    buffer_.consume(buffer_.size());
    beast::get_lowest_layer(stream_).async_read_some(
        buffer_.prepare(4096), [self = shared_from_this()](beast::error_code ec, size_t n) {
          if (!ec) {
            self->buffer_.commit(n);
            return self->DrainAndClose();
          }
          beast::error_code ignored;
          beast::get_lowest_layer(self->stream_).socket().close(ignored);
        });
  }

  void TlsHandshake() {
    stream_.tls().async_handshake(net::ssl::stream_base::server, buffer_.data(),
                            [self = shared_from_this()](beast::error_code ec, size_t used) {
      self->buffer_.consume(used);
      if (ec) {
        // A plain-HTTP client on the HTTPS port, a client that distrusts our certificate, a
        // scanner: nothing to answer, the connection just ends.
        spdlog::debug("TLS handshake with {} failed: {}", self->PeerForLog(), ec.message());
        beast::error_code ignored;
        beast::get_lowest_layer(self->stream_).socket().close(ignored);
        return;
      }
      self->DoRead();
    });
  }

  std::string PeerForLog() {
    beast::error_code ec;
    auto ep = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
    if (ec) return "a client";
    return absl::StrCat(ep.address().to_string(), ":", ep.port());
  }

  std::string PeerAddress() {
    beast::error_code ec;
    auto ep = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
    if (ec) return "";
    boost::asio::ip::address address = ep.address();
    if (address.is_v6() && address.to_v6().is_v4_mapped()) {
      address = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6());
    }
    return address.to_string();
  }

  // The head first: a relayed request streams its body to the backend; any other is read whole.
  void DoRead() {
    head_.emplace();
    head_->header_limit(kMaxHeaderBytes);
    // The body's limit is the reader's: none for a relayed one, max_body_ for the rest (OnHeader).
    head_->body_limit(kUnlimited);
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    http::async_read_header(stream_, buffer_, *head_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->OnHeader(ec);
    });
  }

  void OnHeader(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return Shutdown();
    if (ec == http::error::header_limit) {
      HttpResponse r = ErrorResponse(absl::InvalidArgumentError(
          absl::StrCat("request header exceeds the master's limit of ", kMaxHeaderBytes >> 10, " KiB")));
      r.status = 431;
      return WriteResponse(std::move(r), false, 11);
    }
    if (ec) return Shutdown();
    HttpRequest request = ToHttpRequest(head_->get());
    request.remote_address = PeerAddress();
    if (const RelayResolver* relay = FindRelay(relays_, request.path)) return Relay(request, *relay);
    if (auto declared = head_->content_length(); declared && *declared > max_body_) {
      // Refused at once, before any of it is read.
      return WriteResponse(BodyTooLarge(), false, head_->get().version());
    }
    parser_.emplace(std::move(*head_));
    parser_->body_limit(max_body_);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this(), request = std::move(request)](
                                                     beast::error_code ec, size_t) mutable {
      self->OnRead(ec, std::move(request));
    });
  }

  HttpResponse BodyTooLarge() const {
    return ErrorResponse(absl::InvalidArgumentError(
        absl::StrCat("request body exceeds the master's limit of ", max_body_ / (1 << 20), " MiB")));
  }

  void OnRead(beast::error_code ec, HttpRequest request) {
    if (ec == http::error::body_limit) return WriteResponse(BodyTooLarge(), false, 11);
    if (ec) return Shutdown();
    http::request<http::string_body> req = parser_->release();
    request.body = std::move(req.body());
    if (websocket::is_upgrade(req)) {
      auto it = websockets_.find(request.path);
      if (it == websockets_.end()) {
        return WriteResponse(ErrorResponse(absl::NotFoundError("no websocket endpoint at " + request.path)), false,
                             req.version());
      }
      beast::get_lowest_layer(stream_).expires_never();
      auto ws = std::make_shared<WsSession>(std::move(stream_));
      absl::StatusOr<WebSocketHandlers> handlers = it->second(request, ws);
      if (!handlers.ok()) {
        spdlog::warn("websocket {} refused: {}", request.path, handlers.status().ToString());
        ws->Close();
        return;
      }
      ws->Start(std::move(req), std::move(*handlers));
      return;
    }
    auto responder =
        std::make_shared<SessionResponder>(shared_from_this(), req.keep_alive(), req.version());
    router_.Dispatch(request, responder);
  }

  // --- the relay (HttpServer::AddRelay) ---

  void Relay(const HttpRequest& request, const RelayResolver& resolve) {
    auto& req = head_->get();
    std::variant<RelayTarget, HttpResponse> decision = resolve(request);
    if (auto* answer = std::get_if<HttpResponse>(&decision)) {
      // A body left unread would be taken for the next request: the connection closes instead.
      bool has_body = req.chunked() || (req.has_content_length() && req[http::field::content_length] != "0");
      return WriteResponse(std::move(*answer), req.keep_alive() && !has_body, req.version());
    }
    target_ = std::get<RelayTarget>(std::move(decision));
    upgrade_ = websocket::is_upgrade(req);
    if (target_.tcp_over_websocket && !upgrade_) {
      return WriteResponse(ErrorResponse(absl::InvalidArgumentError(absl::StrCat(
                               target_.name, " is a TCP service: connect with a WebSocket (det shell, det tunnel)"))),
                           false, req.version());
    }
    client_keep_alive_ = req.keep_alive();
    head_only_ = req.method() == http::verb::head;
    SetForwardingHeaders(req, request.remote_address);
    backend_.emplace(stream_.get_executor());
    backend_->expires_after(kBackendConnectTimeout);
    beast::error_code bad_address;
    net::ip::address address = net::ip::make_address(target_.host, bad_address);
    auto connected = [self = shared_from_this()](beast::error_code ec) { self->OnBackendConnected(ec); };
    if (!bad_address) {
      backend_->async_connect(tcp::endpoint(address, static_cast<unsigned short>(target_.port)), connected);
      return;
    }
    auto resolver = std::make_shared<tcp::resolver>(stream_.get_executor());
    resolver->async_resolve(target_.host, std::to_string(target_.port),
                            [self = shared_from_this(), resolver, connected](beast::error_code ec,
                                                                            tcp::resolver::results_type results) {
                              if (ec) return self->OnBackendConnected(ec);
                              self->backend_->async_connect(
                                  results, [connected](beast::error_code ec, const tcp::endpoint&) { connected(ec); });
                            });
  }

  void SetForwardingHeaders(http::request<http::empty_body>& req, const std::string& peer) {
    std::string forwarded_for(req["X-Forwarded-For"]);
    req.set("X-Forwarded-For", forwarded_for.empty() ? peer : absl::StrCat(forwarded_for, ", ", peer));
    req.set("X-Real-IP", peer);
    req.set("X-Forwarded-Proto", stream_.is_tls() ? (upgrade_ ? "wss" : "https") : (upgrade_ ? "ws" : "http"));
    if (req.find(http::field::host) != req.end()) req.set("X-Forwarded-Host", req[http::field::host]);
    if (req.find(http::field::cookie) != req.end()) {
      std::string cookies = WithoutAuthCookie(std::string(req[http::field::cookie]));
      if (cookies.empty()) {
        req.erase(http::field::cookie);
      } else {
        req.set(http::field::cookie, cookies);
      }
    }
    for (const std::string& name : target_.remove_headers) req.erase(name);
    for (const auto& [name, value] : target_.set_headers) req.set(name, value);
    // One backend connection per request; the client's connection lives on.
    if (!upgrade_) req.keep_alive(false);
  }

  HttpResponse BadGateway(const std::string& what) {
    HttpResponse r = ErrorResponse(absl::UnavailableError(absl::StrCat(target_.name, " at ", target_.host, ":",
                                                                       target_.port, " ", what)));
    r.status = 502;
    return r;
  }

  void OnBackendConnected(beast::error_code ec) {
    unsigned version = head_->get().version();
    if (ec) {
      backend_.reset();
      return WriteResponse(BadGateway(absl::StrCat("is not reachable: ", ec.message())), false, version);
    }
    backend_->socket().set_option(tcp::no_delay(true), ec);
    if (target_.tcp_over_websocket) {
      auto bridge = std::make_shared<relay::WebSocketTcpBridge>(std::move(stream_), std::move(*backend_));
      bridge->Start(head_->get());
      return;
    }
    // Beast reads as much as the buffer has room for (at least 512 bytes): without room, a body streams
    // through in 512-byte reads (a 1 GiB download ran at a tenth of the direct speed).
    buffer_.reserve(relay::kChunkBytes);
    backend_buffer_.reserve(relay::kChunkBytes);
    chunk_.resize(relay::kChunkBytes);
    relay_request_.emplace(std::move(*head_));
    relay_request_->body_limit(kUnlimited);
    request_writer_.emplace(relay_request_->get());
    backend_->expires_after(kIdleTimeout);
    http::async_write_header(*backend_, *request_writer_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->RelayFailed(self->BadGateway(absl::StrCat("broke off: ", ec.message())));
      self->RelayRequestBody();
    });
  }

  // How a body's relay ends: `done`, or `failed` with the error and whether it came from reading.
  struct BodyRelay {
    std::function<void()> done;
    std::function<void(beast::error_code ec, bool reading)> failed;
  };

  // Streams a message body from `in` (parsed by `parser`) to `out` (written by `writer`, whose head is
  // out already) a piece at a time: Beast's relay pattern.
  template <class In, class Parser, class Out, class Writer>
  void RelayBody(In& in, beast::flat_buffer& buffer, Parser& parser, Out& out, Writer& writer, BodyRelay relay) {
    ReadPiece(in, buffer, parser, out, writer, std::make_shared<BodyRelay>(std::move(relay)));
  }

  template <class In, class Parser, class Out, class Writer>
  void ReadPiece(In& in, beast::flat_buffer& buffer, Parser& parser, Out& out, Writer& writer,
                 std::shared_ptr<BodyRelay> relay) {
    auto& body = parser.get().body();
    if (parser.is_done()) {
      body.data = nullptr;
      body.size = 0;
      body.more = false;
      return WritePiece(in, buffer, parser, out, writer, std::move(relay));
    }
    body.data = chunk_.data();
    body.size = chunk_.size();
    beast::get_lowest_layer(in).expires_after(kIdleTimeout);
    http::async_read(in, buffer, parser, [self = shared_from_this(), &in, &buffer, &parser, &out, &writer, relay](
                                             beast::error_code ec, size_t) {
      if (ec == http::error::need_buffer) ec = {};
      if (ec) return relay->failed(ec, true);
      auto& body = parser.get().body();
      body.size = self->chunk_.size() - body.size;
      body.data = self->chunk_.data();
      body.more = !parser.is_done();
      self->WritePiece(in, buffer, parser, out, writer, relay);
    });
  }

  template <class In, class Parser, class Out, class Writer>
  void WritePiece(In& in, beast::flat_buffer& buffer, Parser& parser, Out& out, Writer& writer,
                  std::shared_ptr<BodyRelay> relay) {
    beast::get_lowest_layer(out).expires_after(kIdleTimeout);
    http::async_write(out, writer, [self = shared_from_this(), &in, &buffer, &parser, &out, &writer, relay](
                                       beast::error_code ec, size_t) {
      if (ec == http::error::need_buffer) ec = {};
      if (ec) return relay->failed(ec, false);
      if (!parser.is_done() && !writer.is_done()) return self->ReadPiece(in, buffer, parser, out, writer, relay);
      relay->done();
    });
  }

  void RelayRequestBody() {
    auto self = shared_from_this();
    RelayBody(stream_, buffer_, *relay_request_, *backend_, *request_writer_,
              {.done = [self] { self->ReadResponseHead(); },
               .failed = [self](beast::error_code ec, bool reading) {
                 // The client went away mid-request, or the backend did.
                 if (reading) return self->EndRelay();
                 self->RelayFailed(self->BadGateway(absl::StrCat("broke off: ", ec.message())));
               }});
  }

  void ReadResponseHead() {
    relay_response_.emplace();
    relay_response_->header_limit(kMaxHeaderBytes);
    relay_response_->body_limit(kUnlimited);
    if (head_only_) relay_response_->skip(true);
    backend_->expires_after(kIdleTimeout);
    http::async_read_header(*backend_, backend_buffer_, *relay_response_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->RelayFailed(self->BadGateway(absl::StrCat("gave no answer: ", ec.message())));
                              self->OnResponseHead();
                            });
  }

  void OnResponseHead() {
    auto& res = relay_response_->get();
    response_started_ = true;
    if (upgrade_ && res.result() == http::status::switching_protocols) {
      response_head_writer_.emplace(res);
      beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
      return http::async_write_header(stream_, *response_head_writer_,
                                      [self = shared_from_this()](beast::error_code ec, size_t) {
                                        if (ec) return self->EndRelay();
                                        self->StartPipe();
                                      });
    }
    const int status = res.result_int();
    const bool bodiless = head_only_ || status / 100 == 1 || status == 204 || status == 304;
    res.keep_alive(client_keep_alive_ && !upgrade_);
    // A body that ends when the backend closes is chunked for a client that keeps its connection.
    if (!bodiless && !res.chunked() && !res.has_content_length() && res.keep_alive()) res.chunked(true);
    response_writer_.emplace(res);
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    http::async_write_header(stream_, *response_writer_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->EndRelay();
      self->RelayResponseBody();
    });
  }

  void RelayResponseBody() {
    auto self = shared_from_this();
    RelayBody(*backend_, backend_buffer_, *relay_response_, stream_, *response_writer_,
              {.done =
                   [self] {
                     const bool keep_alive = self->relay_response_->get().keep_alive();
                     self->FinishRelay();
                     if (!keep_alive) return self->Shutdown();
                     self->DoRead();
                   },
               // The head is out: the client cannot be told, the connection ends.
               .failed = [self](beast::error_code, bool) { self->EndRelay(); }});
  }

  // After the backend's 101: bytes both ways, with what either side already sent.
  void StartPipe() {
    std::string to_backend = beast::buffers_to_string(buffer_.data());
    std::string to_client = beast::buffers_to_string(backend_buffer_.data());
    auto pipe = std::make_shared<relay::BytePipe>(std::move(stream_), std::move(*backend_),
                                                          std::move(to_backend), std::move(to_client));
    FinishRelay();
    pipe->Start();
  }

  // The backend failed: an answer when none has started, else the connection ends.
  void RelayFailed(HttpResponse answer) {
    if (response_started_) return EndRelay();
    FinishRelay();
    WriteResponse(std::move(answer), false, 11);
  }

  void EndRelay() {
    FinishRelay();
    relay::CloseLowest(stream_);
  }

  void FinishRelay() {
    if (backend_) {
      beast::error_code ignored;
      backend_->socket().shutdown(tcp::socket::shutdown_both, ignored);
      backend_->close();
    }
    backend_.reset();
    response_writer_.reset();
    response_head_writer_.reset();
    relay_response_.reset();
    request_writer_.reset();
    relay_request_.reset();
    backend_buffer_.consume(backend_buffer_.size());
    response_started_ = false;
  }

  void Shutdown() {
    if (stream_.is_tls()) {
      // close_notify, then the socket; a peer that never answers is cut off by the timeout.
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(5));
      stream_.tls().async_shutdown([self = shared_from_this()](beast::error_code) {
        beast::error_code ignored;
        beast::get_lowest_layer(self->stream_).socket().close(ignored);
      });
    } else {
      beast::error_code ec;
      beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_send, ec);
    }
  }

  ClientStream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> head_;
  std::optional<http::request_parser<http::string_body>> parser_;
  const Router& router_;
  const std::map<std::string, WebSocketAcceptor>& websockets_;
  const Relays& relays_;
  size_t max_body_;
  // The relay's state, for the one request being relayed.
  RelayTarget target_;
  bool upgrade_ = false;
  bool client_keep_alive_ = false;
  bool head_only_ = false;
  bool response_started_ = false;
  std::optional<beast::tcp_stream> backend_;
  beast::flat_buffer backend_buffer_;
  std::optional<http::request_parser<http::buffer_body>> relay_request_;
  std::optional<http::request_serializer<http::buffer_body>> request_writer_;
  std::optional<http::response_parser<http::buffer_body>> relay_response_;
  std::optional<http::response_serializer<http::buffer_body>> response_writer_;
  std::optional<http::response_serializer<http::buffer_body>> response_head_writer_;
  std::vector<char> chunk_;  // relay::kChunkBytes once the session relays
  std::deque<Chunk> chunks_;
  bool header_written_ = false;
  bool writing_chunk_ = false;
  bool stream_broken_ = false;

  friend class SessionResponder;
};

void SessionResponder::Send(HttpResponse response) {
  net::post(session_->stream_.get_executor(),
            [s = session_, r = std::move(response), ka = keep_alive_, v = version_]() mutable {
              s->WriteResponse(std::move(r), ka, v);
            });
}

void SessionResponder::BeginStream(int status, std::string content_type) {
  net::post(session_->stream_.get_executor(), [s = session_, status, ct = std::move(content_type), v = version_]() mutable {
    s->WriteStreamHeader(status, std::move(ct), v);
  });
}

void SessionResponder::WriteChunk(std::string data, std::function<void(bool)> done) {
  net::post(session_->stream_.get_executor(), [s = session_, d = std::move(data), done = std::move(done)]() mutable {
    s->QueueChunk(std::move(d), std::move(done), false);
  });
}

void SessionResponder::EndStream() {
  net::post(session_->stream_.get_executor(), [s = session_] { s->QueueChunk("", nullptr, true); });
}

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(net::io_context& io, const Router& router, size_t max_body)
      : io(io), acceptor(net::make_strand(io)), router(router), max_body(max_body) {}

  void Accept() {
    acceptor.async_accept(net::make_strand(io), [self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors (or a like failure): wait a moment instead of spinning on it.
        auto timer = std::make_shared<net::steady_timer>(self->acceptor.get_executor(), std::chrono::milliseconds(50));
        timer->async_wait([self, timer](beast::error_code) { self->Accept(); });
        return;
      }
      self->StartSession(std::move(socket));
      self->AcceptQueued();
      self->Accept();
    });
  }

  // Under load the io_context's queue is long, and one accept per trip through it leaves new
  // clients waiting for seconds: take every connection already queued in the kernel at once.
  void AcceptQueued() {
    for (int i = 0; i < 1024; ++i) {
      tcp::socket socket(net::make_strand(io));
      beast::error_code ec;
      acceptor.accept(socket, ec);  // the acceptor is non-blocking: would_block when none is left
      if (ec) return;
      StartSession(std::move(socket));
    }
  }

  void StartSession(tcp::socket socket) {
    // Small messages (agent commands, long-poll answers) go out at once, not after Nagle's wait for
    // the peer's delayed ACK (up to 40 ms a round trip).
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    ClientStream stream = tls ? ClientStream(TlsStream(std::move(socket), *tls))
                              : ClientStream(beast::tcp_stream(std::move(socket)));
    std::make_shared<HttpSession>(std::move(stream), router, websockets, relays, max_body)->Start();
  }

  net::io_context& io;
  tcp::acceptor acceptor;
  std::shared_ptr<net::ssl::context> tls;  // null: plain HTTP
  const Router& router;
  size_t max_body;
  std::map<std::string, WebSocketAcceptor> websockets;
  Relays relays;
};

HttpServer::HttpServer(net::io_context& io, const Router& router, size_t max_body_bytes)
    : impl_(std::make_shared<Impl>(io, router, max_body_bytes)) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::AddWebSocket(std::string path, WebSocketAcceptor acceptor) {
  impl_->websockets[std::move(path)] = std::move(acceptor);
}

void HttpServer::AddRelay(std::string prefix, RelayResolver resolver) {
  impl_->relays.emplace_back(std::move(prefix), std::move(resolver));
}

absl::Status HttpServer::EnableTls(const std::string& cert_file, const std::string& key_file) {
  absl::StatusOr<std::shared_ptr<net::ssl::context>> context = MakeServerTlsContext(cert_file, key_file);
  if (!context.ok()) return context.status();
  impl_->tls = *std::move(context);
  return absl::OkStatus();
}

bool HttpServer::tls_enabled() const { return impl_->tls != nullptr; }

absl::StatusOr<int> HttpServer::Listen(const std::string& host, int port) {
  beast::error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("bad listen address \"", host, "\": ", ec.message()));
  tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  auto& acc = impl_->acceptor;
  acc.open(endpoint.protocol(), ec);
  if (!ec) acc.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(endpoint, ec);
  if (!ec) acc.listen(net::socket_base::max_listen_connections, ec);
  if (!ec) acc.non_blocking(true, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port, ": ", ec.message()));
  impl_->Accept();
  return static_cast<int>(acc.local_endpoint().port());
}

void HttpServer::Stop() {
  net::post(impl_->acceptor.get_executor(), [impl = impl_] {
    beast::error_code ec;
    impl->acceptor.close(ec);
  });
}

}  // namespace det::master
