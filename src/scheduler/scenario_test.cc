// Runs every scheduler scenario in testdata/*.scenario.
//
// File format (one scenario per file; `#` starts a comment; tokens are separated by spaces; options
// are key=value or bare flags). Declarations build up the pool state:
//   config [type=priority|fair_share|round_robin] [fitting=best|worst] [preemption=true|false]
//          [default_priority=N] [heterogeneous=true|false]          (defaults: upstream defaults)
//   pool <name>                                       the pool's name (messages only)
//   agent <id> slots=N [disabled] [draining] [aux=N]  slot ids 0..N-1; aux = max aux containers
//   job <id> [priority=N] [submit=N] [weight=W] [max_slots=N] [position=X] [preemptible=false]
//        submit defaults to the declaration order; priority unset = the config's default
//   pending <alloc> [job=<job>] [slots=N] [single_node] [count=N] [blocked=<agent>,...]
//        job defaults to <alloc> up to its first '.'; slots defaults to 1; count=N declares
//        <alloc>.1 ... <alloc>.N; blocked agents are never used (log policy exclude_node)
//   running <alloc> [job=<job>] on=<agent>:<slot>,<slot>... [on=<agent>:...]
//        on=<agent> alone is a zero-slot container; slots = number of slot ids; free slots and
//        the agents' zero-slot counts follow from the running allocations
//   finish <job>        the job ends: its running allocations and pending requests go away
//   remove <alloc>      one running allocation or pending request goes away
// Passes:
//   run                 one Schedule() pass. Checks the decision invariants (decision_check.h) and
//                       the `expect` lines written since the previous `run`, then applies the
//                       decision: started requests become running allocations (newest), preempted
//                       allocations exit and are queued again as pending requests with the same id.
// Expectations (for the next `run`; together they must account for every start and preemption,
// so a `run` with no expect lines must start and preempt nothing):
//   expect start <alloc> [<agent>:<slot>,...]...   it starts (on exactly these slots, if given)
//   expect starts <job> <n>                        n allocations of the job start
//   expect preempt <alloc>
//   expect preempts <job> <n>
//   expect backfilled <alloc>                      (it must also be expected to start)
//   expect infeasible <alloc>                      exactly these are reported infeasible
//   expect nothing                                 documentation; the default
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scheduler/decision_check.h"
#include "scheduler/schedule.h"

namespace det::scheduler {
namespace {

struct Job {
  std::optional<int> priority;
  int64_t submit = 0;
  double weight = 1;
  std::optional<int> max_slots;
  std::optional<double> position;
  bool preemptible = true;
};

struct Pending {
  std::string id, job;
  int slots = 1;
  bool single_node = false;
  int64_t order = 0;
  std::vector<std::string> blocked;
};

struct Running {
  std::string id, job;
  std::vector<SlotPlacement> placements;
  int64_t start_order = 0;
  int slots = 0;
  bool single_node = false;
  std::vector<std::string> blocked;
};

struct AgentDecl {
  std::string id;
  int slots = 0;
  bool disabled = false, draining = false;
  int aux = 100;
};

class Scenario {
 public:
  explicit Scenario(std::string name) : name_(std::move(name)) {}

