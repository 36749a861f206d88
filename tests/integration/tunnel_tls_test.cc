// `det shell` and `det tunnel` against an https master: the CLI's TLS WebSocket to the master's real
// HttpServer, whose relay carries the bytes to a plain TCP service (a TCP-over-WebSocket target) and back.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <utility>  // Boost 1.74 asio uses std::exchange without including it

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/tunnel.h"
#include "master/http/router.h"
#include "master/http/server.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
namespace net = boost::asio;

class NoUsers : public master::Authenticator {
 public:
  absl::StatusOr<master::Principal> Authenticate(const master::HttpRequest&) override {
    return absl::UnauthenticatedError("no users here");
  }
};

// Everything `fd` gives until its end, or until `timeout` passes.
std::string ReadToEnd(int fd, std::chrono::seconds timeout = std::chrono::seconds(10)) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(TunnelTlsTest, BytesReachATcpServiceThroughAnHttpsMasterAndBack) {
  fs::path dir = fs::temp_directory_path() / absl::StrCat("det-tunnel-tls-", ::getpid());
  fs::create_directories(dir);
  std::string cert = (dir / "master.crt").string();
  std::string key = (dir / "master.key").string();
  std::string openssl = absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=master ",
                                     "-addext subjectAltName=IP:127.0.0.1 -keyout ", key, " -out ", cert,
                                     " >/dev/null 2>&1");
  ASSERT_EQ(std::system(openssl.c_str()), 0) << openssl;

  net::io_context io;
  auto work = net::make_work_guard(io);
  NoUsers auth;
  // The service: a plain HTTP server, spoken to in raw bytes through the tunnel.
  master::Router service_router(auth);
  service_router.Add("GET", "/ping", master::Access::kPublic, [](master::HttpRequest&, master::ResponderPtr r) {
    r->Send(master::JsonResponse(200, R"({"pong":true})"));
  });
  master::HttpServer service(io, service_router, 1 << 20);
  absl::StatusOr<int> service_port = service.Listen("127.0.0.1", 0);
  ASSERT_TRUE(service_port.ok()) << service_port.status();
  master::Router master_router(auth);
  master::HttpServer master(io, master_router, 1 << 20);
  master.AddRelay("/proxy/", [port = *service_port](const master::HttpRequest&)
                                 -> std::variant<master::RelayTarget, master::HttpResponse> {
    return master::RelayTarget{.host = "127.0.0.1", .port = port, .tcp_over_websocket = true, .name = "svc"};
  });
  ASSERT_TRUE(master.EnableTls(cert, key).ok());
  absl::StatusOr<int> master_port = master.Listen("127.0.0.1", 0);
  ASSERT_TRUE(master_port.ok()) << master_port.status();
  std::thread server_thread([&io] { io.run(); });

  int in[2], out[2];
  ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  TunnelOptions options{absl::StrCat("https://127.0.0.1:", *master_port), "svc", "", {.ca_file = cert}};
  auto tunnel = std::async(std::launch::async, [&] {
    absl::Status s = RunTunnel(options, in[0], out[1]);
    ::close(out[1]);
    return s;
  });
  std::string request = "GET /ping HTTP/1.1\r\nHost: svc\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(::write(in[1], request.data(), request.size()), static_cast<ssize_t>(request.size()));
  // The service answers and closes; the relay ends the WebSocket, and the tunnel ends.
  std::string answer = ReadToEnd(out[0]);
  EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 200")) << answer;
  EXPECT_TRUE(absl::StrContains(answer, R"({"pong":true})")) << answer;
  ::close(in[1]);
  ASSERT_EQ(tunnel.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(tunnel.get().ok());

  ::close(in[0]);
  ::close(out[0]);
  master.Stop();
  service.Stop();
  work.reset();
  io.stop();
  server_thread.join();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace det::cli
