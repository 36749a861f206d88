#include "client/tcp_or_tls_stream.h"

#include <boost/beast/websocket/ssl.hpp>

namespace det::client {

namespace beast = boost::beast;

void TcpOrTlsStream::ReadSome(std::vector<boost::asio::mutable_buffer> buffers, Done done) {
  if (tls_) return tls_->async_read_some(buffers, std::move(done));
  plain_->async_read_some(buffers, std::move(done));
}

void TcpOrTlsStream::WriteSome(std::vector<boost::asio::const_buffer> buffers, Done done) {
  if (tls_) return tls_->async_write_some(buffers, std::move(done));
  plain_->async_write_some(buffers, std::move(done));
}

void teardown(beast::role_type role, TcpOrTlsStream& stream, beast::error_code& ec) {
  using beast::websocket::teardown;
  if (stream.is_tls()) return teardown(role, stream.tls(), ec);
  teardown(role, stream.next_layer().socket(), ec);
}

void AsyncTeardown(beast::role_type role, TcpOrTlsStream& stream, std::function<void(beast::error_code)> done) {
  using beast::websocket::async_teardown;
  if (stream.is_tls()) return async_teardown(role, stream.tls(), std::move(done));
  async_teardown(role, stream.next_layer().socket(), std::move(done));
}

}  // namespace det::client
