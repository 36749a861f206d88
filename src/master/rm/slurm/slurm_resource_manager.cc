#include "master/rm/slurm/slurm_resource_manager.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"
#include "common/file_util.h"
#include "master/rm/slurm/batch_script.h"

namespace det::master {

using nlohmann::json;
using slurm::SlurmJob;

namespace {

constexpr char kJobIdFile[] = "slurm-job-id";
// Polls after which a submitted job Slurm does not list has ended without a trace.
constexpr int kUnknownPollsToLose = 3;

bool JobEnded(const std::string& state) {
  return !state.empty() && state != "PENDING" && state != "RUNNING" && state != "SUSPENDED" &&
         state != "COMPLETING" && state != "CONFIGURING" && state != "RESIZING" && state != "REQUEUED";
}

bool Runs(const std::string& state) { return state == "RUNNING" || state == "COMPLETING"; }

std::optional<std::string> ReadSmallFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  return text.ok() ? std::optional(*std::move(text)) : std::nullopt;
}

// The exit status the job's batch script wrote into its directory, once the job ended.
std::optional<int> ReadExitStatus(const std::string& job_dir) {
  std::optional<std::string> text = ReadSmallFile(slurm::ExitStatusFile(job_dir));
  int status = 0;
  if (!text || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &status)) return std::nullopt;
  return status;
}

// The last lines of the batch job's output (what went wrong before the runner could ship anything).
std::string OutputTail(const std::string& job_dir, const std::string& job_id) {
  std::optional<std::string> out = ReadSmallFile(absl::StrCat(job_dir, "/slurm-", job_id, ".out"));
  if (!out) return "";
  std::string text = out->size() > 2000 ? out->substr(out->size() - 2000) : *out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// What the poller learned of one job of the master's.
struct Observation {
  std::string allocation_id;
  std::string job_id;
  std::optional<SlurmJob> job;     // unset: Slurm does not list it
  std::optional<int> exit_status;  // from the job directory, once the job ended
  std::string output_tail;         // when it ended badly
};

}  // namespace

struct SlurmResourceManager::Shared {
  std::shared_ptr<slurm::SlurmClient> client;
  std::mutex mu;
  std::condition_variable changed;     // the poller's: stop, or poll now
  std::condition_variable work_ready;  // the workers': stop, or work
  bool stop = false;
  std::deque<std::function<void()>> work;  // submits, signals, cancels
  // What the poller asks Slurm about: job id -> (allocation id, job dir).
  std::map<std::string, std::pair<std::string, std::string>> watched;
  // Restored allocations without a job id yet: allocation id -> job dir.
  std::map<std::string, std::string> unresolved;
  bool poll_now = false;
  std::vector<std::thread> threads;

  void Enqueue(std::function<void()> fn) {
    {
      std::lock_guard lock(mu);
      work.push_back(std::move(fn));
    }
    work_ready.notify_one();
  }

  void RunWork() {
    while (true) {
      std::function<void()> fn;
      {
        std::unique_lock lock(mu);
        work_ready.wait(lock, [this] { return stop || !work.empty(); });
        if (stop) return;
        fn = std::move(work.front());
        work.pop_front();
      }
      fn();
    }
  }

  // Sleeps up to `d`; false once stopping.
  bool Wait(std::chrono::milliseconds d) {
    std::unique_lock lock(mu);
    changed.wait_for(lock, d, [this] { return stop || poll_now; });
    poll_now = false;
    return !stop;
  }
};

std::string SlurmResourceManager::JobName(const std::string& allocation_id) { return absl::StrCat("det-", allocation_id); }

std::string SlurmResourceManager::Wckey(const std::string& source, const ProcessLaunch& launch) {
  if (source == "project") return launch.project_name;
  if (source == "workspace") return launch.workspace_name;
  if (source != "label" && !source.starts_with("label:")) return "";
  const std::string prefix = source == "label" ? "" : source.substr(6);
  std::vector<std::string> picked;
  for (const std::string& label : launch.labels) {
    if (label.starts_with(prefix) && label.size() > prefix.size()) picked.push_back(label.substr(prefix.size()));
  }
  return absl::StrJoin(picked, "_");
}

