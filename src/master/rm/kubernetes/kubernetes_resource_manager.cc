#include "master/rm/kubernetes/kubernetes_resource_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/time_util.h"
#include "config/environment_schema.h"
#include "master/rm/kubernetes/job_spec.h"
#include "master/rm/kubernetes/resource_watch.h"
#include "master/rm/pool_queue.h"
#include "scheduler/feasibility.h"
#include "scheduler/job_queue.h"
#include "scheduler/schedule.h"

namespace det::master {

using nlohmann::json;

namespace {

constexpr char kAllocationLabel[] = "determined.ai/allocation_id";
constexpr char kContainerName[] = "determined-container";
constexpr char kIndexLabel[] = "batch.kubernetes.io/job-completion-index";
constexpr int kKilledExitCode = 137;
// How long an ended allocation waits for its pods' log followers to deliver their last lines.
constexpr std::chrono::seconds kLogDrain{3};

const json& Field(const json& object, std::initializer_list<const char*> path) {
  static const json kNull;
  const json* at = &object;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return kNull;
    at = &(*at)[key];
  }
  return *at;
}

std::string StringField(const json& object, std::initializer_list<const char*> path) {
  const json& v = Field(object, path);
  return v.is_string() ? v.get<std::string>() : "";
}

// A resource quantity as a number: "4", "500m", "1.5", "2Ki" (binary and decimal suffixes).
double Quantity(const json& value) {
  if (value.is_number()) return value.get<double>();
  if (!value.is_string()) return 0;
  std::string text = value.get<std::string>();
  static const std::vector<std::pair<std::string, double>> kSuffixes = {
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"m", 0.001},   {"k", 1e3},        {"M", 1e6},          {"G", 1e9},
      {"T", 1e12}};
  double scale = 1;
  for (const auto& [suffix, factor] : kSuffixes) {
    if (text.size() > suffix.size() && text.ends_with(suffix)) {
      text.resize(text.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  double n = 0;
  return absl::SimpleAtod(text, &n) ? n * scale : 0;
}

// What a pod's containers ask of `resource` (requests, else limits), init containers as the scheduler
// counts them (the largest one, when it is more than the sum of the others).
double PodRequest(const json& pod, const char* resource) {
  auto of = [&](const json& container) {
    const json& requests = Field(container, {"resources", "requests", resource});
    return Quantity(requests.is_null() ? Field(container, {"resources", "limits", resource}) : requests);
  };
  double sum = 0;
  const json& containers = Field(pod, {"spec", "containers"});
  if (containers.is_array()) {
    for (const json& c : containers) sum += of(c);
  }
  const json& init = Field(pod, {"spec", "initContainers"});
  if (init.is_array()) {
    for (const json& c : init) sum = std::max(sum, of(c));
  }
  return sum;
}

bool Matches(const json& labels, const json& selector) {
  if (!selector.is_object()) return true;
  for (const auto& [key, value] : selector.items()) {
    if (!labels.is_object() || !labels.contains(key) || labels[key] != value) return false;
  }
  return true;
}

// The agent id the policies see for part `part` of `node` (of `parts`).
std::string PartId(const std::string& node, int part, int parts) {
  return parts == 1 ? node : absl::StrCat(node, "#", part);
}

// {node, part} of a part id.
std::pair<std::string, int> SplitPartId(const std::string& id) {
  size_t hash = id.rfind('#');
  int part = 0;
  if (hash == std::string::npos || !absl::SimpleAtoi(id.substr(hash + 1), &part)) return {id, 0};
  return {id.substr(0, hash), part};
}

std::string KeyOf(const json& object) {
  return absl::StrCat(StringField(object, {"metadata", "namespace"}), "/", StringField(object, {"metadata", "name"}));
}

// environment.image (a string, or {cpu, cuda, rocm}); `fallback` where it names none, or upstream's
// default images, which the experiment config fills in but which hold upstream's harness, not ours.
std::string ImageOf(const json& environment, const std::string& device, const std::string& fallback) {
  const json& image = Field(environment, {"image"});
  std::string named;
  if (image.is_string()) named = image.get<std::string>();
  if (image.is_object() && image.contains(device) && image[device].is_string()) named = image[device].get<std::string>();
  for (const char* upstream : {config::kDefaultCpuImage, config::kDefaultCudaImage, config::kDefaultRocmImage}) {
    if (named == upstream) return fallback;
  }
  return named.empty() ? fallback : named;
}

}  // namespace

// Threads that call the API, and what they share with the loop. Held by the manager and by every
// thread's work, so a thread that outlives a call still finds it; `stop` ends them all.
struct KubernetesResourceManager::Shared {
  std::shared_ptr<kube::KubeApi> api;
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable changed;
  std::deque<std::function<void()>> requests;  // API calls, one at a time, in order
  int followers = 0;                           // log followers running
  std::thread request_thread;
  std::vector<std::unique_ptr<kube::ResourceWatch>> watches;

  void Enqueue(std::function<void()> call) {
    {
      std::lock_guard lock(mu);
      requests.push_back(std::move(call));
    }
    changed.notify_all();
  }

  void RunRequests() {
    while (true) {
      std::function<void()> call;
      {
        std::unique_lock lock(mu);
        changed.wait(lock, [this] { return stop || !requests.empty(); });
        if (stop) return;
        call = std::move(requests.front());
        requests.pop_front();
      }
      call();
    }
  }
};

std::string KubernetesResourceManager::JobName(const std::string& allocation_id) {
  std::string name = "det-";
  for (char c : absl::AsciiStrToLower(allocation_id)) {
    name += (absl::ascii_isalnum(static_cast<unsigned char>(c)) ? c : '-');
  }
  if (name.size() > 52) {  // the pods add "-<index>-<5 chars>" and must stay within 63
    name = absl::StrCat(name.substr(0, 40), "-", std::hash<std::string>{}(allocation_id) % 100000000);
  }
  while (name.ends_with('-')) name.pop_back();
  return name;
}

KubernetesResourceManager::KubernetesResourceManager(EventLoop& loop, AllocationEvents& events,
                                                     std::shared_ptr<kube::KubeApi> api, KubernetesOptions options)
    : loop_(loop), events_(events), api_(std::move(api)), options_(std::move(options)) {
  if (options_.pools.empty()) options_.pools.push_back({.pool = {.name = "default"}});
  for (KubernetesPoolOptions& pool : options_.pools) {
    // A gang's pods are one Job of one pod template: its parts are all of one size.
    pool.pool.scheduler.allow_heterogeneous_fits = false;
  }
  shared_ = std::make_shared<Shared>();
  shared_->api = api_;
  shared_->request_thread = std::thread([shared = shared_] { shared->RunRequests(); });
  // The classes of tasks without a priority of their own (upstream's Helm chart makes them).
  shared_->Enqueue([api = api_] {
    for (const auto& [name, value] : {std::pair{"determined-system-priority", 1000000}, {"determined-medium-priority", 50}}) {
      absl::StatusOr<json> made = api->Create("/apis/scheduling.k8s.io/v1/priorityclasses",
                                              {{"apiVersion", "scheduling.k8s.io/v1"},
                                               {"kind", "PriorityClass"},
                                               {"metadata", {{"name", name}}},
                                               {"value", value},
                                               {"preemptionPolicy", "Never"},
                                               {"globalDefault", false}});
      if (!made.ok() && !absl::IsAlreadyExists(made.status())) {
        spdlog::warn("kubernetes: making PriorityClass {}: {}", name, made.status().ToString());
      }
    }
  });
  std::weak_ptr<Shared> weak = shared_;
  auto post = [this, weak](std::function<void()> fn) {
    loop_.Post([weak, fn = std::move(fn)] {
      if (auto s = weak.lock(); s && !s->stop) fn();
    });
  };
  shared_->watches.push_back(std::make_unique<kube::ResourceWatch>(
      *api_, "/api/v1/nodes", kube::ListOptions{},
      kube::ResourceWatch::Callbacks{
          .on_list = [this, post](std::vector<json> items) {
            post([this, items = std::move(items)]() mutable { ReplaceNodes(std::move(items)); });
          },
          .on_event = [this, post](const kube::WatchEvent& e) { post([this, e] { ApplyNode(e); }); }}));
  // Every pod of the cluster: others' use the nodes too.
  shared_->watches.push_back(std::make_unique<kube::ResourceWatch>(
      *api_, "/api/v1/pods", kube::ListOptions{},
      kube::ResourceWatch::Callbacks{
          .on_list = [this, post](std::vector<json> items) {
            post([this, items = std::move(items)]() mutable { ReplacePods(std::move(items)); });
          },
          .on_event = [this, post](const kube::WatchEvent& e) { post([this, e] { ApplyPod(e); }); }}));
  shared_->watches.push_back(std::make_unique<kube::ResourceWatch>(
      *api_, absl::StrCat("/api/v1/namespaces/", options_.namespace_name, "/events"),
      kube::ListOptions{.field_selector = "involvedObject.kind=Pod"},
      kube::ResourceWatch::Callbacks{
          .on_list = [](std::vector<json>) {},  // what happened before the master looked is old news
          .on_event = [this, post](const kube::WatchEvent& e) {
            if (e.type == "ADDED" || e.type == "MODIFIED") post([this, object = e.object] { ApplyEvent(object); });
          }}));
}

KubernetesResourceManager::~KubernetesResourceManager() {
  {
    std::lock_guard lock(shared_->mu);
    shared_->stop = true;
  }
  shared_->changed.notify_all();
  shared_->watches.clear();  // joins each watch's thread
  shared_->request_thread.join();
  std::unique_lock lock(shared_->mu);
  shared_->changed.wait(lock, [this] { return shared_->followers == 0; });
}

const KubernetesPoolOptions* KubernetesResourceManager::PoolOf(const std::string& name) const {
  for (const KubernetesPoolOptions& pool : options_.pools) {
    if (pool.pool.name == name) return &pool;
  }
  return nullptr;
}

bool KubernetesResourceManager::NodeInPool(const Node& node, const KubernetesPoolOptions& pool) const {
  const json& spec = options_.slot_type == "cpu" ? pool.cpu_pod_spec : pool.gpu_pod_spec;
  return Matches(node.labels, Field(spec, {"spec", "nodeSelector"}));
}

// ---- The nodes and pods the watches see ----

void KubernetesResourceManager::ReplaceNodes(std::vector<json> items) {
  std::map<std::string, Node> previous = std::move(nodes_);
  nodes_.clear();
  for (json& item : items) {
    std::string name = StringField(item, {"metadata", "name"});
    if (auto old = previous.find(name); old != previous.end()) nodes_[name] = old->second;
    ApplyNode({.type = "ADDED", .object = std::move(item)});
  }
  if (!nodes_listed_) spdlog::info("kubernetes: {} node(s) in view", nodes_.size());
  nodes_listed_ = true;
  Schedule();
}

void KubernetesResourceManager::ApplyNode(const kube::WatchEvent& event) {
  std::string name = StringField(event.object, {"metadata", "name"});
  if (event.type == "DELETED") {
    nodes_.erase(name);
    spdlog::warn("kubernetes: node {} left the cluster", name);
    // What ran there is lost (its pods go with the node); the trials restart elsewhere.
    std::set<std::string> lost;
    for (const auto& [id, alloc] : allocations_) {
      for (const AgentSlots& p : alloc.placements) {
        if (p.agent_id == name && alloc.started) lost.insert(id);
      }
    }
    for (const std::string& id : lost) {
      ReportExit(id, -1, ExitKind::kAgentLost, absl::StrCat("node ", name, " left the cluster"));
    }
    return Schedule();
  }
  auto [it, added] = nodes_.try_emplace(name);
  Node& node = it->second;
  if (added) node.seen = loop_.Now();
  node.labels = Field(event.object, {"metadata", "labels"});
  const json& allocatable = Field(event.object, {"status", "allocatable"});
  node.slots = options_.slot_type == "cpu"
                   ? (options_.cpu_per_slot > 0
                          ? static_cast<int>(std::floor(Quantity(Field(allocatable, {"cpu"})) / options_.cpu_per_slot + 1e-9))
                          : 0)
                   : static_cast<int>(Quantity(Field(allocatable, {"nvidia.com/gpu"})));
  bool ready = true;
  const json& conditions = Field(event.object, {"status", "conditions"});
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (c.value("type", "") == "Ready") ready = c.value("status", "") == "True";
    }
  }
  const json& cordoned = Field(event.object, {"spec", "unschedulable"});
  node.schedulable = ready && !(cordoned.is_boolean() && cordoned.get<bool>());
  if (nodes_listed_) Schedule();
}