  void Line(int lineno, const std::string& raw) {
    lineno_ = lineno;
    std::string line = raw.substr(0, raw.find('#'));
    std::vector<std::string> t = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (t.empty()) return;
    const std::string& cmd = t[0];
    std::map<std::string, std::string> opt;
    std::vector<std::string> on;
    std::set<std::string> flags;
    for (size_t i = 1; i < t.size(); ++i) {
      auto eq = t[i].find('=');
      if (eq == std::string::npos) {
        flags.insert(t[i]);
      } else if (t[i].substr(0, eq) == "on") {
        on.push_back(t[i].substr(eq + 1));
      } else {
        opt[t[i].substr(0, eq)] = t[i].substr(eq + 1);
      }
    }
    if (cmd == "config") {
      if (opt.count("type")) {
        std::string v = opt["type"];
        config_.type = v == "fair_share"    ? SchedulerType::kFairShare
                       : v == "round_robin" ? SchedulerType::kRoundRobin
                                            : SchedulerType::kPriority;
        Check(v == "priority" || v == "fair_share" || v == "round_robin", "bad type " + v);
      }
      if (opt.count("fitting"))
        config_.fitting_policy =
            opt["fitting"] == "worst" ? FittingPolicy::kWorst : FittingPolicy::kBest;
      if (opt.count("preemption")) config_.preemption = opt["preemption"] == "true";
      if (opt.count("heterogeneous"))
        config_.allow_heterogeneous_fits = opt["heterogeneous"] == "true";
      if (opt.count("default_priority")) config_.default_priority = Int(opt["default_priority"]);
    } else if (cmd == "pool") {
      pool_name_ = t.at(1);
    } else if (cmd == "agent") {
      AgentDecl a{t.at(1), Int(opt["slots"]), flags.count("disabled") > 0,
                  flags.count("draining") > 0, opt.count("aux") ? Int(opt["aux"]) : 100};
      agents_.push_back(a);
    } else if (cmd == "job") {
      Job j;
      if (opt.count("priority")) j.priority = Int(opt["priority"]);
      j.submit = opt.count("submit") ? Int(opt["submit"]) : static_cast<int64_t>(jobs_.size()) + 1;
      if (opt.count("weight")) Check(absl::SimpleAtod(opt["weight"], &j.weight), "bad weight");
      if (opt.count("max_slots")) j.max_slots = Int(opt["max_slots"]);
      if (opt.count("position")) {
        double p = 0;
        Check(absl::SimpleAtod(opt["position"], &p), "bad position");
        j.position = p;
      }
      if (opt.count("preemptible")) j.preemptible = opt["preemptible"] != "false";
      jobs_[t.at(1)] = j;
    } else if (cmd == "pending") {
      if (!opt.count("job")) opt["job"] = t.at(1).substr(0, t.at(1).find('.'));
      if (!jobs_.count(opt["job"])) return Check(false, "unknown job " + opt["job"]);
      int count = opt.count("count") ? Int(opt["count"]) : 0;
      for (int i = count == 0 ? 0 : 1; i <= count; ++i) {
        Pending p{count == 0 ? t.at(1) : absl::StrCat(t.at(1), ".", i), opt["job"],
                  opt.count("slots") ? Int(opt["slots"]) : 1, flags.count("single_node") > 0,
                  ++order_, opt.count("blocked") ? absl::StrSplit(opt["blocked"], ',') : std::vector<std::string>{}};
        pending_.push_back(p);
      }
    } else if (cmd == "running") {
      if (!opt.count("job")) opt["job"] = t.at(1).substr(0, t.at(1).find('.'));
      if (!jobs_.count(opt["job"])) return Check(false, "unknown job " + opt["job"]);
      Running r{t.at(1), opt["job"], {}, ++start_order_, 0, false};
      for (const std::string& o : on) r.placements.push_back(ParsePlacement(o));
      for (const SlotPlacement& p : r.placements) r.slots += static_cast<int>(p.slot_ids.size());
      running_.push_back(r);
    } else if (cmd == "finish") {
      Check(jobs_.count(t.at(1)) > 0, "unknown job " + t.at(1));
      std::erase_if(running_, [&](const Running& r) { return r.job == t.at(1); });
      std::erase_if(pending_, [&](const Pending& p) { return p.job == t.at(1); });
    } else if (cmd == "remove") {
      size_t before = running_.size() + pending_.size();
      std::erase_if(running_, [&](const Running& r) { return r.id == t.at(1); });
      std::erase_if(pending_, [&](const Pending& p) { return p.id == t.at(1); });
      Check(running_.size() + pending_.size() == before - 1,
            "remove: no such allocation " + t.at(1));
    } else if (cmd == "expect") {
      Expect(t, line);
    } else if (cmd == "run") {
      Run();
    } else {
      Check(false, "unknown command " + cmd);
    }
  }

  void End() {
    Check(expect_lines_ == 0, "expect lines after the last run");
    Check(runs_ > 0, "no run");
  }

 private:
  void Check(bool ok, const std::string& what) {
    EXPECT_TRUE(ok) << name_ << ":" << lineno_ << ": " << what;
  }
  int Int(const std::string& s) {
    int v = 0;
    Check(absl::SimpleAtoi(s, &v), "not an integer: '" + s + "'");
    return v;
  }
  SlotPlacement ParsePlacement(const std::string& s) {
    SlotPlacement p;
    auto colon = s.find(':');
    p.agent_id = s.substr(0, colon);
    if (colon != std::string::npos) {
      for (absl::string_view v : absl::StrSplit(s.substr(colon + 1), ','))
        p.slot_ids.push_back(Int(std::string(v)));
    }
    return p;
  }