std::string SlurmResourceManager::JobDir(const std::string& allocation_id) const {
  return absl::StrCat(options_.job_storage_root, "/", allocation_id);
}

SlurmResourceManager::SlurmResourceManager(EventLoop& loop, AllocationEvents& events,
                                           std::shared_ptr<slurm::SlurmClient> client, SlurmOptions options)
    : loop_(loop), events_(events), client_(std::move(client)), options_(std::move(options)), started_(loop.Now()) {
  shared_ = std::make_shared<Shared>();
  shared_->client = client_;
  for (int i = 0; i < std::max(1, options_.submit_threads); ++i) {
    shared_->threads.emplace_back([s = shared_] { s->RunWork(); });
  }
  shared_->threads.emplace_back([this] {
    auto last_refresh = std::chrono::steady_clock::now();
    while (shared_->Wait(options_.poll_interval)) {
      PollOnce();
      if (std::chrono::steady_clock::now() - last_refresh < options_.partitions_refresh) continue;
      last_refresh = std::chrono::steady_clock::now();
      absl::StatusOr<std::vector<slurm::SlurmPartition>> partitions = client_->Partitions();
      absl::StatusOr<std::vector<slurm::SlurmNode>> nodes = client_->Nodes();
      if (!partitions.ok() || !nodes.ok()) {
        spdlog::warn("slurm: reading the partitions: {}",
                     (!partitions.ok() ? partitions.status() : nodes.status()).ToString());
        continue;
      }
      std::weak_ptr<Shared> weak = shared_;
      loop_.Post([this, weak, partitions = std::move(*partitions), nodes = std::move(*nodes)]() mutable {
        auto s = weak.lock();
        if (!s || s->stop) return;
        // The pools stay those the master started with; their nodes and slots follow Slurm.
        for (slurm::SlurmPartition& fresh : partitions) {
          for (slurm::SlurmPartition& known : options_.partitions) {
            if (known.name == fresh.name) known = std::move(fresh);
          }
        }
        options_.nodes = std::move(nodes);
      });
    }
  });
}

SlurmResourceManager::~SlurmResourceManager() {
  {
    std::lock_guard lock(shared_->mu);
    shared_->stop = true;
  }
  shared_->changed.notify_all();
  shared_->work_ready.notify_all();
  for (std::thread& t : shared_->threads) t.join();
}

// ---- Polling (the poller's thread) ----

