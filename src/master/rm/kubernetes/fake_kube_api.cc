#include "master/rm/kubernetes/fake_kube_api.h"

#include <chrono>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace det::master::kube {

using nlohmann::json;

namespace {

// Whether the item `path` is in `collection` ("/api/v1/pods" is every namespace's pods).
bool InCollection(const std::string& path, std::string_view view) {
  const std::string collection(view);
  if (collection == "/api/v1/pods") return absl::StartsWith(path, "/api/v1/namespaces/") && absl::StrContains(path, "/pods/");
  std::string prefix = absl::StrCat(collection, "/");
  return absl::StartsWith(path, prefix) && path.find('/', prefix.size()) == std::string::npos;
}

bool MatchesLabels(const json& object, const std::string& selector) {
  if (selector.empty()) return true;
  for (const std::string& term : std::vector<std::string>(absl::StrSplit(selector, ','))) {
    std::vector<std::string> kv = absl::StrSplit(term, '=');
    const json& labels = object["metadata"].value("labels", json::object());
    if (kv.size() == 1 && !labels.contains(kv[0])) return false;
    if (kv.size() == 2 && (!labels.contains(kv[0]) || labels[kv[0]] != kv[1])) return false;
  }
  return true;
}

class Calling {
 public:
  Calling(std::mutex& mu, int& calls) : mu_(mu), calls_(calls) {
    std::lock_guard lock(mu_);
    ++calls_;
  }
  ~Calling() {
    std::lock_guard lock(mu_);
    --calls_;
  }

 private:
  std::mutex& mu_;
  int& calls_;
};

}  // namespace

void FakeKubeApi::Record(const std::string& path, const std::string& type, json object) {
  object["metadata"]["resourceVersion"] = std::to_string(++version_);
  changes_.push_back({version_, path, {type, std::move(object)}});
  changed_.notify_all();
}

json& FakeKubeApi::Put(const std::string& path, json object) {
  const bool added = !objects_.count(path);
  if (added) object["metadata"]["uid"] = absl::StrCat("uid-", version_ + 1);
  Record(path, added ? "ADDED" : "MODIFIED", object);
  object["metadata"]["resourceVersion"] = std::to_string(version_);
  return objects_[path] = std::move(object);
}

void FakeKubeApi::RemoveLocked(const std::string& path) {
  auto it = objects_.find(path);
  if (it == objects_.end()) return;
  json last = std::move(it->second);
  objects_.erase(it);
  Record(path, "DELETED", std::move(last));
}

absl::StatusOr<json> FakeKubeApi::Create(std::string_view collection_view, const json& object) {
  const std::string collection(collection_view);
  Calling calling(mu_, calls_);
  std::lock_guard lock(mu_);
  std::string name = object["metadata"].value("name", "");
  std::string path = absl::StrCat(collection, "/", name);
  requests_.push_back(absl::StrCat("POST ", path));
  if (objects_.count(path)) return absl::AlreadyExistsError(absl::StrCat(name, " already exists"));
  json& created = Put(path, object);
  if (absl::EndsWith(collection, "/jobs")) {
    // The Job controller and the scheduler at once: its pods, bound and running.
    const json& tmpl = object["spec"]["template"];
    const int pods = object["spec"].value("parallelism", 1);
    std::string ns = object["metadata"].value("namespace", "default");
    for (int i = 0; i < pods; ++i) {
      json pod = {{"metadata", tmpl.value("metadata", json::object())}, {"spec", tmpl["spec"]}};
      pod["metadata"]["name"] = absl::StrCat(name, "-", i, "-x");
      pod["metadata"]["namespace"] = ns;
      pod["metadata"]["labels"]["job-name"] = name;
      pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] = std::to_string(i);
      std::string node = pod["spec"].value("nodeSelector", json::object()).value("kubernetes.io/hostname", "");
      if (node.empty()) {
        const json& values = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                                ["nodeSelectorTerms"][0]["matchExpressions"][0]["values"];
        node = values.is_array() && !values.empty() ? values[static_cast<size_t>(i) % values.size()].get<std::string>()
                                                    : "node";
      }
      pod["spec"]["nodeName"] = node;
      pod["status"] = {{"phase", "Running"}, {"podIP", absl::StrCat("10.0.0.", next_ip_++)}};
      Put(absl::StrCat("/api/v1/namespaces/", ns, "/pods/", pod["metadata"]["name"].get<std::string>()), pod);
    }
  }
  return created;
}

