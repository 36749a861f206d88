// The master's HTTPS/WSS server against real clients: the libcurl RestClient (det, agent, harness)
// and a Beast websocket client, with certificates made by the `openssl` binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>  // Boost 1.74 asio uses std::exchange without including it

#include "absl/strings/str_cat.h"
#include "client/rest_client.h"
#include "master/http/router.h"
#include "master/http/server.h"

namespace det::master {
namespace {

namespace fs = std::filesystem;
namespace net = boost::asio;

class AnyoneAuthenticator : public Authenticator {
 public:
  absl::StatusOr<Principal> Authenticate(const HttpRequest&) override {
    return absl::UnauthenticatedError("no users here");
  }
};

// A self-signed certificate + key for `san` ("DNS:localhost,IP:127.0.0.1") in `dir`.
void MakeCert(const fs::path& dir, const std::string& name, const std::string& san) {
  std::string cmd =
      absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=", name,
                   " -addext subjectAltName=", san, " -keyout ", (dir / (name + ".key")).string(),
                   " -out ", (dir / (name + ".crt")).string(), " >/dev/null 2>&1");
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

class TlsServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / absl::StrCat("det-tls-test-", ::getpid()));
    fs::create_directories(*dir_);
    MakeCert(*dir_, "local", "DNS:localhost,IP:127.0.0.1");
    MakeCert(*dir_, "named", "DNS:master.internal");
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }

  void SetUp() override {
    router_.Add("GET", "/api/v1/ping", Access::kPublic, [](HttpRequest&, ResponderPtr r) {
      r->Send(JsonResponse(200, R"({"pong":true})"));
    });
    router_.Add("GET", "/api/v1/stream", Access::kPublic, [](HttpRequest&, ResponderPtr r) {
      r->BeginStream(200, "application/x-ndjson");
      for (int i = 1; i <= 3; ++i)
        r->WriteChunk(absl::StrCat(R"({"result":{"n":)", i, "}}\n"), nullptr);
      r->EndStream();
    });
    server_.AddWebSocket(
        "/echo",
        [](const HttpRequest&,
           std::shared_ptr<WebSocketConnection> conn) -> absl::StatusOr<WebSocketHandlers> {
          std::weak_ptr<WebSocketConnection> weak = conn;
          return WebSocketHandlers{.on_message = [weak](std::string text) {
            if (auto c = weak.lock()) c->Send("echo:" + text);
          }};
        });
  }

  void Serve(const std::string& cert_name) {
    ASSERT_TRUE(server_.EnableTls(Cert(cert_name), Key(cert_name)).ok());
    absl::StatusOr<int> port = server_.Listen("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }

  void TearDown() override {
    server_.Stop();
    work_.reset();
    io_.stop();
    for (auto& t : threads_) t.join();
  }

  static std::string Cert(const std::string& name) { return (*dir_ / (name + ".crt")).string(); }
  static std::string Key(const std::string& name) { return (*dir_ / (name + ".key")).string(); }
  std::string Url(const std::string& scheme = "https") const {
    return absl::StrCat(scheme, "://127.0.0.1:", port_);
  }

  // A WSS client of this server at `path`, trusting its certificate, that has sent `message` and read
  // one message back into `reply`.
  struct WssClient {
    net::io_context io;
    net::ssl::context ctx{net::ssl::context::tls_client};
    boost::beast::websocket::stream<boost::beast::ssl_stream<boost::beast::tcp_stream>> ws{io, ctx};
    std::string reply;
  };
  std::unique_ptr<WssClient> ExchangeOverWss(const std::string& path, const std::string& message) {
    namespace beast = boost::beast;
    auto client = std::make_unique<WssClient>();
    client->ctx.load_verify_file(Cert("local"));
    client->ctx.set_verify_mode(net::ssl::verify_peer);
    auto& ws = client->ws;
    beast::get_lowest_layer(ws).connect(
        net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)));
    beast::get_lowest_layer(ws).expires_after(std::chrono::seconds(10));
    ws.next_layer().handshake(net::ssl::stream_base::client);
    ws.handshake(absl::StrCat("127.0.0.1:", port_), path);
    ws.write(net::buffer(message));
    beast::flat_buffer buffer;
    ws.read(buffer);
    client->reply = beast::buffers_to_string(buffer.data());
    return client;
  }

  static fs::path* dir_;
  net::io_context io_;
  net::executor_work_guard<net::io_context::executor_type> work_ = net::make_work_guard(io_);
  AnyoneAuthenticator auth_;
  Router router_{auth_};
  HttpServer server_{io_, router_, 1 << 20};
  int port_ = 0;
  std::vector<std::thread> threads_;
};