void SlurmResourceManager::PollOnce() {
  std::map<std::string, std::pair<std::string, std::string>> watched;
  std::map<std::string, std::string> unresolved;
  {
    std::lock_guard lock(shared_->mu);
    watched = shared_->watched;
    unresolved = shared_->unresolved;
  }
  if (watched.empty() && unresolved.empty()) return;
  // Restored allocations: their job id from the job directory, else by the job's name; for one Slurm has
  // no job of, the exit status its job left, if any.
  struct Resolution {
    std::optional<std::string> job_id;
    std::optional<int> exit_status;
  };
  std::map<std::string, Resolution> resolved;
  std::vector<std::string> ids;
  for (const auto& [id, where] : watched) ids.push_back(id);
  bool by_name = false;
  for (const auto& [allocation_id, dir] : unresolved) {
    std::optional<std::string> text = ReadSmallFile(absl::StrCat(dir, "/", kJobIdFile));
    std::string id = text ? std::string(absl::StripAsciiWhitespace(*text)) : "";
    if (!id.empty()) {
      resolved[allocation_id].job_id = id;
      ids.push_back(id);
      watched[id] = {allocation_id, dir};
    } else {
      by_name = true;
    }
  }
  absl::StatusOr<std::vector<SlurmJob>> jobs = client_->Jobs(by_name ? std::vector<std::string>{} : ids);
  if (!jobs.ok()) {
    spdlog::warn("slurm: reading the jobs' states: {}", jobs.status().ToString());
    return;
  }
  for (const auto& [allocation_id, dir] : unresolved) {
    if (resolved.count(allocation_id)) continue;
    Resolution& r = resolved[allocation_id];
    for (const SlurmJob& job : *jobs) {
      if (job.name == JobName(allocation_id)) {
        r.job_id = job.id;
        watched[job.id] = {allocation_id, dir};
      }
    }
    if (!r.job_id) r.exit_status = ReadExitStatus(dir);
  }
  std::vector<Observation> seen;
  for (const auto& [job_id, where] : watched) {
    Observation o{.allocation_id = where.first, .job_id = job_id};
    for (const SlurmJob& job : *jobs) {
      if (job.id == job_id) o.job = job;
    }
    if (!o.job || JobEnded(o.job->state)) {
      o.exit_status = ReadExitStatus(where.second);
      if (o.exit_status.value_or(1) != 0) o.output_tail = OutputTail(where.second, job_id);
    }
    seen.push_back(std::move(o));
  }
  std::weak_ptr<Shared> weak = shared_;
  loop_.Post([this, weak, resolved = std::move(resolved), seen = std::move(seen)] {
    auto s = weak.lock();
    if (!s || s->stop) return;
    for (const auto& [allocation_id, resolution] : resolved) {
      const std::optional<std::string>& job_id = resolution.job_id;
      {
        std::lock_guard lock(shared_->mu);
        shared_->unresolved.erase(allocation_id);
      }
      auto a = allocations_.find(allocation_id);
      if (a == allocations_.end()) continue;
      if (!job_id) {
        if (const std::optional<int> code = resolution.exit_status) {
          ReportExit(allocation_id, *code, ExitKind::kProcessExited,
                     absl::StrCat("its Slurm job ended with status ", *code, " while the master was away"));
        } else {
          ReportExit(allocation_id, -1, ExitKind::kAgentLost,
                     "Slurm has no job of it: it ended or was cancelled while the master was away");
        }
        continue;
      }
      a->second.job_id = *job_id;
      std::lock_guard lock(shared_->mu);
      shared_->watched[*job_id] = {allocation_id, JobDir(allocation_id)};
    }
    for (const Observation& o : seen) {
      auto a = allocations_.find(o.allocation_id);
      if (a == allocations_.end() || a->second.job_id != o.job_id) continue;
      Managed& alloc = a->second;
      if (o.job) {
        alloc.unknown_polls = 0;
        alloc.state = o.job->state;
        alloc.reason = o.job->reason;
        if (!o.job->nodes.empty()) alloc.nodes = o.job->nodes;
      } else if (!o.exit_status && ++alloc.unknown_polls < kUnknownPollsToLose) {
        continue;
      }
      if (Runs(alloc.state) && !alloc.process_started) {
        alloc.process_started = true;
        events_.Log(o.allocation_id, absl::StrCat("Slurm job ", o.job_id, " runs on ", absl::StrJoin(alloc.nodes, ",")));
        events_.ProcessStarted(o.allocation_id, alloc.nodes.empty() ? "" : alloc.nodes.front(), 0);
      }
      if (alloc.state == "PENDING" && !alloc.reason.empty() && alloc.reasons_said.insert(alloc.reason).second) {
        events_.Log(o.allocation_id, absl::StrCat("Slurm job ", o.job_id, " is pending: ", alloc.reason));
      }
      if (o.job && !JobEnded(o.job->state)) continue;
      // Ended, or forgotten by Slurm.
      if (!o.output_tail.empty()) {
        events_.Log(o.allocation_id, absl::StrCat("the Slurm job's output ends with:\n", o.output_tail));
      }
      const std::string what = o.job ? absl::StrCat(o.job->state, o.job->reason.empty() ? "" : " (" + o.job->reason + ")")
                                     : "gone from Slurm";
      if (o.exit_status) {
        ReportExit(o.allocation_id, *o.exit_status, ExitKind::kProcessExited,
                   absl::StrCat("Slurm job ", o.job_id, " ", what, ", exit status ", *o.exit_status));
      } else if (o.job && o.job->exit_code && !alloc.kill_requested) {
        ReportExit(o.allocation_id, *o.job->exit_code, ExitKind::kProcessExited,
                   absl::StrCat("Slurm job ", o.job_id, " ", what, ", exit status ", *o.job->exit_code));
      } else if (alloc.kill_requested) {
        ReportExit(o.allocation_id, 137, ExitKind::kProcessExited, absl::StrCat("Slurm job ", o.job_id, " was cancelled"));
      } else {
        ReportExit(o.allocation_id, -1, ExitKind::kAgentLost,
                   absl::StrCat("Slurm job ", o.job_id, " ", what, " before its tasks wrote an exit status"));
      }
    }
  });
}

