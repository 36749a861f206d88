#include "master/event_loop.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

namespace det::master {
namespace {

namespace net = boost::asio;

class StrandLoop : public EventLoop {
 public:
  explicit StrandLoop(net::io_context& io) : strand_(net::make_strand(io)) {}

  void Post(std::function<void()> fn) override { net::post(strand_, std::move(fn)); }

  void PostAfter(std::chrono::milliseconds delay, std::function<void()> fn) override {
    auto timer = std::make_shared<net::steady_timer>(strand_, delay);
    timer->async_wait([timer, fn = std::move(fn)](const boost::system::error_code& ec) {
      if (!ec) fn();
    });
  }

 private:
  net::strand<net::io_context::executor_type> strand_;
};

}  // namespace

std::unique_ptr<EventLoop> MakeStrandLoop(net::io_context& io) { return std::make_unique<StrandLoop>(io); }

}  // namespace det::master
