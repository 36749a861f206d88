#pragma once
// The byte-level halves of the relay (the proxy), for server.cc only: Beast is heavy.
//   BytePipe             copies bytes both ways between the client and a backend (a WebSocket after
//                        the backend's 101: the frames pass through untouched).
//   WebSocketTcpBridge   the client speaks WebSocket, the backend raw TCP: each binary (or text)
//                        message goes to the backend as bytes; backend bytes go back as binary
//                        messages (upstream's TCP-over-WebSocket tunnel).
// Both end, closing both sides, when either side ends; a backend's end reaches the client as an
// orderly close (close_notify over TLS; the bridge's close frame). Neither has an idle timeout (a shell
// or a kernel connection may rightly be quiet for hours); the bridge pings its client to notice one
// that vanished.
#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include "client/tcp_or_tls_stream.h"

namespace det::master::relay {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

// A client's connection to the master.
using ClientStream = client::TcpOrTlsStream;

// A relayed HTTP body moves in pieces of this size (larger pieces: fewer trips through the event loop for
// a big download); the byte pipes (WebSockets, shells) carry interactive traffic in smaller ones.
inline constexpr size_t kChunkBytes = 256 << 10;
inline constexpr size_t kPipeBytes = 64 << 10;
// How long a TLS client is given to answer the relay's close_notify.
inline constexpr std::chrono::seconds kCloseNotifyWait{5};

// Closes the TCP connection under any stream (plain, TLS, WebSocket).
template <class Stream>
void CloseLowest(Stream& s) {
  beast::error_code ignored;
  beast::get_lowest_layer(s).socket().shutdown(tcp::socket::shutdown_both, ignored);
  beast::get_lowest_layer(s).close();
}

class BytePipe : public std::enable_shared_from_this<BytePipe> {
 public:
  // `to_backend` / `to_client`: bytes already read from one side that the other has not seen yet.
  BytePipe(ClientStream client, beast::tcp_stream backend, std::string to_backend, std::string to_client)
      : client_(std::move(client)), backend_(std::move(backend)) {
    pending_[0] = std::move(to_backend);
    pending_[1] = std::move(to_client);
  }

  void Start() {
    beast::get_lowest_layer(client_).expires_never();
    backend_.expires_never();
    auto self = shared_from_this();
    Flush(backend_, pending_[0], [self] { self->Copy(self->client_, self->backend_, self->up_); });
    Flush(client_, pending_[1], [self] { self->Copy(self->backend_, self->client_, self->down_); });
  }

 private:
  template <class Out, class Next>
  void Flush(Out& out, std::string& data, Next next) {
    if (data.empty()) return next();
    net::async_write(out, net::buffer(data), [self = shared_from_this(), next](beast::error_code ec, size_t) {
      if (ec) return self->End();
      next();
    });
  }

  template <class In, class Out>
  void Copy(In& in, Out& out, std::array<char, kPipeBytes>& buf) {
    in.async_read_some(net::buffer(buf), [self = shared_from_this(), &in, &out, &buf](beast::error_code ec,
                                                                                             size_t n) {
      if (ec) return self->End();
      net::async_write(out, net::buffer(buf.data(), n), [self, &in, &out, &buf](beast::error_code ec, size_t) {
        if (ec) return self->End();
        self->Copy(in, out, buf);
      });
    });
  }

  // Closes both sides. A TLS client is sent close_notify first, so that its own close (a WebSocket's
  // close handshake) completes instead of finding the stream truncated; its pending read is cancelled
  // first, as a TLS stream reads for one operation at a time.
  void End() {
    if (ended_) return;
    ended_ = true;
    CloseLowest(backend_);
    if (!client_.is_tls()) return CloseLowest(client_);
    beast::error_code ignored;
    beast::get_lowest_layer(client_).socket().cancel(ignored);
    beast::get_lowest_layer(client_).expires_after(kCloseNotifyWait);
    net::post(client_.get_executor(), [self = shared_from_this()] {
      self->client_.tls().async_shutdown([self](beast::error_code) { CloseLowest(self->client_); });
    });
  }

  ClientStream client_;
  beast::tcp_stream backend_;
  std::string pending_[2];
  std::array<char, kPipeBytes> up_{};
  std::array<char, kPipeBytes> down_{};
  bool ended_ = false;
};

class WebSocketTcpBridge : public std::enable_shared_from_this<WebSocketTcpBridge> {
 public:
  WebSocketTcpBridge(ClientStream client, beast::tcp_stream backend)
      : ws_(std::move(client)), backend_(std::move(backend)) {}

  // Answers the client's upgrade request, then relays.
  template <class Request>
  void Start(const Request& upgrade) {
    beast::get_lowest_layer(ws_).expires_never();
    backend_.expires_never();
    // A ping after a minute of silence; no answer within the next minute ends the tunnel.
    ws_.set_option(websocket::stream_base::timeout{std::chrono::seconds(30), std::chrono::seconds(120), true});
    ws_.binary(true);
    ws_.async_accept(upgrade, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->End();
      self->ReadClient();
      self->ReadBackend();
    });
  }

 private:
  void ReadClient() {
    ws_.async_read(from_client_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->End();
      net::async_write(self->backend_, self->from_client_.data(), [self](beast::error_code ec, size_t) {
        if (ec) return self->End();
        self->from_client_.consume(self->from_client_.size());
        self->ReadClient();
      });
    });
  }

  void ReadBackend() {
    backend_.async_read_some(net::buffer(from_backend_), [self = shared_from_this()](beast::error_code ec,
                                                                                          size_t n) {
      if (ec) return self->CloseClient();
      self->ws_.async_write(net::buffer(self->from_backend_.data(), n), [self](beast::error_code ec, size_t) {
        if (ec) return self->End();
        self->ReadBackend();
      });
    });
  }

  // The backend ended: the client gets a close frame (and, over TLS, close_notify), so that it can tell
  // the end of the service from a dropped connection. The client's pending read ends with the close
  // handshake.
  void CloseClient() {
    if (ended_) return;
    ended_ = true;
    CloseLowest(backend_);
    ws_.async_close(websocket::close_code::normal,
                    [self = shared_from_this()](beast::error_code) { CloseLowest(self->ws_); });
  }

  void End() {
    if (ended_) return;
    ended_ = true;
    CloseLowest(ws_);
    CloseLowest(backend_);
  }

  websocket::stream<ClientStream> ws_;
  beast::tcp_stream backend_;
  beast::flat_buffer from_client_;
  std::array<char, kPipeBytes> from_backend_{};
  bool ended_ = false;
};

}  // namespace det::master::relay