void KubernetesResourceManager::ReplacePods(std::vector<json> items) {
  std::set<std::string> listed;
  for (const json& item : items) {
    listed.insert(KeyOf(item));
    UpdatePod(item);
  }
  std::vector<std::string> gone;
  for (const auto& [key, pod] : pods_) {
    if (!listed.count(key)) gone.push_back(key);
  }
  for (const std::string& key : gone) RemovePod(key);
  pods_listed_ = true;
  if (restore_done_ && !orphans_checked_) RemoveOrphans();
  Schedule();
}

void KubernetesResourceManager::ApplyPod(const kube::WatchEvent& event) {
  if (event.type == "DELETED") {
    UpdatePod(event.object);  // its last state (a final exit code) counts
    RemovePod(KeyOf(event.object));
  } else {
    UpdatePod(event.object);
  }
  if (pods_listed_) Schedule();
}

void KubernetesResourceManager::UpdatePod(const json& object) {
  const std::string key = KeyOf(object);
  Pod& pod = pods_[key];
  pod.name = StringField(object, {"metadata", "name"});
  pod.node = StringField(object, {"spec", "nodeName"});
  pod.phase = StringField(object, {"status", "phase"});
  pod.ip = StringField(object, {"status", "podIP"});
  pod.gpus = PodRequest(object, "nvidia.com/gpu");
  pod.cpus = PodRequest(object, "cpu");
  pod.allocation_id = StringField(object, {"metadata", "labels", kAllocationLabel});
  std::string index = StringField(object, {"metadata", "labels", kIndexLabel});
  if (index.empty()) index = StringField(object, {"metadata", "annotations", kIndexLabel});
  if (!absl::SimpleAtoi(index, &pod.rank)) pod.rank = 0;
  pod.waiting.clear();
  const json& conditions = Field(object, {"status", "conditions"});
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") {
        pod.waiting = absl::StrCat(c.value("reason", "Unschedulable"), ": ", c.value("message", ""));
      }
    }
  }
  const json& statuses = Field(object, {"status", "containerStatuses"});
  if (statuses.is_array()) {
    for (const json& status : statuses) {
      if (status.value("name", "") != kContainerName && statuses.size() > 1) continue;
      const json& terminated = Field(status, {"state", "terminated"});
      if (terminated.is_object()) pod.exit_code = terminated.value("exitCode", 1);
      const json& waiting = Field(status, {"state", "waiting"});
      std::string reason = waiting.is_object() ? waiting.value("reason", "") : "";
      if (!reason.empty() && reason != "ContainerCreating" && reason != "PodInitializing") {
        pod.waiting = absl::StrCat(reason, ": ", waiting.value("message", ""));
      }
    }
  }
  if (!pod.allocation_id.empty()) CheckAllocation(pod.allocation_id);
}