fs::path* TlsServerTest::dir_ = nullptr;

TEST_F(TlsServerTest, ServesRequestsAndStreamsToAClientThatTrustsTheCertificate) {
  Serve("local");
  client::RestClient client(Url(), {}, {.ca_file = Cert("local")});
  absl::StatusOr<nlohmann::json> pong = client.Get("/api/v1/ping");
  ASSERT_TRUE(pong.ok()) << pong.status();
  EXPECT_EQ((*pong)["pong"], true);
  std::vector<int> seen;
  absl::Status st = client.Stream("/api/v1/stream", [&](const nlohmann::json& r) {
    seen.push_back(r["n"].get<int>());
    return true;
  });
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  // Keep-alive after a stream: the same connection answers again.
  EXPECT_TRUE(client.Get("/api/v1/ping").ok());
}

TEST_F(TlsServerTest, UnknownCertificateIsAClearErrorAndNoverifySkipsTheCheck) {
  Serve("local");
  client::RestClient strict(Url(), {}, client::TlsOptions{});
  absl::StatusOr<nlohmann::json> r = strict.Get("/api/v1/ping");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_NE(r.status().message().find("DET_MASTER_CERT_FILE"), absl::string_view::npos)
      << r.status();

  client::RestClient lax(Url(), {}, {.no_verify = true});
  EXPECT_TRUE(lax.Get("/api/v1/ping").ok());
}

TEST_F(TlsServerTest, PlainHttpToTheTlsPortFails) {
  Serve("local");
  client::RestClient plain(Url("http"), {}, {});
  absl::StatusOr<nlohmann::json> r = plain.Get("/api/v1/ping");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_NE(r.status().message().find("use an https:// URL"), absl::string_view::npos)
      << r.status();
  // The server is still fine afterwards.
  client::RestClient good(Url(), {}, {.ca_file = Cert("local")});
  EXPECT_TRUE(good.Get("/api/v1/ping").ok());
}

