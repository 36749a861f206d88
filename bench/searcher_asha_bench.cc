// Simulated adaptive_asha search at scale: how long the searcher itself takes to decide.
//
// 100,000 trials (max_trials), divisor 4, standard mode, max_time 1000 batches, 256 trials running
// at a time. Every trial reports a validation at each rung time of the search (3, 15, 62, 250 and
// 1000 batches) until the searcher stops it or it reaches max_time, then exits; every stop is
// answered with the replacement the searcher asks for. A trial's loss is a deterministic function
// of its hyperparameters plus deterministic noise (a hash of the trial number and time). Only the
// calls into the Searcher are timed (building metric objects and parsing hparams are not).
//
// With --persist the searcher is saved as the master saves it (searcher_journal.h) after every
// event: its new events, or a whole snapshot when SnapshotDue says so. The saves are timed apart and
// the bytes counted; at the end the last snapshot plus the events since are restored and must equal
// the searcher's final snapshot.
//
// Build and run (Release):
//   cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release -DDET_BENCH=ON
//     -DDET_MODULES="common;config;searcher"     (one command line)
//   cmake --build build-rel --target searcher_asha_bench && build-rel/bin/searcher_asha_bench
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "searcher/searcher.h"
#include "searcher/searcher_journal.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct Trial {
  std::string id;
  double quality;  // from the hyperparameters
  uint64_t index;
  size_t next_report = 0;
};

}  // namespace