absl::StatusOr<json> FakeKubeApi::Get(std::string_view item) {
  Calling calling(mu_, calls_);
  std::lock_guard lock(mu_);
  auto it = objects_.find(std::string(item));
  if (it == objects_.end()) return absl::NotFoundError(absl::StrCat(std::string(item), " not found"));
  return it->second;
}

absl::StatusOr<json> FakeKubeApi::List(std::string_view collection, const ListOptions& options) {
  {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [this] { return open_; });
  }
  Calling calling(mu_, calls_);
  std::lock_guard lock(mu_);
  json items = json::array();
  for (const auto& [path, object] : objects_) {
    if (InCollection(path, collection) && MatchesLabels(object, options.label_selector)) items.push_back(object);
  }
  return json{{"items", items}, {"metadata", {{"resourceVersion", std::to_string(version_)}}}};
}

absl::StatusOr<json> FakeKubeApi::Patch(std::string_view item, const json& merge_patch) {
  Calling calling(mu_, calls_);
  std::lock_guard lock(mu_);
  const std::string path(item);
  requests_.push_back(absl::StrCat("PATCH ", path));
  auto it = objects_.find(path);
  if (it == objects_.end()) return absl::NotFoundError(absl::StrCat(path, " not found"));
  json object = it->second;
  object.merge_patch(merge_patch);
  return Put(path, object);
}

absl::Status FakeKubeApi::Delete(std::string_view item, std::string_view propagation_policy) {
  Calling calling(mu_, calls_);
  std::lock_guard lock(mu_);
  std::string path(item);
  const std::string policy(propagation_policy);
  requests_.push_back(absl::StrCat("DELETE ", path, policy.empty() ? "" : "?propagationPolicy=", policy));
  auto it = objects_.find(path);
  if (it == objects_.end()) return absl::NotFoundError(absl::StrCat(path, " not found"));
  const std::string job = absl::StrContains(path, "/jobs/") ? it->second["metadata"].value("name", "") : "";
  RemoveLocked(path);
  if (!job.empty() && policy != "Orphan") {
    // Its pods are stopped: an ended one goes at once, a running one once its process ends (EndPod).
    std::vector<std::string> ended, running;
    for (const auto& [p, object] : objects_) {
      if (!absl::StrContains(p, "/pods/") || object["metadata"]["labels"].value("job-name", "") != job) continue;
      std::string phase = object["status"].value("phase", "");
      (phase == "Succeeded" || phase == "Failed" ? ended : running).push_back(p);
    }
    for (const std::string& p : ended) RemoveLocked(p);
    for (const std::string& p : running) {
      json pod = objects_.at(p);
      pod["metadata"]["deletionTimestamp"] = "2026-11-28T00:00:00Z";
      Put(p, pod);
    }
  }
  return absl::OkStatus();
}

absl::Status FakeKubeApi::Watch(std::string_view collection, const ListOptions& options,
                                const std::string& resource_version,
                                const std::function<void(const WatchEvent&)>& on_event, const std::atomic<bool>& stop) {
  std::unique_lock lock(mu_);
  const int id = next_watch_++;
  int64_t seen = resource_version.empty() ? 0 : std::stoll(resource_version);
  watch_seen_[id] = seen;
  while (!stop) {
    std::vector<WatchEvent> due;
    for (const Change& c : changes_) {
      if (c.version > seen && InCollection(c.path, collection) && MatchesLabels(c.event.object, options.label_selector)) {
        due.push_back(c.event);
      }
    }
    seen = version_;
    lock.unlock();
    for (const WatchEvent& e : due) on_event(e);
    lock.lock();
    watch_seen_[id] = seen;
    changed_.wait_for(lock, std::chrono::milliseconds(20), [&] { return stop || version_ > seen; });
  }
  watch_seen_.erase(id);
  return absl::CancelledError("stopped");
}