TEST_F(TlsServerTest, CertNameOverridesTheHostInVerification) {
  Serve("named");  // names master.internal only; we dial 127.0.0.1
  client::RestClient by_host(Url(), {}, {.ca_file = Cert("named")});
  EXPECT_EQ(by_host.Get("/api/v1/ping").status().code(), absl::StatusCode::kFailedPrecondition);
  client::RestClient by_name(Url(), {}, {.ca_file = Cert("named"), .cert_name = "master.internal"});
  absl::StatusOr<nlohmann::json> r = by_name.Get("/api/v1/ping");
  EXPECT_TRUE(r.ok()) << r.status();
  client::RestClient wrong(Url(), {}, {.ca_file = Cert("named"), .cert_name = "other.internal"});
  EXPECT_EQ(wrong.Get("/api/v1/ping").status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(TlsServerTest, WebSocketOverTls) {
  Serve("local");
  std::unique_ptr<WssClient> wss = ExchangeOverWss("/echo", "hi");
  EXPECT_EQ(wss->reply, "echo:hi");
  wss->ws.close(boost::beast::websocket::close_code::normal);
}

// The relay (the proxy) behind HTTPS: a request with a body and a WebSocket both pass through to a
// plain backend, which is told the client came over TLS.
TEST_F(TlsServerTest, RelaysRequestsAndWebSocketsToAPlainBackend) {
  Router backend_router(auth_);
  backend_router.Add("POST", "/svc/echo", Access::kPublic, [](HttpRequest& req, ResponderPtr r) {
    nlohmann::json answer = {{"proto", req.headers["x-forwarded-proto"]}, {"bytes", req.body.size()}};
    r->Send(JsonResponse(200, answer.dump()));
  });
  HttpServer backend(io_, backend_router, 1 << 20);
  backend.AddWebSocket("/svc/ws", [](const HttpRequest& req, std::shared_ptr<WebSocketConnection> conn)
                                      -> absl::StatusOr<WebSocketHandlers> {
    std::weak_ptr<WebSocketConnection> weak = conn;
    std::string proto = req.headers.at("x-forwarded-proto");
    return WebSocketHandlers{.on_message = [weak, proto](std::string text) {
      if (auto c = weak.lock()) c->Send(proto + ":" + text);
    }};
  });
  absl::StatusOr<int> backend_port = backend.Listen("127.0.0.1", 0);
  ASSERT_TRUE(backend_port.ok()) << backend_port.status();
  server_.AddRelay("/svc/", [port = *backend_port](const HttpRequest&) -> std::variant<RelayTarget, HttpResponse> {
    return RelayTarget{.host = "127.0.0.1", .port = port, .name = "backend"};
  });
  Serve("local");

  client::RestClient client(Url(), {}, {.ca_file = Cert("local")});
  absl::StatusOr<nlohmann::json> echoed = client.Post("/svc/echo", {{"data", std::string(300000, 'x')}});
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ((*echoed)["proto"], "https");
  EXPECT_GT((*echoed)["bytes"].get<size_t>(), 300000u);

  std::unique_ptr<WssClient> wss = ExchangeOverWss("/svc/ws", "hi");
  EXPECT_EQ(wss->reply, "wss:hi");
  // The close handshake passes through, and the relay ends the TLS stream with close_notify.
  boost::beast::error_code closed;
  wss->ws.close(boost::beast::websocket::close_code::normal, closed);
  EXPECT_FALSE(closed) << closed.message();
  backend.Stop();
}

// A TCP-over-WebSocket tunnel behind HTTPS: when the service closes, the client reads a close frame,
// not a dropped (truncated) TLS stream.
TEST_F(TlsServerTest, ATunnelsServiceClosingReachesTheClientAsACloseFrame) {
  net::io_context backend_io;
  net::ip::tcp::acceptor acceptor(backend_io, {net::ip::make_address("127.0.0.1"), 0});
  std::thread backend([&] {
    net::ip::tcp::socket s(backend_io);
    acceptor.accept(s);
    std::array<char, 2> hi{};
    net::read(s, net::buffer(hi));
    net::write(s, net::buffer(std::string("bye")));
    s.close();
  });
  server_.AddRelay("/tun/", [port = acceptor.local_endpoint().port()](
                                const HttpRequest&) -> std::variant<RelayTarget, HttpResponse> {
    return RelayTarget{.host = "127.0.0.1", .port = port, .tcp_over_websocket = true, .name = "tun"};
  });
  Serve("local");

  std::unique_ptr<WssClient> wss = ExchangeOverWss("/tun/", "hi");
  EXPECT_EQ(wss->reply, "bye");
  boost::beast::flat_buffer more;
  boost::beast::error_code ended;
  wss->ws.read(more, ended);
  EXPECT_EQ(ended, boost::beast::websocket::error::closed) << ended.message();
  backend.join();
}

TEST(TlsContextTest, BadFilesAreNamed) {
  net::io_context io;
  AnyoneAuthenticator auth;
  Router router(auth);
  HttpServer server(io, router, 1024);
  absl::Status missing = server.EnableTls("/nonexistent/c.pem", "/nonexistent/k.pem");
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("security.tls.cert: /nonexistent/c.pem"),
            absl::string_view::npos)
      << missing;

  fs::path dir = fs::temp_directory_path() / absl::StrCat("det-tls-bad-", ::getpid());
  fs::create_directories(dir);
  MakeCert(dir, "a", "DNS:a");
  MakeCert(dir, "b", "DNS:b");
  std::ofstream(dir / "junk.pem") << "not a certificate\n";
  absl::Status junk = server.EnableTls((dir / "junk.pem").string(), (dir / "a.key").string());
  EXPECT_NE(junk.message().find("security.tls.cert"), absl::string_view::npos) << junk;
  absl::Status mismatch = server.EnableTls((dir / "a.crt").string(), (dir / "b.key").string());
  EXPECT_NE(mismatch.message().find("security.tls.key"), absl::string_view::npos) << mismatch;
  EXPECT_FALSE(server.tls_enabled());
  EXPECT_TRUE(server.EnableTls((dir / "a.crt").string(), (dir / "a.key").string()).ok());
  EXPECT_TRUE(server.tls_enabled());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace det::master