int main(int argc, char** argv) {
  // Usage: searcher_asha_bench [max_trials] [--no-snapshot | --persist]
  int max_trials = argc > 1 ? std::atoi(argv[1]) : 100000;
  const std::string mode = argc > 2 ? argv[2] : "";
  const std::vector<int> report_times = {3, 15, 62, 250, 1000};
  json config = {{"searcher",
                  {{"name", "adaptive_asha"},
                   {"metric", "validation_loss"},
                   {"max_trials", max_trials},
                   {"divisor", 4},
                   {"mode", "standard"},
                   {"max_concurrent_trials", 256},
                   {"time_metric", "batches"},
                   {"max_time", 1000}}},
                 {"hyperparameters",
                  {{"lr", {{"type", "log"}, {"minval", -5}, {"maxval", -1}, {"base", 10}}},
                   {"width", {{"type", "int"}, {"minval", 16}, {"maxval", 1024}}},
                   {"dropout", {{"type", "double"}, {"minval", 0.0}, {"maxval", 0.5}}},
                   {"optimizer", {{"type", "categorical"}, {"vals", {"sgd", "adam", "adamw"}}}}}},
                 {"reproducibility", {{"experiment_seed", 1}}}};

  Clock::duration in_searcher{};
  uint64_t events = 0, creates = 0, stops = 0, validations = 0;
  auto timed = [&](auto&& call) {
    auto start = Clock::now();
    auto result = call();
    in_searcher += Clock::now() - start;
    ++events;
    return result;
  };

  auto created = timed([&] { return det::searcher::Searcher::Create(config); });
  if (!created.ok()) {
    std::fprintf(stderr, "create: %s\n", std::string(created.status().message()).c_str());
    return 1;
  }
  std::unique_ptr<det::searcher::Searcher> searcher = std::move(*created);
  det::searcher::JournaledSearcher* journaled = nullptr;
  if (mode == "--persist") {
    auto wrapped = std::make_unique<det::searcher::JournaledSearcher>(std::move(searcher));
    journaled = wrapped.get();
    searcher = std::move(wrapped);
  }
  // What the master would have written (--persist): the last snapshot, the events since, totals.
  std::string saved_snapshot;
  std::vector<std::string> saved_events;
  size_t saved_event_bytes = 0, bytes_written = 0, snapshots_written = 0, saves = 0;
  Clock::duration saving{}, worst_save{};
  auto save = [&] {
    if (journaled == nullptr) return;
    auto start = Clock::now();
    std::vector<std::string> events = journaled->TakeEvents();
    size_t bytes = 0;
    for (const std::string& e : events) bytes += e.size();
    if (det::searcher::SnapshotDue(saved_snapshot.size(), saved_event_bytes + bytes)) {
      saved_snapshot = journaled->Snapshot().dump();
      saved_events.clear();
      saved_event_bytes = 0;
      bytes_written += saved_snapshot.size();
      ++snapshots_written;
    } else {
      saved_event_bytes += bytes;
      bytes_written += bytes;
      for (std::string& e : events) saved_events.push_back(std::move(e));
    }
    ++saves;
    Clock::duration took = Clock::now() - start;
    saving += took;
    worst_save = std::max(worst_save, took);
  };
  std::deque<Trial> running;
  bool shutdown = false;
  uint64_t next_index = 0;

  std::function<void(const std::vector<det::searcher::Action>&)> absorb =
      [&](const std::vector<det::searcher::Action>& actions) {
        for (const auto& a : actions) {
          switch (a.kind) {
            case det::searcher::Action::Kind::kCreateTrial: {
              ++creates;
              json hp = json::parse(a.hparams_json);
              double quality = std::fabs(std::log10(hp["lr"].get<double>()) + 3.0) +
                               std::fabs(hp["dropout"].get<double>() - 0.2) +
                               64.0 / hp["width"].get<double>() +
                               (hp["optimizer"] == "sgd" ? 0.3 : 0.0);
              timed([&] {
                searcher->TrialCreated(a.request_id);
                return 0;
              });
              running.push_back({a.request_id, quality, next_index++});
              break;
            }
            case det::searcher::Action::Kind::kStopTrial:
              ++stops;
              for (auto it = running.rbegin(); it != running.rend(); ++it) {
                if (it->id == a.request_id) {
                  it->next_report = report_times.size();  // exits at its next turn
                  break;
                }
              }
              break;
            case det::searcher::Action::Kind::kShutdown:
              shutdown = true;
              break;
          }
        }
      };

  std::clock_t cpu_start = std::clock();
  absorb(timed([&] { return searcher->InitialActions(); }));
  save();
  while (!running.empty()) {
    Trial t = std::move(running.front());
    running.pop_front();
    if (t.next_report >= report_times.size()) {
      absorb(timed([&] { return searcher->TrialExited(t.id); }));
      save();
      continue;
    }
    int time = report_times[t.next_report++];
    double noise = static_cast<double>(SplitMix(t.index * 31 + static_cast<uint64_t>(time)) >> 11) /
                   9007199254740992.0;
    json metrics = {{"validation_loss", t.quality + 5.0 / time + 0.1 * noise}, {"batches", time}};
    ++validations;
    auto result = timed([&] { return searcher->ValidationCompleted(t.id, metrics); });
    if (!result.ok()) {
      std::fprintf(stderr, "validation: %s\n", std::string(result.status().message()).c_str());
      return 1;
    }
    running.push_back(std::move(t));
    absorb(*result);
    save();
  }

  double decide_s = std::chrono::duration<double>(in_searcher).count();
  double loop_cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  bool with_snapshot = mode != "--no-snapshot";
  auto snap_start = Clock::now();
  std::string snapshot_text;
  absl::Status restored = absl::OkStatus();
  if (with_snapshot) {
    snapshot_text = searcher->Snapshot().dump();
    restored = det::searcher::Searcher::Restore(config, json::parse(snapshot_text)).status();
  }
  double snapshot_s = std::chrono::duration<double>(Clock::now() - snap_start).count();

  double seconds = decide_s;
  std::printf("adaptive_asha max_trials=%d divisor=4 standard max_time=1000 mct=256\n", max_trials);
  std::printf("trials created     %llu\n", static_cast<unsigned long long>(creates));
  std::printf("trials stopped     %llu\n", static_cast<unsigned long long>(stops));
  std::printf("validations        %llu\n", static_cast<unsigned long long>(validations));
  std::printf("searcher events    %llu\n", static_cast<unsigned long long>(events));
  std::printf("decision time      %.3f s wall inside searcher calls (goal < 2 s)\n", seconds);
  std::printf(
      "simulation CPU     %.3f s (process CPU for the whole loop, "
      "searcher included)\n",
      loop_cpu_s);
  std::printf("decisions/s        %.0f\n", static_cast<double>(events) / seconds);
  std::printf("final progress     %.3f, shutdown %s\n", searcher->Progress(),
              shutdown ? "yes" : "no");
  std::printf("snapshot           %.1f MB, snapshot+JSON+restore %.3f s (%s)\n",
              static_cast<double>(snapshot_text.size()) / 1e6, snapshot_s,
              restored.ok() ? "ok" : "FAILED");
  bool persisted_ok = true;
  if (journaled != nullptr) {
    auto replay_start = Clock::now();
    auto from_saved = det::searcher::Searcher::Restore(config, json::parse(saved_snapshot));
    persisted_ok = from_saved.ok();
    if (persisted_ok) {
      det::searcher::JournaledSearcher replayed(std::move(*from_saved));
      for (const std::string& e : saved_events) persisted_ok = persisted_ok && replayed.Replay(e).ok();
      persisted_ok = persisted_ok && replayed.Snapshot().dump() == snapshot_text;
    }
    double replay_s = std::chrono::duration<double>(Clock::now() - replay_start).count();
    double saving_s = std::chrono::duration<double>(saving).count();
    std::printf("saves              %zu (one after every event), %zu of them whole snapshots\n", saves,
                snapshots_written);
    std::printf("written in all     %.1f MB (a snapshot after every event: about %.0f GB, %.1f MB each at the end)\n",
                static_cast<double>(bytes_written) / 1e6,
                static_cast<double>(saves) * static_cast<double>(snapshot_text.size()) / 2 / 1e9,
                static_cast<double>(snapshot_text.size()) / 1e6);
    std::printf("saving time        %.3f s in all, %.1f us mean, worst %.3f s (a snapshot)\n", saving_s,
                saving_s / static_cast<double>(saves) * 1e6, std::chrono::duration<double>(worst_save).count());
    std::printf("restart            last snapshot %.1f MB + %zu events (%.1f MB) replayed in %.3f s: %s\n",
                static_cast<double>(saved_snapshot.size()) / 1e6, saved_events.size(),
                static_cast<double>(saved_event_bytes) / 1e6, replay_s,
                persisted_ok ? "equal to the final snapshot" : "DIFFERENT");
  }
  return shutdown && restored.ok() && persisted_ok ? 0 : 1;
}