// ---- Placing and starting ----

std::string SlurmResourceManager::SlotTypeOf(const slurm::SlurmPartition& partition) const {
  auto it = options_.partition_slot_types.find(partition.name);
  if (it != options_.partition_slot_types.end() && !it->second.empty()) return it->second;
  if (!options_.slot_type.empty()) return options_.slot_type;
  return partition.total_gpus > 0 ? "cuda" : "cpu";
}

int SlurmResourceManager::SlotsOfNode(const slurm::SlurmNode& node, const std::string& slot_type) const {
  return slot_type == "cpu" ? node.cpus : node.gpus;
}

const slurm::SlurmPartition* SlurmResourceManager::PartitionOf(const std::string& name) const {
  for (const slurm::SlurmPartition& p : options_.partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::pair<int, int> SlurmResourceManager::Layout(const std::string& pool, int slots,
                                                 const nlohmann::json& slurm_section) const {
  if (slots <= 0) return {1, 0};
  if (slurm_section.is_object() && slurm_section.contains("slots_per_node") &&
      slurm_section["slots_per_node"].is_number_integer()) {
    const int per_task = std::max(1, slurm_section["slots_per_node"].get<int>());
    return {(slots + per_task - 1) / per_task, per_task};
  }
  // As few tasks as the partition's biggest node allows.
  int biggest = 0;
  if (const slurm::SlurmPartition* p = PartitionOf(pool)) {
    const std::string type = SlotTypeOf(*p);
    for (const slurm::SlurmNode& node : options_.nodes) {
      if (std::find(p->nodes.begin(), p->nodes.end(), node.name) != p->nodes.end()) {
        biggest = std::max(biggest, SlotsOfNode(node, type));
      }
    }
  }
  if (biggest <= 0 || slots <= biggest) return {1, slots};
  return {(slots + biggest - 1) / biggest, biggest};
}

absl::Status SlurmResourceManager::CheckFits(const std::string& pool, int slots, bool single_node,
                                             const std::set<std::string>&) const {
  const slurm::SlurmPartition* p = PartitionOf(pool);
  if (p == nullptr) return absl::NotFoundError(absl::StrCat("resource pool ", pool, " not found"));
  const std::string type = SlotTypeOf(*p);
  int total = 0;
  int biggest = 0;
  for (const slurm::SlurmNode& node : options_.nodes) {
    if (std::find(p->nodes.begin(), p->nodes.end(), node.name) == p->nodes.end()) continue;
    total += SlotsOfNode(node, type);
    biggest = std::max(biggest, SlotsOfNode(node, type));
  }
  const int room = single_node ? biggest : total;
  if (slots > room) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resources.slots_per_trial: ", slots, " slots do not fit Slurm partition ", pool, ", which has ", total,
        " ", type == "cpu" ? "CPUs" : "GPUs", single_node ? absl::StrCat(" (at most ", biggest, " on one node)") : ""));
  }
  return absl::OkStatus();
}

void SlurmResourceManager::Request(const AllocationRequest& request) {
  Managed& alloc = allocations_[request.allocation_id];
  alloc.request = request;
  alloc.order = next_order_++;
  pending_.push_back(request.allocation_id);
}

void SlurmResourceManager::Schedule() {
  // Slurm decides when and where: every request is placed on its partition at once and waits there.
  if (!events_.MayStartWork()) return;
  while (!pending_.empty()) {
    const std::string id = pending_.front();
    pending_.pop_front();
    auto a = allocations_.find(id);
    if (a == allocations_.end() || a->second.placed) continue;
    Managed& alloc = a->second;
    alloc.pool = events_.JobOf(id).resource_pool;
    alloc.placed = true;
    auto [tasks, per_task] = Layout(alloc.pool, alloc.request.slots, json());
    Placement placement{.pool = alloc.pool};
    for (int i = 0; i < tasks; ++i) {
      AgentSlots process{.agent_id = alloc.pool};
      for (int slot = 0; slot < per_task; ++slot) process.slot_ids.push_back(slot);
      placement.processes.push_back(std::move(process));
    }
    events_.Placed(id, placement);
  }
}