  void Expect(const std::vector<std::string>& t, const std::string& line) {
    ++expect_lines_;
    Check(t.size() >= 2, "bad expect: " + line);
    const std::string& what = t[1];
    if (what == "start") {
      std::vector<SlotPlacement> where;
      for (size_t i = 3; i < t.size(); ++i) where.push_back(ParsePlacement(t[i]));
      exp_start_[t.at(2)] = {where, lineno_};
    } else if (what == "starts") {
      exp_starts_[t.at(2)] = Int(t.at(3));
    } else if (what == "preempt") {
      exp_preempt_.insert(t.at(2));
    } else if (what == "preempts") {
      exp_preempts_[t.at(2)] = Int(t.at(3));
    } else if (what == "backfilled") {
      exp_backfilled_.insert(t.at(2));
    } else if (what == "infeasible") {
      exp_infeasible_.insert(t.at(2));
    } else if (what != "nothing") {
      Check(false, "bad expect: " + line);
    }
  }

  PoolSnapshot Snapshot() {
    PoolSnapshot pool;
    pool.pool_name = pool_name_;
    for (const AgentDecl& d : agents_) {
      AgentState a;
      a.id = d.id;
      a.total_slots = d.slots;
      a.enabled = !d.disabled;
      a.draining = d.draining;
      a.max_aux_containers = d.aux;
      std::set<int> used;
      for (const Running& r : running_) {
        for (const SlotPlacement& p : r.placements) {
          if (p.agent_id != d.id) continue;
          if (p.slot_ids.empty()) ++a.running_zero_slot;
          for (int s : p.slot_ids) {
            Check(used.insert(s).second, absl::StrCat("slot ", d.id, ":", s, " held twice"));
          }
        }
      }
      for (int s = 0; s < d.slots; ++s) {
        if (!used.count(s)) a.free_slot_ids.push_back(s);
      }
      pool.agents.push_back(a);
    }
    for (const Running& r : running_) {
      const Job& j = jobs_.at(r.job);
      RunningAllocation a;
      a.allocation_id = r.id;
      a.job_id = r.job;
      a.job_submission = j.submit;
      a.queue_position = j.position;
      a.slots = r.slots;
      a.placements = r.placements;
      a.preemptible = j.preemptible;
      a.priority = j.priority;
      a.weight = j.weight;
      a.max_slots = j.max_slots;
      a.start_order = r.start_order;
      pool.running.push_back(a);
    }
    for (const Pending& p : pending_) {
      const Job& j = jobs_.at(p.job);
      PendingRequest r;
      r.allocation_id = p.id;
      r.job_id = p.job;
      r.job_submission = j.submit;
      r.request_order = p.order;
      r.queue_position = j.position;
      r.slots = p.slots;
      r.single_node = p.single_node;
      r.preemptible = j.preemptible;
      r.priority = j.priority;
      r.weight = j.weight;
      r.max_slots = j.max_slots;
      r.blocked_agents = p.blocked;
      pool.pending.push_back(r);
    }
    return pool;
  }

  std::string JobOf(const std::string& alloc) {
    for (const Pending& p : pending_) {
      if (p.id == alloc) return p.job;
    }
    for (const Running& r : running_) {
      if (r.id == alloc) return r.job;
    }
    return "";
  }

