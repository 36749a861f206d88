#include "cli/tunnel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "cli/fake_ws_server_test_util.h"

namespace det::cli {
namespace {

// Reads exactly `n` bytes from `fd`, giving up after `timeout` (a hung tunnel fails the test
// instead of hanging it).
std::string ReadBytes(int fd, size_t n, std::chrono::seconds timeout = std::chrono::seconds(10)) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[65536];
  while (out.size() < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    ssize_t r = ::read(fd, buf, std::min(sizeof(buf), n - out.size()));
    if (r <= 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  return out;
}

void WriteBytes(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    ASSERT_GT(n, 0);
    off += static_cast<size_t>(n);
  }
}

// A tunnel over two pipes: the test writes to `in` and reads `out`.
class PipeTunnel {
 public:
  explicit PipeTunnel(TunnelOptions options) {
    EXPECT_EQ(::pipe2(in_, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out_, O_CLOEXEC), 0);
    result_ = std::async(std::launch::async, [this, options] {
      absl::Status s = RunTunnel(options, in_[0], out_[1]);
      ::close(out_[1]);  // the test sees EOF once the tunnel is over
      return s;
    });
  }
  ~PipeTunnel() {
    CloseInput();
    if (result_.valid()) result_.wait();
    ::close(in_[0]);
    ::close(out_[0]);
  }
  int in() const { return in_[1]; }
  int out() const { return out_[0]; }
  void CloseInput() {
    if (in_[1] >= 0) ::close(in_[1]);
    in_[1] = -1;
  }
  // The tunnel's result, or DeadlineExceeded when it has not ended within 10 s.
  absl::Status Wait() {
    if (result_.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      return absl::DeadlineExceededError("the tunnel did not end");
    }
    return result_.get();
  }

 private:
  int in_[2] = {-1, -1};
  int out_[2] = {-1, -1};
  std::future<absl::Status> result_;
};

TEST(TunnelUrlTest, WsOrWssToTheProxyPath) {
  EXPECT_EQ(TunnelUrl("http://master:8080", "3f2a-uuid").value_or(""),
            "ws://master:8080/proxy/3f2a-uuid/");
  EXPECT_EQ(TunnelUrl("https://master:8443", "abc:2222").value_or(""),
            "wss://master:8443/proxy/abc:2222/");
  EXPECT_EQ(TunnelUrl("https://example.com/det/", "x").value_or(""),
            "wss://example.com/det/proxy/x/");
  EXPECT_EQ(TunnelUrl("http://[::1]:8080", "a b").value_or(""), "ws://[::1]:8080/proxy/a%20b/");
  EXPECT_EQ(TunnelUrl("ftp://master", "x").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TunnelUrl("http://master:8080", "a/b").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TunnelUrl("http://master:8080", "").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TunnelTest, PipesBytesBothWaysAndClosesCleanlyAtEndOfInput) {
  FakeWsServer server;
  PipeTunnel t({server.url(), "shell-1", "tok", {}});
  WriteBytes(t.in(), "SSH-2.0-OpenSSH\r\n");
  EXPECT_EQ(ReadBytes(t.out(), 17), "SSH-2.0-OpenSSH\r\n");
  // Every byte value, in a payload larger than one read of the input.
  std::string big;
  for (int i = 0; i < 300000; ++i) big.push_back(static_cast<char>(i * 7 % 256));
  std::thread writer([&] { WriteBytes(t.in(), big); });  // both directions at once
  std::string echoed = ReadBytes(t.out(), big.size());
  writer.join();
  EXPECT_TRUE(echoed == big) << "got " << echoed.size() << " bytes back of " << big.size();
  t.CloseInput();
  EXPECT_TRUE(t.Wait().ok());
  EXPECT_TRUE(server.saw_client_close());

  std::vector<FakeWsRequest> reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].target, "/proxy/shell-1/");
  EXPECT_EQ(reqs[0].headers["authorization"], "Bearer tok");
  EXPECT_EQ(reqs[0].headers["upgrade"], "websocket");
}

TEST(TunnelTest, NoTokenNoAuthorizationHeader) {
  FakeWsServer server;
  {
    PipeTunnel t({server.url(), "s", "", {}});
    t.CloseInput();
    EXPECT_TRUE(t.Wait().ok());
  }
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].headers.count("authorization"), 0u);
}

TEST(TunnelTest, EndsWhenTheMasterClosesWhileInputIsStillOpen) {
  FakeWsServer server(FakeWsServerOptions{.close_after_frames = 1});
  PipeTunnel t({server.url(), "s", "", {}});
  WriteBytes(t.in(), "ping");
  EXPECT_EQ(ReadBytes(t.out(), 4), "ping");
  EXPECT_TRUE(t.Wait().ok());  // without CloseInput(): the master's close ends it
  EXPECT_EQ(ReadBytes(t.out(), 1, std::chrono::seconds(1)), "");  // EOF
}

TEST(TunnelTest, AnUpgradeRefusedWithAnHttpErrorSaysWhy) {
  FakeWsServer server(FakeWsServerOptions{
      .refuse_status = 404,
      .refuse_body = R"({"error":{"code":5,"error":"service gone not found"}})"});
  PipeTunnel t({server.url(), "gone", "", {}});
  absl::Status s = t.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(
      s.message(),
      "cannot open a tunnel to gone: the master answered 404 Refused: service gone not found");

  FakeWsServer auth(FakeWsServerOptions{.refuse_status = 401, .refuse_body = "no credentials\n"});
  PipeTunnel t2({auth.url(), "x", "", {}});
  absl::Status s2 = t2.Wait();
  EXPECT_EQ(s2.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(s2.message().find("401 Refused: no credentials"), std::string::npos) << s2;
}

TEST(TunnelTest, NoMasterIsUnavailable) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  ::close(fd);  // nothing listens there now
  PipeTunnel t({url, "x", "", {}});
  EXPECT_EQ(t.Wait().code(), absl::StatusCode::kUnavailable);
}

TEST(TunnelListenerTest, TunnelsEachAcceptedConnection) {
  FakeWsServer server;
  absl::StatusOr<std::unique_ptr<TunnelListener>> listener =
      TunnelListener::Listen({server.url(), "svc", "", {}}, 0);
  ASSERT_TRUE(listener.ok()) << listener.status();
  std::ostringstream err;
  std::thread serving([&] { (*listener)->Serve(err); });

  auto connect = [&] {
    int c = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons((*listener)->port());
    EXPECT_EQ(::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    return c;
  };
  int a = connect();
  int b = connect();
  WriteBytes(a, "from a");
  WriteBytes(b, "from b");
  EXPECT_EQ(ReadBytes(b, 6), "from b");
  EXPECT_EQ(ReadBytes(a, 6), "from a");
  ::shutdown(a, SHUT_WR);  // a's end of input closes its tunnel
  EXPECT_EQ(ReadBytes(a, 1, std::chrono::seconds(10)), "");
  ::close(a);
  (*listener)->Stop();  // ends b's tunnel too
  serving.join();
  EXPECT_EQ(ReadBytes(b, 1, std::chrono::seconds(10)), "");
  ::close(b);
  listener->reset();
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace det::cli