void SlurmResourceManager::Start(const std::string& allocation_id, const ProcessLaunch& launch) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  alloc.started = true;
  const slurm::SlurmPartition* partition = PartitionOf(alloc.pool);
  const std::string slot_type = partition != nullptr ? SlotTypeOf(*partition) : "cpu";
  auto [tasks, per_task] = Layout(alloc.pool, alloc.request.slots, launch.slurm);
  const std::string dir = JobDir(allocation_id);

  slurm::SubmitRequest request;
  request.partition = alloc.pool;
  request.job_name = JobName(allocation_id);
  request.wckey = Wckey(options_.job_project_source, launch);
  request.output_path = absl::StrCat(dir, "/slurm-%j.out");
  const bool gpus = slot_type != "cpu" && per_task > 0;
  if (gpus && !options_.tres_supported) {
    request.nodes = tasks;
    if (options_.gres_supported) {
      request.gres = true;
      request.gpus_per_node = per_task;
    }
  } else {
    request.ntasks = tasks;
    if (gpus) request.gpus_per_task = per_task;
    if (slot_type == "cpu" && per_task > 0) request.cpus_per_task = per_task;
  }
  if (launch.slurm.is_object()) {
    if (launch.slurm.contains("gpu_type") && launch.slurm["gpu_type"].is_string()) {
      request.gpu_type = launch.slurm["gpu_type"].get<std::string>();
    }
    if (launch.slurm.contains("sbatch_args") && launch.slurm["sbatch_args"].is_array()) {
      for (const json& arg : launch.slurm["sbatch_args"]) {
        if (arg.is_string()) request.user_sbatch_args.push_back(arg.get<std::string>());
      }
    }
  }
  if (options_.sudo_authorized) request.run_as_user = launch.user ? launch.user->user : options_.user_name;

  slurm::BatchScriptInput script{.allocation_id = allocation_id,
                                 .env = launch.env,
                                 .runner = options_.runner,
                                 .job_dir = dir,
                                 .path = options_.path,
                                 .ld_library_path = options_.ld_library_path};
  script.env["DET_MASTER"] = options_.master_url;
  script.env["DET_SESSION_TOKEN"] = launch.session_token;
  script.env["DET_RESOURCES_TYPE"] = "slurm-job";
  std::vector<int> slot_ids;  // as a task sees its devices
  for (int i = 0; i < per_task; ++i) slot_ids.push_back(i);
  script.env["DET_SLOT_IDS"] = absl::StrCat("[", absl::StrJoin(slot_ids, ","), "]");
  std::string ifname = options_.rendezvous_network_interface;
  if (auto it = options_.partition_rendezvous_interfaces.find(alloc.pool);
      it != options_.partition_rendezvous_interfaces.end() && !it->second.empty()) {
    ifname = it->second;
  }
  if (!ifname.empty()) script.env["NCCL_SOCKET_IFNAME"] = script.env["GLOO_SOCKET_IFNAME"] = ifname;
  script.env["DET_TASK_SPEC"] = json{{"entrypoint", launch.entrypoint},
                                     {"work_dir", launch.work_dir},
                                     {"download_context", launch.download_context},
                                     {"pods", tasks},
                                     {"slots_per_pod", per_task},
                                     {"platform", "slurm"}}
                                    .dump();
  request.script = slurm::BatchScript(script);

  alloc.submitting = true;
  std::weak_ptr<Shared> weak = shared_;
  const std::optional<TaskUser> owner = options_.sudo_authorized ? launch.user : std::nullopt;
  shared_->Enqueue([this, weak, allocation_id, dir, request = std::move(request), owner] {
    auto s = weak.lock();
    if (!s) return;
    absl::StatusOr<std::string> job_id;
    if (absl::Status made = MakeDirs(dir); !made.ok()) {
      job_id = absl::Status(made.code(), absl::StrCat("job_storage_root: ", made.message()));
    } else {
      // The job runs as its user: its directory must be theirs.
      if (owner && ::geteuid() == 0 && ::chown(dir.c_str(), owner->uid, owner->gid) != 0) {
        spdlog::warn("slurm: cannot give {} to uid {}: {}", dir, owner->uid, strerror(errno));
      }
      job_id = s->client->Submit(request);
      if (job_id.ok()) {
        if (absl::Status saved = WriteFile(absl::StrCat(dir, "/", kJobIdFile), *job_id + "\n"); !saved.ok()) {
          spdlog::warn("slurm: recording job {}: {}", *job_id, saved.ToString());
        }
      }
    }
    loop_.Post([this, weak, allocation_id, job_id = std::move(job_id)]() mutable {
      if (auto s = weak.lock(); s && !s->stop) Submitted(allocation_id, std::move(job_id));
    });
  });
}

