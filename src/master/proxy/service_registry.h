#pragma once
// The services the master's proxy reaches: one per ready allocation that serves something (a
// notebook's Jupyter, a shell's sshd, a TensorBoard, a command's own server), by its task's id.
// Thread-safe: the cluster strand registers and unregisters; the HTTP threads look up on every
// proxied request, which also records the request for the idle timeout.
#include <chrono>
#include <functional>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace det::master {

struct Service {
  std::string id;  // the task's id; /proxy/{id}/...
  int64_t owner_id = 0;
  int64_t workspace_id = 1;  // the task's
  std::string host;  // the agent's address as the master sees it
  int port = 0;
  // Raw TCP over the client's WebSocket (shells), needing no session: what is tunnelled
  // authenticates itself (a shell's SSH key), as upstream. Else HTTP.
  bool tcp = false;
  // The notebook's own token: accepted instead of a session for this service only, and what the
  // proxy shows Jupyter (which demands it) in place of the caller's credentials. "" for none.
  std::string token;
};

class ServiceRegistry {
 public:
  using Clock = std::chrono::steady_clock;

  // `now`: the clock requests are timed with; the cluster's loop's (EventLoop::SteadyNow), whose idle
  // checks compare with it.
  explicit ServiceRegistry(std::function<Clock::time_point()> now = Clock::now) : now_(std::move(now)) {}

  // Adds or replaces the service; its last request counts from now.
  void Register(Service service);
  void Unregister(const std::string& id);
  // The service, recording a request to it now; nullopt when none is registered.
  std::optional<Service> Use(const std::string& id);
  // When the service last had a request (or was registered); nullopt when none is registered.
  std::optional<Clock::time_point> LastRequested(const std::string& id) const;

 private:
  struct Entry {
    Service service;
    Clock::time_point last_requested;
  };
  const std::function<Clock::time_point()> now_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> services_;
};

}  // namespace det::master
