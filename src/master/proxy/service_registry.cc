#include "master/proxy/service_registry.h"

#include <utility>

namespace det::master {

void ServiceRegistry::Register(Service service) {
  std::lock_guard lock(mu_);
  std::string id = service.id;
  services_[id] = Entry{std::move(service), now_()};
}

void ServiceRegistry::Unregister(const std::string& id) {
  std::lock_guard lock(mu_);
  services_.erase(id);
}

std::optional<Service> ServiceRegistry::Use(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = services_.find(id);
  if (it == services_.end()) return std::nullopt;
  it->second.last_requested = now_();
  return it->second.service;
}

std::optional<ServiceRegistry::Clock::time_point> ServiceRegistry::LastRequested(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = services_.find(id);
  if (it == services_.end()) return std::nullopt;
  return it->second.last_requested;
}

}  // namespace det::master