void SlurmResourceManager::Submitted(const std::string& allocation_id, absl::StatusOr<std::string> job_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) {
    if (job_id.ok()) Cancel(*job_id);  // released meanwhile
    return;
  }
  Managed& alloc = a->second;
  alloc.submitting = false;
  if (!job_id.ok()) {
    events_.Log(allocation_id, std::string(job_id.status().message()));
    return ReportExit(allocation_id, 1, ExitKind::kProcessExited,
                      absl::StrCat("Slurm refused its job: ", job_id.status().message()));
  }
  alloc.job_id = *job_id;
  events_.Log(allocation_id, absl::StrCat("Slurm job ", *job_id, " submitted to partition ", alloc.pool));
  {
    std::lock_guard lock(shared_->mu);
    shared_->watched[*job_id] = {allocation_id, JobDir(allocation_id)};
    shared_->poll_now = true;
  }
  shared_->changed.notify_all();
  if (alloc.kill_requested) Signal(alloc);
}

// ---- Ending ----

void SlurmResourceManager::Cancel(const std::string& job_id) {
  std::weak_ptr<Shared> weak = shared_;
  shared_->Enqueue([weak, job_id] {
    auto s = weak.lock();
    if (!s) return;
    if (absl::Status cancelled = s->client->Cancel(job_id); !cancelled.ok()) {
      spdlog::warn("slurm: scancel {}: {}", job_id, cancelled.ToString());
    }
  });
}

void SlurmResourceManager::Signal(Managed& alloc) {
  const std::string job_id = alloc.job_id;
  if (alloc.state.empty() || alloc.state == "PENDING") return Cancel(job_id);  // nothing runs to be told
  std::weak_ptr<Shared> weak = shared_;
  shared_->Enqueue([weak, job_id] {
    auto s = weak.lock();
    if (!s) return;
    if (absl::Status signalled = s->client->Signal(job_id, SIGTERM); !signalled.ok()) {
      spdlog::warn("slurm: scancel --signal=TERM {}: {}", job_id, signalled.ToString());
    }
  });
  const std::string allocation_id = alloc.request.allocation_id;
  loop_.PostAfter(options_.kill_grace, [this, weak, allocation_id, job_id] {
    auto s = weak.lock();
    if (!s || s->stop) return;
    auto a = allocations_.find(allocation_id);
    if (a != allocations_.end() && a->second.job_id == job_id) Cancel(job_id);
  });
}

void SlurmResourceManager::Kill(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  if (alloc.kill_requested) return;
  alloc.kill_requested = true;
  if (!alloc.started) return ReportExit(allocation_id, 137, ExitKind::kProcessExited, "killed before it started");
  if (alloc.job_id.empty()) return;  // signalled once sbatch answers (or ends when it refuses)
  events_.Log(allocation_id, absl::StrCat("killing Slurm job ", alloc.job_id));
  Signal(alloc);
}

void SlurmResourceManager::ReportExit(const std::string& allocation_id, int exit_code, ExitKind kind,
                                      const std::string& why) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  {
    std::lock_guard lock(shared_->mu);
    shared_->watched.erase(a->second.job_id);
    shared_->unresolved.erase(allocation_id);
  }
  allocations_.erase(a);
  if (kind == ExitKind::kProcessExited) {
    // Its output is in the task log; the job directory goes (a lost job's stays: it may yet run).
    shared_->Enqueue([dir = JobDir(allocation_id)] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      if (ec) spdlog::warn("slurm: removing {}: {}", dir, ec.message());
    });
  }
  events_.Exited(allocation_id, exit_code, kind, why);
}