void KubernetesResourceManager::RemovePod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  Pod pod = std::move(it->second);
  pods_.erase(it);
  followed_.erase(key);
  auto a = allocations_.find(pod.allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  if (!alloc.exit_codes.count(pod.rank)) {
    int code = pod.exit_code.value_or(kKilledExitCode);
    alloc.exit_codes[pod.rank] = code;
    if (code != 0 && !alloc.first_failure) alloc.first_failure = code;
  }
  CheckAllocation(pod.allocation_id);
}

void KubernetesResourceManager::ApplyEvent(const json& event) {
  if (event.value("type", "") != "Warning") return;
  std::string key = absl::StrCat(StringField(event, {"involvedObject", "namespace"}), "/",
                                 StringField(event, {"involvedObject", "name"}));
  auto pod = pods_.find(key);
  if (pod == pods_.end()) return;
  auto a = allocations_.find(pod->second.allocation_id);
  if (a == allocations_.end()) return;
  std::string text = absl::StrCat("Pod ", pod->second.name, ": ", event.value("reason", ""), ": ",
                                  event.value("message", ""));
  if (a->second.said.insert(text).second) events_.Log(a->first, text);
}

// ---- An allocation's pods ----

void KubernetesResourceManager::CheckAllocation(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || !a->second.started) return;
  Managed& alloc = a->second;
  const int expected = static_cast<int>(alloc.placements.size());
  std::vector<const Pod*> live;
  for (const auto& [key, pod] : pods_) {
    if (pod.allocation_id == allocation_id) live.push_back(&pod);
  }
  for (const Pod* pod : live) {
    alloc.created = true;
    if (!pod->waiting.empty() && pod->phase == "Pending") {
      std::string text = absl::StrCat("Pod ", pod->name, " is pending: ", pod->waiting);
      if (alloc.said.insert(text).second) events_.Log(allocation_id, text);
    }
    if (pod->phase == "Running" || pod->phase == "Succeeded" || pod->phase == "Failed") {
      if (!alloc.process_started) {
        alloc.process_started = true;
        events_.ProcessStarted(allocation_id, absl::StrCat("pod ", pod->name, " on node ", pod->node), 0);
      }
      FollowLogs(*pod, alloc);
    }
    if ((pod->phase == "Succeeded" || pod->phase == "Failed") && !alloc.exit_codes.count(pod->rank)) {
      int code = pod->exit_code.value_or(pod->phase == "Succeeded" ? 0 : 1);
      alloc.exit_codes[pod->rank] = code;
      if (code != 0 && !alloc.first_failure) {
        alloc.first_failure = code;
        if (expected > 1) {
          events_.Log(allocation_id, absl::StrCat("Pod ", pod->name, " (rank ", pod->rank, ") exited with code ", code,
                                                  "; deleting the allocation's other pods"));
        }
      }
    }
  }
  bool all_ended = static_cast<int>(alloc.exit_codes.size()) >= expected;
  // A failed gang, or a killed Job, ends once none of its pods is left.
  bool gone = (alloc.deleting || alloc.first_failure) && alloc.created && live.empty();
  if (alloc.first_failure && !alloc.deleting && !all_ended) DeleteJob(alloc, "a pod failed");
  if (!all_ended && !gone) return;
  // Its output is complete before it ends (`det cmd run echo hi` shows "hi"): the followers end with
  // their pods' logs; a stuck one is given up after kLogDrain.
  if (alloc.logs_following > 0 && !alloc.log_drain_over) {
    if (!alloc.log_drain_armed) {
      alloc.log_drain_armed = true;
      std::weak_ptr<Shared> weak = shared_;
      loop_.PostAfter(kLogDrain, [this, weak, allocation_id] {
        auto s = weak.lock();
        if (!s || s->stop) return;
        if (auto a = allocations_.find(allocation_id); a != allocations_.end()) {
          a->second.log_drain_over = true;
          CheckAllocation(allocation_id);
        }
      });
    }
    return;
  }
  int code = alloc.first_failure.value_or(alloc.deleting && !all_ended ? kKilledExitCode : 0);
  ReportExit(allocation_id, code, ExitKind::kProcessExited,
             alloc.deleting && !alloc.first_failure ? "its pods were deleted" : absl::StrCat("exited with code ", code));
  Schedule();
}