  void Run() {
    ++runs_;
    PoolSnapshot pool = Snapshot();
    Decision d = Schedule(config_, pool);
    std::string ctx = absl::StrCat("run #", runs_);
    Check(CheckDecision(pool, d).empty(), ctx + ": " + CheckDecision(pool, d));
    Decision again = Schedule(config_, pool);
    Check(again.to_start == d.to_start && again.to_preempt == d.to_preempt,
          ctx + ": not deterministic");

    std::map<std::string, int> starts_by_job, preempts_by_job;
    std::string started_list, preempted_list;
    for (const StartDecision& s : d.to_start) {
      ++starts_by_job[JobOf(s.allocation_id)];
      absl::StrAppend(&started_list, " ", s.allocation_id);
      for (const SlotPlacement& p : s.placements) {
        absl::StrAppend(&started_list, p.slot_ids.empty() ? "@" : "@", p.agent_id, ":",
                        absl::StrJoin(p.slot_ids, ","));
      }
      if (s.backfilled) absl::StrAppend(&started_list, "(backfilled)");
    }
    for (const std::string& id : d.to_preempt) {
      ++preempts_by_job[JobOf(id)];
      absl::StrAppend(&preempted_list, " ", id);
    }
    ctx = absl::StrCat(ctx, " started [", started_list, " ] preempted [", preempted_list, " ]");

    size_t want_starts = exp_start_.size(), want_preempts = exp_preempt_.size();
    for (const auto& [job, n] : exp_starts_) want_starts += n;
    for (const auto& [job, n] : exp_preempts_) want_preempts += n;
    Check(d.to_start.size() == want_starts,
          absl::StrCat(ctx, ": ", d.to_start.size(), " starts, expected ", want_starts));
    Check(d.to_preempt.size() == want_preempts,
          absl::StrCat(ctx, ": ", d.to_preempt.size(), " preemptions, expected ", want_preempts));
    for (const auto& [id, where] : exp_start_) {
      auto it = std::find_if(d.to_start.begin(), d.to_start.end(),
                             [&id = id](const StartDecision& s) { return s.allocation_id == id; });
      Check(it != d.to_start.end(),
            absl::StrCat(ctx, ": expected ", id, " to start (line ", where.second, ")"));
      if (it == d.to_start.end()) continue;
      if (!where.first.empty()) {
        Check(it->placements == where.first,
              absl::StrCat(ctx, ": ", id, " placed elsewhere (line ", where.second, ")"));
      }
      Check(it->backfilled == (exp_backfilled_.count(id) > 0), ctx + ": backfilled flag of " + id);
    }
    for (const auto& [job, n] : exp_starts_) {
      Check(starts_by_job[job] == n,
            absl::StrCat(ctx, ": job ", job, " started ", starts_by_job[job], ", expected ", n));
    }
    for (const std::string& id : exp_preempt_) {
      Check(std::count(d.to_preempt.begin(), d.to_preempt.end(), id) == 1,
            ctx + ": expected " + id + " preempted");
    }
    for (const auto& [job, n] : exp_preempts_) {
      Check(preempts_by_job[job] == n, absl::StrCat(ctx, ": job ", job, " preempted ",
                                                    preempts_by_job[job], ", expected ", n));
    }
    Check(std::set<std::string>(d.infeasible.begin(), d.infeasible.end()) == exp_infeasible_,
          absl::StrCat(ctx, ": infeasible [", absl::StrJoin(d.infeasible, " "), "]"));

    // Apply: starts run, preempted allocations exit and queue again.
    for (const StartDecision& s : d.to_start) {
      auto it = std::find_if(pending_.begin(), pending_.end(),
                             [&](const Pending& p) { return p.id == s.allocation_id; });
      if (it == pending_.end()) continue;
      Running r{it->id, it->job, s.placements, ++start_order_, it->slots, it->single_node, it->blocked};
      pending_.erase(it);
      running_.push_back(r);
    }
    for (const std::string& id : d.to_preempt) {
      auto it = std::find_if(running_.begin(), running_.end(),
                             [&](const Running& r) { return r.id == id; });
      if (it == running_.end()) continue;
      pending_.push_back(Pending{it->id, it->job, it->slots, it->single_node, ++order_, it->blocked});
      running_.erase(it);
    }
    exp_start_.clear();
    exp_starts_.clear();
    exp_preempt_.clear();
    exp_preempts_.clear();
    exp_backfilled_.clear();
    exp_infeasible_.clear();
    expect_lines_ = 0;
  }

  std::string name_;
  int lineno_ = 0;
  SchedulerConfig config_;
  std::string pool_name_ = "default";
  std::vector<AgentDecl> agents_;
  std::map<std::string, Job> jobs_;
  std::vector<Pending> pending_;
  std::vector<Running> running_;
  int64_t order_ = 0, start_order_ = 0;
  int runs_ = 0, expect_lines_ = 0;
  std::map<std::string, std::pair<std::vector<SlotPlacement>, int>> exp_start_;
  std::map<std::string, int> exp_starts_, exp_preempts_;
  std::set<std::string> exp_preempt_, exp_backfilled_, exp_infeasible_;
};

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(SCHEDULER_TESTDATA_DIR)) {
    if (e.path().extension() == ".scenario") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, Holds) {
  std::ifstream in(std::string(SCHEDULER_TESTDATA_DIR) + "/" + GetParam());
  ASSERT_TRUE(in) << GetParam();
  Scenario s(GetParam());
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) s.Line(++lineno, line);
  s.End();
}

INSTANTIATE_TEST_SUITE_P(All, ScenarioTest, ::testing::ValuesIn(ScenarioFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           std::replace_if(
                               n.begin(), n.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return n;
                         });

TEST(ScenarioFilesTest, ThereAreScenarios) { EXPECT_GE(ScenarioFiles().size(), 10u); }

}  // namespace
}  // namespace det::scheduler