void SlurmResourceManager::Requeue(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  a->second.placed = false;
  pending_.push_front(allocation_id);
}

void SlurmResourceManager::Release(const std::string& allocation_id) {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end()) return;
  Managed& alloc = a->second;
  const bool ended = JobEnded(alloc.state) || (alloc.job_id.empty() && !alloc.submitting);
  if (!alloc.job_id.empty() && !ended) Cancel(alloc.job_id);
  {
    std::lock_guard lock(shared_->mu);
    shared_->watched.erase(alloc.job_id);
    shared_->unresolved.erase(allocation_id);
  }
  allocations_.erase(a);
  std::erase(pending_, allocation_id);
}

// ---- Restart ----

void SlurmResourceManager::Restore(const Allocation& record) {
  Managed& alloc = allocations_[record.allocation_id];
  alloc.request = {.allocation_id = record.allocation_id, .task_id = record.task_id, .slots = record.slots};
  alloc.order = next_order_++;
  alloc.pool = record.resource_pool;
  alloc.placed = alloc.started = alloc.restored = true;
  alloc.process_started = record.state == AllocationState::kRunning;
  {
    std::lock_guard lock(shared_->mu);
    shared_->unresolved[record.allocation_id] = JobDir(record.allocation_id);
    shared_->poll_now = true;
  }
  shared_->changed.notify_all();
}

void SlurmResourceManager::RestoreDone() { Schedule(); }

// ---- Views ----

std::vector<PoolSummary> SlurmResourceManager::Pools() const {
  std::vector<PoolSummary> out;
  for (const slurm::SlurmPartition& p : options_.partitions) {
    PoolSummary summary;
    summary.options.name = p.name;
    auto description = options_.partition_descriptions.find(p.name);
    summary.options.description = description != options_.partition_descriptions.end()
                                      ? description->second
                                      : absl::StrCat("Slurm partition ", p.name);
    summary.cluster_name = options_.cluster_name;
    summary.slot_type = SlotTypeOf(p);
    for (const slurm::SlurmNode& node : options_.nodes) {
      if (std::find(p.nodes.begin(), p.nodes.end(), node.name) == p.nodes.end()) continue;
      summary.num_agents += 1;
      if (node.state.find("down") == std::string::npos && node.state.find("drain") == std::string::npos) {
        summary.slots_available += SlotsOfNode(node, summary.slot_type);
      }
    }
    for (const auto& [id, alloc] : allocations_) {
      if (alloc.pool != p.name || !Runs(alloc.state)) continue;
      summary.slots_used += alloc.request.slots;
      if (alloc.request.slots == 0) summary.aux_running++;
    }
    summary.aux_capacity = summary.num_agents * 100;
    out.push_back(std::move(summary));
  }
  return out;
}

std::vector<QueuedJobView> SlurmResourceManager::JobQueue() const {
  std::vector<const Managed*> ordered;
  for (const auto& [id, alloc] : allocations_) ordered.push_back(&alloc);
  std::sort(ordered.begin(), ordered.end(), [](const Managed* a, const Managed* b) { return a->order < b->order; });
  std::vector<QueuedJobView> out;
  std::map<std::string, int> queued_in_pool;
  for (const Managed* alloc : ordered) {
    const JobAttributes job = events_.JobOf(alloc->request.allocation_id);
    const bool running = Runs(alloc->state);
    QueuedJobView view{.job_id = job.job_id,
                       .resource_pool = alloc->pool.empty() ? job.resource_pool : alloc->pool,
                       .jobs_ahead = running ? 0 : queued_in_pool[alloc->pool]++,
                       .requested_slots = alloc->request.slots,
                       .allocated_slots = running ? alloc->request.slots : 0,
                       .priority = job.priority.value_or(42),
                       .weight = job.weight,
                       .preemptible = job.preemptible,
                       .state = running ? "STATE_SCHEDULED" : "STATE_QUEUED"};
    if (alloc->state == "PENDING" && !alloc->reason.empty()) {
      view.pending_reason = absl::StrCat("Slurm job ", alloc->job_id, " pending: ", alloc->reason);
    }
    out.push_back(std::move(view));
  }
  return out;
}

