#pragma once
// A serial executor with timers: work posted to one EventLoop never runs concurrently with other work
// posted to it. The cluster actor runs on one; tests drive a manual one.
#include <chrono>
#include <functional>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace det::master {

class EventLoop {
 public:
  virtual ~EventLoop() = default;
  virtual void Post(std::function<void()> fn) = 0;
  virtual void PostAfter(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
  // The clock of the work on the loop, the one its timers count in: wall time for what is recorded
  // (start and end times), steady time for durations (idle and preemption timeouts). A test's loop
  // moves both with its timers.
  virtual std::chrono::system_clock::time_point Now() const { return std::chrono::system_clock::now(); }
  virtual std::chrono::steady_clock::time_point SteadyNow() const { return std::chrono::steady_clock::now(); }
};

// An asio strand on `io`.
std::unique_ptr<EventLoop> MakeStrandLoop(boost::asio::io_context& io);

}  // namespace det::master
