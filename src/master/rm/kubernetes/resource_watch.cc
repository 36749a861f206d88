#include "master/rm/kubernetes/resource_watch.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace det::master::kube {
namespace {

constexpr int kFirstRetryMs = 200;
constexpr int kMaxRetryMs = 5000;
// A watch that fails this many times in a row without an event is given up for a fresh list.
constexpr int kWatchFailuresBeforeRelist = 3;

std::string VersionOf(const nlohmann::json& object) {
  const nlohmann::json* meta = object.is_object() && object.contains("metadata") ? &object["metadata"] : nullptr;
  if (meta == nullptr || !meta->contains("resourceVersion") || !(*meta)["resourceVersion"].is_string()) return "";
  return (*meta)["resourceVersion"].get<std::string>();
}

}  // namespace

ResourceWatch::ResourceWatch(KubeApi& api, std::string collection, ListOptions options, Callbacks callbacks)
    : api_(api), collection_(std::move(collection)), options_(std::move(options)), callbacks_(std::move(callbacks)) {
  thread_ = std::thread([this] { Run(); });
}

ResourceWatch::~ResourceWatch() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool ResourceWatch::Pause(int ms) {
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_.load(); });
  return !stop_;
}

void ResourceWatch::Run() {
  int retry_ms = kFirstRetryMs;
  while (!stop_) {
    absl::StatusOr<nlohmann::json> list = api_.List(collection_, options_);
    if (!list.ok()) {
      spdlog::warn("kubernetes: listing {} failed: {}; retrying", collection_, list.status().ToString());
      if (!Pause(retry_ms)) return;
      retry_ms = std::min(retry_ms * 2, kMaxRetryMs);
      continue;
    }
    std::vector<nlohmann::json> items;
    if (list->contains("items") && (*list)["items"].is_array()) {
      for (nlohmann::json& item : (*list)["items"]) items.push_back(std::move(item));
    }
    std::string version = VersionOf(*list);
    callbacks_.on_list(std::move(items));
    int failures = 0;
    while (!stop_) {
      bool saw_event = false;
      absl::Status watched = api_.Watch(
          collection_, options_, version,
          [&](const WatchEvent& event) {
            saw_event = true;
            if (std::string v = VersionOf(event.object); !v.empty()) version = v;
            if (event.type != "BOOKMARK") callbacks_.on_event(event);
          },
          stop_);
      if (stop_ || absl::IsCancelled(watched)) return;
      if (absl::IsOutOfRange(watched)) {
        spdlog::info("kubernetes: the watch of {} is too old ({}); listing again", collection_, std::string(watched.message()));
        break;
      }
      if (watched.ok()) {  // the server ended the stream (its timeout): resume
        failures = 0;
        retry_ms = kFirstRetryMs;
        continue;
      }
      failures = saw_event ? 1 : failures + 1;
      spdlog::warn("kubernetes: watching {} failed: {}", collection_, watched.ToString());
      if (!Pause(retry_ms)) return;
      retry_ms = std::min(retry_ms * 2, kMaxRetryMs);
      if (failures >= kWatchFailuresBeforeRelist) break;
    }
  }
}

}  // namespace det::master::kube