absl::Status FakeKubeApi::Logs(std::string_view, const LogOptions&, const std::function<void(std::string_view)>& on_line,
                               const std::atomic<bool>&) {
  on_line("2026-11-28T00:00:00.000000000Z hello from the pod");
  return absl::OkStatus();
}

void FakeKubeApi::Open() {
  std::lock_guard lock(mu_);
  open_ = true;
  changed_.notify_all();
}

void FakeKubeApi::AddNode(const std::string& name, int gpus) {
  std::lock_guard lock(mu_);
  Put(absl::StrCat("/api/v1/nodes/", name),
      {{"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
       {"status",
        {{"allocatable", {{"cpu", "8"}, {"nvidia.com/gpu", std::to_string(gpus)}}},
         {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
}

void FakeKubeApi::RemoveNode(const std::string& name) {
  std::lock_guard lock(mu_);
  RemoveLocked(absl::StrCat("/api/v1/nodes/", name));
}

void FakeKubeApi::AddForeignPod(const std::string& name, const std::string& node, int gpus) {
  std::lock_guard lock(mu_);
  Put(absl::StrCat("/api/v1/namespaces/other/pods/", name),
      {{"metadata", {{"name", name}, {"namespace", "other"}}},
       {"spec",
        {{"nodeName", node},
         {"containers", json::array({{{"name", "c"}, {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}}})}}},
       {"status", {{"phase", "Running"}}}});
}

std::string FakeKubeApi::PodPath(const std::string& pod_name) const {
  for (const auto& [path, object] : objects_) {
    if (absl::StrContains(path, "/pods/") && object["metadata"].value("name", "") == pod_name) return path;
  }
  return "";
}

std::vector<json> FakeKubeApi::PodsOf(const std::string& job_name) const {
  std::lock_guard lock(mu_);
  std::vector<json> out;
  for (const auto& [path, object] : objects_) {
    if (absl::StrContains(path, "/pods/") && object["metadata"].value("labels", json::object()).value("job-name", "") == job_name) {
      out.push_back(object);
    }
  }
  return out;
}

std::vector<std::string> FakeKubeApi::JobNames() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [path, object] : objects_) {
    if (absl::StrContains(path, "/jobs/")) out.push_back(object["metadata"].value("name", ""));
  }
  return out;
}

void FakeKubeApi::EndPod(const std::string& pod_name, int exit_code) {
  std::lock_guard lock(mu_);
  std::string path = PodPath(pod_name);
  if (path.empty()) return;
  json pod = objects_.at(path);
  pod["status"]["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
  pod["status"]["containerStatuses"] = json::array(
      {{{"name", "determined-container"}, {"state", {{"terminated", {{"exitCode", exit_code}}}}}}});
  Put(path, pod);
  if (pod["metadata"].contains("deletionTimestamp")) RemoveLocked(path);
}

void FakeKubeApi::DeletePod(const std::string& pod_name) {
  std::lock_guard lock(mu_);
  RemoveLocked(PodPath(pod_name));
}

std::vector<std::string> FakeKubeApi::Requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

bool FakeKubeApi::Quiet() const {
  std::lock_guard lock(mu_);
  if (calls_ > 0) return false;
  for (const auto& [id, seen] : watch_seen_) {
    if (seen < version_) return false;
  }
  return true;
}

void RunUntilQuiet(ManualLoop& loop, const FakeKubeApi& api) {
  int quiet = 0;
  for (int i = 0; i < 2000 && quiet < 5; ++i) {
    loop.RunPending();
    quiet = api.Quiet() ? quiet + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  loop.RunPending();
}

}  // namespace det::master::kube