void KubernetesResourceManager::FollowLogs(const Pod& pod, Managed& alloc) {
  const std::string key = absl::StrCat(options_.namespace_name, "/", pod.name);
  if (!options_.write_logs || !followed_.insert(key).second) return;
  {
    std::lock_guard lock(shared_->mu);
    if (shared_->stop) return;
    shared_->followers++;
  }
  api::TaskLog base;
  base.task_id = alloc.request.task_id;
  base.allocation_id = alloc.request.allocation_id;
  base.agent_id = pod.node;
  base.container_id = pod.name;
  if (alloc.placements.size() > 1) base.rank_id = pod.rank;
  // A re-adopted pod's log resumes after the last line the store has (lines it printed while the master
  // was away included), else from the restart.
  std::optional<WallTime> restored_at;
  if (alloc.restored) restored_at = alloc.restored_at;
  std::string path = absl::StrCat("/api/v1/namespaces/", options_.namespace_name, "/pods/", pod.name);
  std::weak_ptr<Shared> weak = shared_;
  auto done = [this, weak, allocation_id = alloc.request.allocation_id] {
    loop_.Post([this, weak, allocation_id] {
      auto s = weak.lock();
      if (!s || s->stop) return;
      if (auto a = allocations_.find(allocation_id); a != allocations_.end()) {
        a->second.logs_following--;
        CheckAllocation(allocation_id);
      }
    });
  };
  std::thread([shared = shared_, write = options_.write_logs, last = options_.last_log_time, base, restored_at, path,
               done] {
    std::optional<WallTime> after = restored_at;
    if (restored_at && last) after = last(base.task_id, base.container_id);
    // The store may keep less than nanoseconds: a line within a microsecond of the last one is that line.
    if (after) after = *after + std::chrono::microseconds(1);
    kube::LogOptions options{.container = kContainerName, .follow = true, .timestamps = true,
                             .since_time = after ? FormatRfc3339(*after - std::chrono::seconds(1)) : ""};
    absl::Status followed = shared->api->Logs(
        path, options,
        [&](std::string_view line) {
          api::TaskLog l = base;
          l.timestamp = std::chrono::system_clock::now();
          size_t space = line.find(' ');
          if (space != std::string_view::npos) {
            if (absl::StatusOr<WallTime> at = ParseRfc3339(std::string(line.substr(0, space))); at.ok()) {
              l.timestamp = *at;
              line.remove_prefix(space + 1);
            }
          }
          if (after && l.timestamp <= *after) return;  // already in the task's logs
          l.log = std::string(line) + "\n";
          l.stdtype = "stdout";
          write({std::move(l)});
        },
        shared->stop);
    if (!followed.ok() && !absl::IsCancelled(followed)) {
      spdlog::warn("kubernetes: following the log of {} ended: {}", path, followed.ToString());
    }
    if (!shared->stop) done();
    std::lock_guard lock(shared->mu);
    shared->followers--;
    shared->changed.notify_all();
  }).detach();
}

// ---- Scheduling ----

