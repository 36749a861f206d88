#include "client/rest_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

namespace det::client {
namespace {

using std::chrono::milliseconds;

// A TCP listener that accepts connections (in the kernel backlog) but never answers.
class SilentServer {
 public:
  SilentServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(fd_, 8);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentServer() { close(fd_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_;
  int port_;
};

TEST(RestClientTest, CancelAbortsACallInFlightAndEveryLaterOne) {
  SilentServer server;
  RestClient client(server.url());
  absl::Status result;
  std::thread t([&] { result = client.Get("/api/v1/allocations/a/signals/preemption").status(); });
  std::this_thread::sleep_for(milliseconds(200));
  auto start = std::chrono::steady_clock::now();
  client.Cancel();
  t.join();
  // The connection is shut down at once; libcurl's progress hook alone would take up to a second
  // on an idle transfer (about 800 ms here).
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
  EXPECT_EQ(result.code(), absl::StatusCode::kCancelled) << result;
  EXPECT_EQ(client.Get("/x").status().code(), absl::StatusCode::kCancelled);
}

TEST(RestClientTest, SlowMasterIsDeadlineExceeded) {
  SilentServer server;
  RestClient client(server.url());
  client.set_timeout_seconds(1);
  auto r = client.Get("/x");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
}


TEST(RestClientTest, EncodesQueryValues) {
  EXPECT_EQ(UrlEncode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
  EXPECT_EQ(UrlEncode("safe-._~09AZ"), "safe-._~09AZ");
}

TEST(RestClientTest, UnreachableMasterIsUnavailable) {
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  RestClient client("127.0.0.1:1");
  auto r = client.Get("/api/v1/master");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("http://127.0.0.1:1"), std::string::npos);
  EXPECT_NE(r.status().message().find("is it running? (det deploy local cluster-up)"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace det::client
