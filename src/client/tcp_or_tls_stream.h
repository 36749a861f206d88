#pragma once
// A TCP connection, plain or TLS over TCP, as one stream type. Beast's HTTP and WebSocket code is then
// compiled once, for this type, instead of once for each kind of connection (the master's HTTP server,
// the agent's link to the master, the CLI's tunnel; docs/decisions.md, "CI time, again"). A read or
// write goes through a plain function with its handler type-erased: two small allocations an operation.
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>  // Boost 1.74 asio uses std::exchange without including it
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket/teardown.hpp>

namespace det::client {

class TcpOrTlsStream {
 public:
  using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
  using executor_type = boost::beast::tcp_stream::executor_type;

  explicit TcpOrTlsStream(boost::beast::tcp_stream plain) : plain_(std::move(plain)) {}
  explicit TcpOrTlsStream(TlsStream tls) : tls_(std::make_unique<TlsStream>(std::move(tls))) {}

  bool is_tls() const { return tls_ != nullptr; }
  // The TLS layer (only when is_tls()): its handshake and shutdown.
  TlsStream& tls() { return *tls_; }
  // The TCP stream under it (timeouts, the socket); beast::get_lowest_layer finds it here.
  boost::beast::tcp_stream& next_layer() { return tls_ ? tls_->next_layer() : *plain_; }
  executor_type get_executor() { return next_layer().get_executor(); }

  template <class MutableBuffers, class Handler>
  auto async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    return boost::asio::async_initiate<Handler, void(boost::beast::error_code, size_t)>(
        [this](auto h, const MutableBuffers& b) {
          ReadSome(std::vector<boost::asio::mutable_buffer>(boost::asio::buffer_sequence_begin(b),
                                                            boost::asio::buffer_sequence_end(b)),
                   Erase(std::move(h)));
        },
        handler, buffers);
  }

  template <class ConstBuffers, class Handler>
  auto async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    return boost::asio::async_initiate<Handler, void(boost::beast::error_code, size_t)>(
        [this](auto h, const ConstBuffers& b) {
          WriteSome(std::vector<boost::asio::const_buffer>(boost::asio::buffer_sequence_begin(b),
                                                           boost::asio::buffer_sequence_end(b)),
                    Erase(std::move(h)));
        },
        handler, buffers);
  }

 private:
  using Done = std::function<void(boost::beast::error_code, size_t)>;

  // std::function needs a copyable callable; Asio's handlers are move-only. The handler runs on the
  // stream's executor, where the underlying operation completes.
  template <class Handler>
  static Done Erase(Handler handler) {
    return [h = std::make_shared<Handler>(std::move(handler))](boost::beast::error_code ec, size_t n) {
      (*h)(ec, n);
    };
  }
  void ReadSome(std::vector<boost::asio::mutable_buffer> buffers, Done done);
  void WriteSome(std::vector<boost::asio::const_buffer> buffers, Done done);

  std::optional<boost::beast::tcp_stream> plain_;
  std::unique_ptr<TlsStream> tls_;
};

// A WebSocket over a TcpOrTlsStream closes as its layer does (Beast finds these through ADL).
void teardown(boost::beast::role_type role, TcpOrTlsStream& stream, boost::beast::error_code& ec);
void AsyncTeardown(boost::beast::role_type role, TcpOrTlsStream& stream,
                   std::function<void(boost::beast::error_code)> done);
template <class Handler>
void async_teardown(boost::beast::role_type role, TcpOrTlsStream& stream, Handler&& handler) {
  AsyncTeardown(role, stream, [h = std::make_shared<std::decay_t<Handler>>(std::forward<Handler>(handler))](
                                  boost::beast::error_code ec) { (*h)(ec); });
}

}  // namespace det::client