int KubernetesResourceManager::ForeignSlots(const std::string& node) const {
  double gpus = 0, cpus = 0;
  for (const auto& [key, pod] : pods_) {
    if (pod.node != node || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    if (!pod.allocation_id.empty() && (allocations_.count(pod.allocation_id) || !restore_done_)) continue;
    gpus += pod.gpus;
    cpus += pod.cpus;
  }
  if (options_.slot_type == "cpu") {
    return options_.cpu_per_slot > 0 ? static_cast<int>(std::ceil(cpus / options_.cpu_per_slot - 1e-9)) : 0;
  }
  return static_cast<int>(std::ceil(gpus - 1e-9));
}

std::map<int, std::string> KubernetesResourceManager::OurSlots(const std::string& node) const {
  std::map<int, std::string> used;
  for (const auto& [id, alloc] : allocations_) {
    for (const AgentSlots& p : alloc.placements) {
      if (p.agent_id != node) continue;
      for (int s : p.slot_ids) used[s] = id;
    }
  }
  return used;
}

scheduler::PoolSnapshot KubernetesResourceManager::PoolSnapshotOf(const std::string& pool_name) const {
  scheduler::PoolSnapshot s;
  s.pool_name = pool_name;
  const KubernetesPoolOptions& pool = *PoolOf(pool_name);
  const int per_pod = std::max(1, options_.max_slots_per_pod);
  for (const auto& [name, node] : nodes_) {
    if (!NodeInPool(node, pool)) continue;
    std::map<int, std::string> ours = OurSlots(name);
    // Others' pods take the highest free slots.
    std::set<int> taken;
    int foreign = ForeignSlots(name);
    for (int slot = node.slots - 1; slot >= 0 && foreign > 0; --slot) {
      if (!ours.count(slot)) {
        taken.insert(slot);
        --foreign;
      }
    }
    const int parts = std::max(1, (node.slots + per_pod - 1) / per_pod);
    for (int part = 0; part < parts; ++part) {
      scheduler::AgentState a;
      a.id = PartId(name, part, parts);
      const int first = part * per_pod;
      const int last = std::min(node.slots, first + per_pod);
      a.total_slots = std::max(0, last - first);
      for (int slot = first; slot < last; ++slot) {
        if (!ours.count(slot) && !taken.count(slot)) a.free_slot_ids.push_back(slot - first);
      }
      a.enabled = node.enabled && node.schedulable;
      a.draining = node.draining;
      a.max_aux_containers = part == 0 ? pool.pool.max_aux_containers_per_agent : 0;
      for (const auto& [id, alloc] : allocations_) {
        for (const AgentSlots& p : alloc.placements) {
          if (part == 0 && p.agent_id == name && p.slot_ids.empty()) a.running_zero_slot++;
        }
      }
      s.agents.push_back(std::move(a));
    }
  }
  for (const auto& [id, alloc] : allocations_) {
    if (alloc.placements.empty() || alloc.pool != pool_name) continue;
    std::vector<AgentSlots> parts;  // as the policies see them
    for (const AgentSlots& p : alloc.placements) {
      auto node = nodes_.find(p.agent_id);
      const int node_parts =
          node == nodes_.end() ? 1 : std::max(1, (node->second.slots + per_pod - 1) / per_pod);
      const int part = p.slot_ids.empty() ? 0 : p.slot_ids.front() / per_pod;
      AgentSlots local{PartId(p.agent_id, part, node_parts), {}, {}};
      for (int slot : p.slot_ids) local.slot_ids.push_back(slot - part * per_pod);
      parts.push_back(std::move(local));
    }
    s.running.push_back(RunningRecord(id, events_.JobOf(id), alloc.request.slots, parts, alloc.start_order));
  }
  for (const std::string& id : pending_) {
    JobAttributes job = events_.JobOf(id);
    if (job.resource_pool != pool_name) continue;
    s.pending.push_back(PendingRecord(id, std::move(job), allocations_.at(id).request.slots,
                                      allocations_.at(id).request_order));
  }
  return s;
}

std::vector<PoolSummary> KubernetesResourceManager::Pools() const {
  std::vector<PoolSummary> out;
  for (const KubernetesPoolOptions& pool : options_.pools) {
    PoolSummary summary;
    summary.options = pool.pool;
    summary.cluster_name = options_.cluster_name;
    summary.slot_type = options_.slot_type;
    for (const auto& [name, node] : nodes_) {
      if (!NodeInPool(node, pool)) continue;
      summary.num_agents += 1;
      summary.slots_used += static_cast<int>(OurSlots(name).size());
      if (!node.enabled || !node.schedulable) continue;
      summary.slots_available += node.slots;
      summary.aux_capacity += pool.pool.max_aux_containers_per_agent;
    }
    for (const auto& [id, alloc] : allocations_) {
      if (alloc.pool == pool.pool.name && !alloc.placements.empty() && alloc.request.slots == 0) summary.aux_running++;
    }
    out.push_back(std::move(summary));
  }
  return out;
}

absl::Status KubernetesResourceManager::CheckFits(const std::string& pool, int slots, bool single_node,
                                                  const std::set<std::string>& blocked) const {
  const int per_pod = options_.max_slots_per_pod;
  if (slots > per_pod && (single_node || slots % per_pod != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resources.slots_per_trial: ", slots, " slots do not ",
        single_node ? "fit one pod" : "split into pods", ": the Kubernetes resource manager's max_slots_per_pod is ",
        per_pod, ", so a task asks for at most ", per_pod, " slots or a multiple of ", per_pod));
  }
  if (PoolOf(pool) == nullptr) return absl::NotFoundError(absl::StrCat("resource pool ", pool, " not found"));
  scheduler::PoolSnapshot snapshot = PoolSnapshotOf(pool);
  if (snapshot.agents.empty()) return absl::OkStatus();
  std::erase_if(snapshot.agents, [&](const scheduler::AgentState& a) {
    return blocked.count(SplitPartId(a.id).first) > 0;
  });
  scheduler::PendingRequest request;
  request.slots = slots;
  request.single_node = single_node;
  return scheduler::CheckFeasible(snapshot, request, false);
}

void KubernetesResourceManager::Request(const AllocationRequest& request) {
  Managed& alloc = allocations_[request.allocation_id];
  alloc.request = request;
  alloc.request_order = next_request_order_++;
  pending_.push_back(request.allocation_id);
}

void KubernetesResourceManager::Schedule() {
  // Nothing is placed before the nodes and every pod on them are known.
  if (!nodes_listed_ || !pods_listed_ || !events_.MayStartWork()) return;
  for (const KubernetesPoolOptions& pool : options_.pools) SchedulePool(pool);
}