std::vector<scheduler::QueuedJob> SlurmResourceManager::QueueOrder(const std::string& pool) const {
  std::vector<scheduler::QueuedJob> out;
  for (const QueuedJobView& view : JobQueue()) {
    if (view.resource_pool != pool) continue;
    out.push_back({.job_id = view.job_id, .priority = view.priority, .position = static_cast<double>(out.size())});
  }
  return out;
}

std::optional<std::string> SlurmResourceManager::ChiefAddress(const std::string& allocation_id) const {
  auto a = allocations_.find(allocation_id);
  if (a == allocations_.end() || !Runs(a->second.state) || a->second.nodes.empty()) return std::nullopt;
  return a->second.nodes.front();
}

std::optional<Rendezvous> SlurmResourceManager::RendezvousOf(const std::string&) const {
  // A Slurm job's tasks find each other from Slurm's own layout (determined-pod-runner), not from the master.
  return std::nullopt;
}

std::vector<AgentSummary> SlurmResourceManager::Agents() const {
  std::vector<AgentSummary> out;
  for (const slurm::SlurmNode& node : options_.nodes) {
    AgentSummary agent;
    agent.registered_time = started_;
    agent.identity = {.id = node.name,
                      .resource_pool = node.partitions.empty() ? "" : node.partitions.front(),
                      .hostname = node.name,
                      .version = "slurm",
                      .address = node.name};
    // Its slots as the pool it is listed in counts them (a node in several partitions is listed in its first).
    const slurm::SlurmPartition* pool = node.partitions.empty() ? nullptr : PartitionOf(node.partitions.front());
    const bool has_gpus = node.gpus > 0 && (pool == nullptr ? options_.slot_type != "cpu" : SlotTypeOf(*pool) != "cpu");
    const int slots = has_gpus ? node.gpus : node.cpus;
    for (int i = 0; i < slots; ++i) {
      agent.slots.push_back({.id = i,
                             .type = has_gpus ? "cuda" : "cpu",
                             .device = has_gpus ? (node.gpu_type.empty() ? "gpu" : node.gpu_type) : "cpu"});
    }
    int next = 0;
    for (const auto& [id, alloc] : allocations_) {
      if (!Runs(alloc.state) || std::find(alloc.nodes.begin(), alloc.nodes.end(), node.name) == alloc.nodes.end()) continue;
      for (int i = 0; i < alloc.request.slots && next < slots; ++i) agent.slot_allocations[next++] = id;
    }
    agent.enabled = node.state.find("drain") == std::string::npos && node.state.find("down") == std::string::npos;
    agent.draining = node.state.find("drain") != std::string::npos;
    out.push_back(std::move(agent));
  }
  return out;
}

absl::StatusOr<AgentSummary> SlurmResourceManager::SetAgentEnabled(const std::string& agent_id, bool, bool) {
  return absl::FailedPreconditionError(
      absl::StrCat("agent ", agent_id, " is a node of Slurm cluster ", options_.cluster_name,
                   ": Slurm decides what runs on it; drain or resume it with scontrol update nodename=", agent_id,
                   " state=drain|resume"));
}

absl::StatusOr<AgentSummary> SlurmResourceManager::SetSlotEnabled(const std::string& agent_id, int, bool enabled,
                                                                  bool drain) {
  return SetAgentEnabled(agent_id, enabled, drain);
}

absl::StatusOr<WebSocketHandlers> SlurmResourceManager::ConnectAgent(AgentIdentity agent,
                                                                     std::shared_ptr<WebSocketConnection>) {
  return absl::FailedPreconditionError(
      absl::StrCat("agent ", agent.id, ": resource pool ", agent.resource_pool, " belongs to the Slurm resource manager ",
                   options_.cluster_name, ", which runs tasks as Slurm jobs; agents cannot join it"));
}

}  // namespace det::master
