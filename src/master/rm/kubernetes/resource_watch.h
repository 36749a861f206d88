#pragma once
// Keeps one Kubernetes collection in view, as client-go's informers do: lists it, then watches from the
// list's resourceVersion, resuming a watch the server ended from the last resourceVersion seen (BOOKMARKs
// included), and listing again when the server says that version is too old (410) or the watch keeps
// failing. Runs on its own thread; the callbacks run there too, so they post to the owner's loop.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "master/rm/kubernetes/kube_api.h"

namespace det::master::kube {

class ResourceWatch {
 public:
  struct Callbacks {
    // The whole collection, after every (re)list: what is not in it is gone.
    std::function<void(std::vector<nlohmann::json> items)> on_list;
    // ADDED, MODIFIED or DELETED.
    std::function<void(const WatchEvent& event)> on_event;
  };

  ResourceWatch(KubeApi& api, std::string collection, ListOptions options, Callbacks callbacks);
  // Stops the watch and waits for its thread.
  ~ResourceWatch();
  ResourceWatch(const ResourceWatch&) = delete;
  ResourceWatch& operator=(const ResourceWatch&) = delete;

 private:
  void Run();
  // Sleeps `ms` unless stopped first; false when stopped.
  bool Pause(int ms);

  KubeApi& api_;
  const std::string collection_;
  const ListOptions options_;
  const Callbacks callbacks_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace det::master::kube