void KubernetesResourceManager::SchedulePool(const KubernetesPoolOptions& pool) {
  scheduler::PoolSnapshot snapshot = PoolSnapshotOf(pool.pool.name);
  if (snapshot.pending.empty()) return;
  scheduler::Decision decision = scheduler::Schedule(pool.pool.scheduler, snapshot);
  for (const std::string& id : decision.to_preempt) {
    if (!allocations_.count(id)) continue;
    events_.ReclaimRequested(id,
                             absl::StrCat("The ", scheduler::ConfigName(pool.pool.scheduler.type), " scheduler of pool ",
                                          pool.pool.name, " preempts this task to give its slots to other work"),
                             false);
  }
  std::set<std::string> started;
  for (const std::string& id : decision.infeasible) {
    auto a = allocations_.find(id);
    if (a == allocations_.end() || a->second.waiting_logged) continue;
    a->second.waiting_logged = true;
    events_.Log(id, absl::StrCat("The nodes now in pool ", pool.pool.name, " cannot hold ", a->second.request.slots,
                                 " slot(s); waiting for more nodes"));
  }
  for (const scheduler::StartDecision& start : decision.to_start) {
    auto a = allocations_.find(start.allocation_id);
    if (a == allocations_.end()) continue;
    pending_.erase(std::find(pending_.begin(), pending_.end(), start.allocation_id));
    started.insert(start.allocation_id);
    Place(a->second, start.placements, start.backfilled, pool.pool.name);
  }
  for (const std::string& id : pending_) {
    if (started.count(id)) continue;
    if (auto a = allocations_.find(id); a != allocations_.end() && events_.JobOf(id).resource_pool == pool.pool.name) {
      SayWaiting(a->second, pool.pool.name);
    }
  }
}

void KubernetesResourceManager::SayWaiting(Managed& alloc, const std::string& pool) {
  if (alloc.waiting_logged) return;
  alloc.waiting_logged = true;
  int free = 0, total = 0;
  for (const auto& [name, node] : nodes_) {
    if (!NodeInPool(node, *PoolOf(pool))) continue;
    total += node.slots;
    free += std::max(0, node.slots - static_cast<int>(OurSlots(name).size()) - ForeignSlots(name));
  }
  events_.Log(alloc.request.allocation_id,
              absl::StrCat("Waiting for ", alloc.request.slots, " slot(s) in pool ", pool, " (", free, " of ", total,
                           " free on its nodes); the Job is created once all of its pods fit"));
}

void KubernetesResourceManager::Place(Managed& alloc, const std::vector<scheduler::SlotPlacement>& placements,
                                      bool backfilled, const std::string& pool) {
  const int per_pod = std::max(1, options_.max_slots_per_pod);
  alloc.pool = pool;
  alloc.start_order = next_start_order_++;
  alloc.placements.clear();
  for (const scheduler::SlotPlacement& p : placements) {
    auto [node, part] = SplitPartId(p.agent_id);
    AgentSlots placed{node, {}, {}};
    for (int slot : p.slot_ids) {
      placed.slot_ids.push_back(slot + part * per_pod);
      placed.devices.push_back({.id = slot + part * per_pod, .type = options_.slot_type,
                                .device = options_.slot_type == "cpu" ? "cpu" : "nvidia.com/gpu"});
    }
    alloc.placements.push_back(std::move(placed));
  }
  events_.Placed(alloc.request.allocation_id,
                 Placement{.pool = pool, .processes = alloc.placements, .backfilled = backfilled});
}

// ---- Running ----

