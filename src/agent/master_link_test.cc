#include "agent/master_link.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace det::agent {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using WebSocket = websocket::stream<tcp::socket>;

// A blocking stand-in for the master's /agents endpoint.
class FakeMaster {
 public:
  explicit FakeMaster(int port = 0) : acceptor_(ioc_) {
    tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

  // Accepts one websocket connection; `target` receives the upgrade request's target.
  std::unique_ptr<WebSocket> Accept(std::string* target = nullptr) {
    tcp::socket socket = acceptor_.accept();
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(socket, buffer, request);
    if (target != nullptr) *target = std::string(request.target());
    auto ws = std::make_unique<WebSocket>(std::move(socket));
    ws->accept(request);
    return ws;
  }

 private:
  asio::io_context ioc_;
  tcp::acceptor acceptor_;
};

std::string Read(WebSocket& ws) {
  beast::flat_buffer buffer;
  ws.read(buffer);
  return beast::buffers_to_string(buffer.data());
}

// Stops the link while the master side answers its close handshake, as a real master would.
void StopWhileMasterReads(MasterLink& link, WebSocket& ws) {
  std::thread stopper([&] { link.Stop(); });
  beast::error_code ec;
  while (!ec) {
    beast::flat_buffer buffer;
    ws.read(buffer, ec);
  }
  stopper.join();
}

// Messages the link delivered, with a way to wait for them.
struct Inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> messages;
  std::atomic<int> hellos{0};

  MasterLink::Handler Handler() {
    return MasterLink::Handler{
        .hello = [this] { return "hello-" + std::to_string(++hellos); },
        .on_message =
            [this](std::string text) {
              std::lock_guard lock(mu);
              messages.push_back(std::move(text));
              cv.notify_all();
            },
    };
  }
  bool WaitFor(size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 5s, [&] { return messages.size() >= n; });
  }
};

MasterLink::Options FastOptions(int port) {
  MasterLink::Options o;
  o.host = "127.0.0.1";
  o.port = port;
  o.target = "/agents?id=a1&resource_pool=default";
  o.initial_backoff = 20ms;
  o.max_backoff = 100ms;
  return o;
}

TEST(MasterLinkTest, HelloFirstThenMessagesBothWays) {
  FakeMaster master;
  Inbox inbox;
  MasterLink link(FastOptions(master.port()));
  link.Start(inbox.Handler());
  std::string target;
  std::unique_ptr<WebSocket> ws = master.Accept(&target);
  EXPECT_EQ(target, "/agents?id=a1&resource_pool=default");
  EXPECT_EQ(Read(*ws), "hello-1");

  std::atomic<bool> written{false};
  link.Send("task_exited", [&] { written = true; });
  EXPECT_EQ(Read(*ws), "task_exited");
  for (int i = 0; i < 100 && !written; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(written);

  ws->text(true);
  ws->write(asio::buffer(std::string("start_task")));
  ASSERT_TRUE(inbox.WaitFor(1));
  EXPECT_EQ(inbox.messages[0], "start_task");

  link.Send("last words");
  std::thread stopper([&] { link.Stop(2s); });
  EXPECT_EQ(Read(*ws), "last words");
  beast::error_code ec;
  beast::flat_buffer buffer;
  ws->read(buffer, ec);  // the agent's close frame
  EXPECT_EQ(ec, websocket::error::closed);
  stopper.join();
}

TEST(MasterLinkTest, QueuesWhileDisconnectedAndSendsHelloFirstOnReconnect) {
  FakeMaster master;
  Inbox inbox;
  MasterLink link(FastOptions(master.port()));
  link.Start(inbox.Handler());
  {
    std::unique_ptr<WebSocket> ws = master.Accept();
    EXPECT_EQ(Read(*ws), "hello-1");
    for (int i = 0; i < 100 && !link.connected(); ++i) std::this_thread::sleep_for(10ms);
    beast::error_code ec;
    beast::get_lowest_layer(*ws).close(ec);  // the master goes away without a goodbye
  }
  for (int i = 0; i < 300 && link.connected(); ++i) std::this_thread::sleep_for(10ms);
  link.Send("exit-1");
  link.Send("exit-2");
  std::unique_ptr<WebSocket> ws = master.Accept();
  EXPECT_EQ(Read(*ws), "hello-2");
  EXPECT_EQ(Read(*ws), "exit-1");
  EXPECT_EQ(Read(*ws), "exit-2");
  StopWhileMasterReads(link, *ws);
}

TEST(MasterLinkTest, KeepsRetryingUntilTheMasterAppears) {
  int port;
  { port = FakeMaster().port(); }  // a port nobody listens on, for now
  Inbox inbox;
  MasterLink link(FastOptions(port));
  link.Start(inbox.Handler());
  link.Send("queued before any connection");
  std::this_thread::sleep_for(250ms);  // several refused attempts
  FakeMaster master(port);
  std::unique_ptr<WebSocket> ws = master.Accept();
  EXPECT_EQ(Read(*ws), "hello-1");
  EXPECT_EQ(Read(*ws), "queued before any connection");
  // The link counts the message sent once its write completes, which may be just after the master
  // read it (the socket sends at once: TCP_NODELAY).
  for (int i = 0; i < 100 && link.queued() != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(link.queued(), 0u);
  StopWhileMasterReads(link, *ws);
}

}  // namespace
}  // namespace det::agent
