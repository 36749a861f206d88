// MasterLink over wss:// against a blocking TLS websocket server with a certificate made by the
// `openssl` binary: verification against master_cert, the master_cert_name override, rejection.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>  // Boost 1.74 asio uses std::exchange without including it

#include "absl/strings/str_cat.h"
#include "agent/master_link.h"

namespace det::agent {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace fs = std::filesystem;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

class TlsFakeMaster {
 public:
  // A certificate for DNS:master.internal only, so dialing 127.0.0.1 needs the name override.
  TlsFakeMaster()
      : dir_(fs::temp_directory_path() / absl::StrCat("det-link-tls-", ::getpid())),
        ctx_(ssl::context::tls_server),
        acceptor_(ioc_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    fs::create_directories(dir_);
    std::string cmd = absl::StrCat(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=master.internal -addext "
        "subjectAltName=DNS:master.internal -keyout ",
        (dir_ / "m.key").string(), " -out ", cert(), " >/dev/null 2>&1");
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    ctx_.use_certificate_chain_file(cert());
    ctx_.use_private_key_file((dir_ / "m.key").string(), ssl::context::pem);
  }
  ~TlsFakeMaster() { fs::remove_all(dir_); }

  std::string cert() const { return (dir_ / "m.crt").string(); }
  int port() const { return acceptor_.local_endpoint().port(); }

  // Accepts one connection; returns the first websocket message, or "" when the client gave up
  // during the TLS handshake (it did not trust us).
  std::string AcceptAndReadHello() {
    websocket_t ws(acceptor_.accept(), ctx_);
    beast::error_code ec;
    ws.next_layer().handshake(ssl::stream_base::server, ec);
    if (ec) return "";
    ws.accept(ec);
    if (ec) return "";
    beast::flat_buffer buffer;
    ws.read(buffer, ec);
    if (ec) return "";
    std::string hello = beast::buffers_to_string(buffer.data());
    ws.close(beast::websocket::close_code::normal, ec);
    return hello;
  }

 private:
  using websocket_t = beast::websocket::stream<ssl::stream<tcp::socket>>;
  fs::path dir_;
  asio::io_context ioc_;
  ssl::context ctx_;
  tcp::acceptor acceptor_;
};

MasterLink::Options LinkOptions(const TlsFakeMaster& master) {
  MasterLink::Options o;
  o.host = "127.0.0.1";
  o.port = master.port();
  o.target = "/agents?id=a1";
  o.tls = true;
  o.ca_file = master.cert();
  o.initial_backoff = 50ms;
  o.max_backoff = 200ms;
  return o;
}

TEST(MasterLinkTlsTest, ConnectsOverWssWithTheCertNameOverride) {
  TlsFakeMaster master;
  MasterLink::Options options = LinkOptions(master);
  options.cert_name = "master.internal";
  MasterLink link(options);
  link.Start({.hello = [] { return std::string("hello-a1"); }, .on_message = nullptr});
  EXPECT_EQ(master.AcceptAndReadHello(), "hello-a1");
  link.Stop();
}

TEST(MasterLinkTlsTest, RefusesACertificateForAnotherName) {
  TlsFakeMaster master;
  MasterLink link(LinkOptions(master));  // verifies 127.0.0.1, the cert names master.internal
  link.Start({.hello = [] { return std::string("hello-a1"); }, .on_message = nullptr});
  EXPECT_EQ(master.AcceptAndReadHello(), "");
  EXPECT_FALSE(link.connected());
  link.Stop();
}

TEST(MasterLinkTlsTest, SkipVerifyAcceptsAnyCertificate) {
  TlsFakeMaster master;
  MasterLink::Options options = LinkOptions(master);
  options.ca_file.clear();
  options.skip_verify = true;
  MasterLink link(options);
  link.Start({.hello = [] { return std::string("hello-a1"); }, .on_message = nullptr});
  EXPECT_EQ(master.AcceptAndReadHello(), "hello-a1");
  link.Stop();
}

}  // namespace
}  // namespace det::agent