void KubernetesResourceManager::Start(const std::string& allocation_id, const ProcessLaunch& launch) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  alloc.started = true;
  const KubernetesPoolOptions& pool = *PoolOf(alloc.pool);
  const int pods = static_cast<int>(alloc.placements.size());
  int slots_per_pod = 0;
  std::set<std::string> nodes;
  for (const AgentSlots& p : alloc.placements) {
    slots_per_pod = std::max(slots_per_pod, static_cast<int>(p.slot_ids.size()));
    nodes.insert(p.agent_id);
  }
  const bool gpu = options_.slot_type == "cuda" && slots_per_pod > 0;

  kube::JobSpecInput in;
  in.namespace_name = options_.namespace_name;
  in.job_name = JobName(allocation_id);
  in.allocation_id = allocation_id;
  in.task_id = alloc.request.task_id;
  in.task_type = launch.task_type;
  auto user = launch.env.find("DET_USER");
  in.user = user != launch.env.end() ? user->second : "";
  in.workspace = std::to_string(launch.workspace_id);
  in.resource_pool = alloc.pool;
  in.image = ImageOf(launch.environment, gpu ? "cuda" : "cpu", options_.default_image);
  const json& force_pull = Field(launch.environment, {"force_pull_image"});
  in.force_pull_image = force_pull.is_boolean() && force_pull.get<bool>();
  in.command = options_.runner_command;
  in.env = launch.env;
  in.env["DET_MASTER"] = options_.master_url;
  in.env["DET_RESOURCES_TYPE"] = "k8s-pod";
  in.env["DET_POD_COUNT"] = std::to_string(pods);
  std::vector<int> slot_ids;  // as a pod sees its devices
  for (int i = 0; i < slots_per_pod; ++i) slot_ids.push_back(i);
  in.env["DET_SLOT_IDS"] = absl::StrCat("[", absl::StrJoin(slot_ids, ","), "]");
  in.task_json = json{{"entrypoint", launch.entrypoint},
                      {"work_dir", launch.work_dir},
                      {"download_context", launch.download_context},
                      {"pods", pods},
                      {"slots_per_pod", slots_per_pod}}
                     .dump();
  in.pods = pods;
  in.slots_per_pod = slots_per_pod;
  in.slot_type = options_.slot_type;
  in.cpu_per_slot = options_.cpu_per_slot;
  in.priority = events_.JobOf(allocation_id).priority;
  in.pool_pod_spec = gpu ? pool.gpu_pod_spec : pool.cpu_pod_spec;
  in.env_pod_spec = Field(launch.environment, {"pod_spec"});
  for (const api::TaskMount& m : launch.mounts) {
    in.bind_mounts.push_back({.host_path = m.host_path, .container_path = m.container_path, .read_only = m.read_only});
  }
  if (launch.user) in.run_as = kube::JobSpecInput::RunAs{.uid = launch.user->uid, .gid = launch.user->gid};
  in.blocked_nodes = events_.JobOf(allocation_id).blocked_agents;
  absl::StatusOr<kube::JobObjects> objects = kube::BuildJobObjects(in);
  if (!objects.ok()) {
    return ReportExit(allocation_id, 1, ExitKind::kProcessExited,
                      absl::StrCat("could not make its Kubernetes Job: ", objects.status().message()));
  }
  // The master chose the nodes: the pods may go nowhere else.
  json& pod_spec = objects->job["spec"]["template"]["spec"];
  if (nodes.size() == 1) {
    pod_spec["nodeSelector"]["kubernetes.io/hostname"] = *nodes.begin();
  } else if (!Field(pod_spec, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"}).is_object()) {
    pod_spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
        {"nodeSelectorTerms",
         json::array({{{"matchExpressions",
                        json::array({{{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", nodes}}})}}})}};
  }
  const std::string ns = options_.namespace_name;
  std::weak_ptr<Shared> weak = shared_;
  shared_->Enqueue([this, weak, objects = std::move(*objects), ns, allocation_id] {
    auto s = weak.lock();
    if (!s) return;
    auto created = [&](absl::StatusOr<json> result) {
      return result.ok() || absl::IsAlreadyExists(result.status()) ? absl::OkStatus() : result.status();
    };
    absl::Status status = absl::OkStatus();
    if (objects.priority_class) {
      status = created(s->api->Create("/apis/scheduling.k8s.io/v1/priorityclasses", *objects.priority_class));
    }
    if (status.ok()) status = created(s->api->Create(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"), objects.config_map));
    if (status.ok()) status = created(s->api->Create(absl::StrCat("/apis/batch/v1/namespaces/", ns, "/jobs"), objects.job));
    loop_.Post([this, weak, allocation_id, status] {
      auto s = weak.lock();
      if (!s || s->stop) return;
      auto a = allocations_.find(allocation_id);
      if (a == allocations_.end()) return;
      if (!status.ok()) {
        return ReportExit(allocation_id, 1, ExitKind::kProcessExited,
                          absl::StrCat("could not create its Kubernetes Job: ", status.message()));
      }
      a->second.created = true;
      if (a->second.deleting) DeleteJob(a->second, "it was killed while its Job was being created");
    });
  });
}

void KubernetesResourceManager::DeleteJob(Managed& alloc, const std::string& why) {
  alloc.deleting = true;
  if (!alloc.created || alloc.delete_sent) return;  // not created yet: deleted once its creation returns
  alloc.delete_sent = true;
  spdlog::info("kubernetes: deleting the Job of allocation {} ({})", alloc.request.allocation_id, why);
  const std::string path = absl::StrCat("/apis/batch/v1/namespaces/", options_.namespace_name, "/jobs/",
                                        JobName(alloc.request.allocation_id));
  const std::string allocation_id = alloc.request.allocation_id;
  std::weak_ptr<Shared> weak = shared_;
  shared_->Enqueue([this, weak, path, allocation_id] {
    auto s = weak.lock();
    if (!s) return;
    absl::Status deleted = s->api->Delete(path, "Background");
    if (!deleted.ok() && !absl::IsNotFound(deleted)) {
      spdlog::warn("kubernetes: deleting {} failed: {}", path, deleted.ToString());
    }
    loop_.Post([this, weak, allocation_id] {
      if (auto s = weak.lock(); s && !s->stop) CheckAllocation(allocation_id);
    });
  });
}

void KubernetesResourceManager::Kill(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  DeleteJob(a->second, "killed");
  CheckAllocation(allocation_id);
}

void KubernetesResourceManager::Requeue(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  alloc.placements.clear();
  alloc.started = false;
  alloc.pool.clear();
  alloc.waiting_logged = false;
  pending_.push_front(allocation_id);
}

void KubernetesResourceManager::Release(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  const bool started = alloc.started;
  std::erase(pending_, allocation_id);
  allocations_.erase(a);
  if (!started) return;
  // Its Job (and what came with it) goes, unless the config keeps them to look at; a Job still running
  // is deleted either way.
  const std::string ns = options_.namespace_name;
  const std::string name = JobName(allocation_id);
  const bool keep = options_.leave_kubernetes_resources;
  std::weak_ptr<Shared> weak = shared_;
  shared_->Enqueue([weak, ns, name, keep] {
    auto s = weak.lock();
    if (!s) return;
    auto quiet = [](const absl::Status& st, const std::string& what) {
      if (!st.ok() && !absl::IsNotFound(st)) spdlog::warn("kubernetes: deleting {} failed: {}", what, st.ToString());
    };
    if (keep) {
      absl::StatusOr<json> job = s->api->Get(absl::StrCat("/apis/batch/v1/namespaces/", ns, "/jobs/", name));
      const json& active = job.ok() ? Field(*job, {"status", "active"}) : json();
      if (!active.is_number() || active.get<int>() == 0) return;
    }
    quiet(s->api->Delete(absl::StrCat("/apis/batch/v1/namespaces/", ns, "/jobs/", name), "Background"), name);
    if (keep) return;
    quiet(s->api->Delete(absl::StrCat("/api/v1/namespaces/", ns, "/configmaps/", name), ""), name);
    const std::string priority_class = kube::PriorityClassName(name);
    quiet(s->api->Delete(absl::StrCat("/apis/scheduling.k8s.io/v1/priorityclasses/", priority_class), ""),
          priority_class);
  });
}

void KubernetesResourceManager::ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind,
                                           const std::string& why) {
  Release(allocation_id);
  events_.Exited(allocation_id, exit_code, kind, why);
}

void KubernetesResourceManager::Restore(const Allocation& record) {
  Managed& alloc = allocations_[record.allocation_id];
  alloc.request = {.allocation_id = record.allocation_id, .task_id = record.task_id, .slots = record.slots};
  alloc.start_order = next_start_order_++;
  alloc.pool = record.resource_pool;
  alloc.placements = record.placements;
  alloc.started = true;
  alloc.created = true;
  alloc.restored = true;
  alloc.process_started = record.state == AllocationState::kRunning;
  alloc.restored_at = loop_.Now();
}

void KubernetesResourceManager::RestoreDone() {
  restore_done_ = true;
  if (pods_listed_) RemoveOrphans();
}

void KubernetesResourceManager::RemoveOrphans() {
  orphans_checked_ = true;
  // A restored allocation whose pods are all gone ended while the master was away.
  std::vector<std::string> lost;
  for (auto& [id, alloc] : allocations_) {
    if (!alloc.restored) continue;
    bool any = false;
    for (const auto& [key, pod] : pods_) any = any || pod.allocation_id == id;
    if (!any) lost.push_back(id);
  }
  for (const std::string& id : lost) {
    ReportExit(id, -1, ExitKind::kAgentLost, "its pods are gone: they ended or were deleted while the master was away");
  }
  // Pods of allocations the master no longer has: their Jobs go.
  std::set<std::string> orphans;
  for (const auto& [key, pod] : pods_) {
    if (!pod.allocation_id.empty() && !allocations_.count(pod.allocation_id) && pod.phase != "Succeeded" &&
        pod.phase != "Failed") {
      orphans.insert(pod.allocation_id);
    }
  }
  for (const std::string& id : orphans) {
    spdlog::warn("kubernetes: allocation {} is not the master's any more; deleting its Job", id);
    std::weak_ptr<Shared> weak = shared_;
    std::string path = absl::StrCat("/apis/batch/v1/namespaces/", options_.namespace_name, "/jobs/", JobName(id));
    shared_->Enqueue([weak, path] {
      if (auto s = weak.lock()) s->api->Delete(path, "Background").IgnoreError();
    });
  }
  std::vector<std::string> ids;  // checking one may end it
  for (const auto& [id, alloc] : allocations_) ids.push_back(id);
  for (const std::string& id : ids) CheckAllocation(id);
  Schedule();
}

// ---- Views ----

std::vector<scheduler::QueuedJob> KubernetesResourceManager::QueueOrder(const std::string& pool) const {
  return scheduler::JobQueue(PoolOf(pool)->pool.scheduler, PoolSnapshotOf(pool));
}

std::vector<QueuedJobView> KubernetesResourceManager::JobQueue() const {
  std::vector<QueuedJobView> out;
  for (const KubernetesPoolOptions& pool : options_.pools) {
    std::vector<QueuedJobView> views =
        QueueViews(pool.pool.name, pool.pool.scheduler, PoolSnapshotOf(pool.pool.name), [](const std::string&) {
          return false;
        });
    out.insert(out.end(), views.begin(), views.end());
  }
  return out;
}

std::optional<Rendezvous> KubernetesResourceManager::RendezvousOf(const std::string& allocation_id) const {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || a->second.placements.empty()) return std::nullopt;
  const size_t pods = a->second.placements.size();
  Rendezvous out;
  out.addresses.resize(pods);
  for (const auto& [key, pod] : pods_) {
    if (pod.allocation_id == allocation_id && pod.rank >= 0 && static_cast<size_t>(pod.rank) < pods) {
      out.addresses[pod.rank] = pod.ip;
    }
  }
  for (const std::string& address : out.addresses) {
    if (address.empty()) return std::nullopt;
  }
  for (const AgentSlots& p : a->second.placements) out.slots.push_back(static_cast<int>(p.slot_ids.size()));
  return out;
}

std::optional<std::string> KubernetesResourceManager::ChiefAddress(const std::string& allocation_id) const {
  for (const auto& [key, pod] : pods_) {
    if (pod.allocation_id == allocation_id && pod.rank == 0 && !pod.ip.empty()) return pod.ip;
  }
  return std::nullopt;
}

AgentSummary KubernetesResourceManager::SummaryOf(const std::string& name, const Node& node) const {
  AgentSummary out;
  out.identity.id = name;
  out.identity.hostname = name;
  for (const KubernetesPoolOptions& pool : options_.pools) {
    if (NodeInPool(node, pool)) {
      out.identity.resource_pool = pool.pool.name;
      break;
    }
  }
  out.identity.version = "kubernetes";
  out.registered_time = node.seen;
  for (int slot = 0; slot < node.slots; ++slot) {
    out.slots.push_back({.id = slot, .type = options_.slot_type,
                         .device = options_.slot_type == "cpu" ? "cpu" : "nvidia.com/gpu"});
  }
  out.slot_allocations = OurSlots(name);
  out.enabled = node.enabled && node.schedulable;
  out.draining = node.draining;
  return out;
}

std::vector<AgentSummary> KubernetesResourceManager::Agents() const {
  std::vector<AgentSummary> out;
  for (const auto& [name, node] : nodes_) out.push_back(SummaryOf(name, node));
  return out;
}

absl::StatusOr<AgentSummary> KubernetesResourceManager::SetAgentEnabled(const std::string& agent_id, bool enabled,
                                                                        bool drain) {
  auto it = nodes_.find(agent_id);
  if (it == nodes_.end()) return absl::NotFoundError(absl::StrCat("agent (node) ", agent_id, " is not in the cluster"));
  it->second.enabled = enabled;
  it->second.draining = !enabled && drain;
  if (!enabled && !drain) {
    std::set<std::string> ids;
    for (const auto& [id, alloc] : allocations_) {
      for (const AgentSlots& p : alloc.placements) {
        if (p.agent_id == agent_id) ids.insert(id);
      }
    }
    for (const std::string& id : ids) events_.ReclaimRequested(id, absl::StrCat("Node ", agent_id, " was disabled"), true);
  }
  return SummaryOf(agent_id, it->second);
}

absl::StatusOr<AgentSummary> KubernetesResourceManager::SetSlotEnabled(const std::string& agent_id, int, bool, bool) {
  return absl::FailedPreconditionError(absl::StrCat(
      "slots of Kubernetes node ", agent_id,
      " cannot be enabled or disabled one by one (Kubernetes hands out GPUs, not the master); disable the whole "
      "node with `det agent disable`"));
}

absl::StatusOr<WebSocketHandlers> KubernetesResourceManager::ConnectAgent(AgentIdentity agent,
                                                                          std::shared_ptr<WebSocketConnection>) {
  return absl::FailedPreconditionError(
      absl::StrCat("agent ", agent.id, ": resource pool ", agent.resource_pool, " belongs to the Kubernetes resource manager ",
                   options_.cluster_name, ", which runs tasks as pods; agents cannot join it"));
}

}  // namespace det::master
