#include "searcher/searcher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "searcher/searcher_journal.h"

namespace det::searcher {
namespace {

using nlohmann::json;

json Config(const json& searcher, uint32_t seed = 7) {
  return {{"searcher", searcher},
          {"hyperparameters",
           {{"lr", {{"type", "log"}, {"minval", -4}, {"maxval", -1}, {"base", 10}, {"count", 3}}},
            {"width", {{"type", "int"}, {"minval", 8}, {"maxval", 64}, {"count", 4}}},
            {"act", {{"type", "categorical"}, {"vals", {"relu", "tanh"}}}}}},
          {"reproducibility", {{"experiment_seed", seed}}}};
}

json Asha(const std::string& name) {
  json s = {{"name", name},
            {"metric", "loss"},
            {"max_trials", 40},
            {"time_metric", "batches"},
            {"max_time", 256},
            {"divisor", 2},
            {"max_concurrent_trials", 6}};
  if (name == "async_halving") s["num_rungs"] = 4;
  return s;
}

std::vector<json> AllConfigs(uint32_t seed = 7) {
  return {Config({{"name", "single"}, {"metric", "loss"}}, seed),
          Config({{"name", "random"},
                  {"metric", "loss"},
                  {"max_trials", 12},
                  {"max_concurrent_trials", 3}},
                 seed),
          Config({{"name", "grid"}, {"metric", "loss"}, {"max_concurrent_trials", 5}}, seed),
          Config(Asha("async_halving"), seed), Config(Asha("adaptive_asha"), seed)};
}

std::string Describe(const Action& a) {
  switch (a.kind) {
    case Action::Kind::kCreateTrial:
      return absl::StrCat("create ", a.request_id, " ", a.hparams_json, " ", a.seed);
    case Action::Kind::kStopTrial:
      return absl::StrCat("stop ", a.request_id);
    case Action::Kind::kShutdown:
      return absl::StrCat("shutdown failure=", a.failure, " cancel=", a.cancel);
  }
  return "?";
}

// Runs a whole search against simulated trials: trials take turns reporting a validation every 16
// batches (loss a deterministic function of the hyperparameters and time), exit when stopped or at
// 256 batches; every 7th trial errors, every 11th has invalid hyperparameters, every 13th is
// canceled. `interrupt` says how the searcher is rebuilt after each event, as a master killed then
// would rebuild it. Returns every action and the progress after each event, as text.
enum class Interrupt {
  kNever,
  kFromSnapshot,  // from a snapshot taken after the event
  kFromJournal,   // from the last snapshot (taken every 7th event) and the events given since
};

std::vector<std::string> Drive(const json& config, Interrupt interrupt) {
  auto created = Searcher::Create(config);
  EXPECT_TRUE(created.ok()) << created.status();
  if (!created.ok()) return {};
  std::unique_ptr<Searcher> s = std::move(*created);
  if (interrupt == Interrupt::kFromJournal) s = std::make_unique<JournaledSearcher>(std::move(s));
  json persisted_snapshot = s->Snapshot();
  std::vector<std::string> persisted_events;
  std::vector<std::string> log;
  struct Trial {
    std::string id;
    json hparams;
    int index;
    int time = 0;
  };
  std::deque<Trial> running;
  int next_index = 0;
  bool shutdown = false;

  auto absorb = [&](const std::vector<Action>& actions) {
    for (const Action& a : actions) {
      log.push_back(Describe(a));
      if (a.kind == Action::Kind::kCreateTrial) {
        s->TrialCreated(a.request_id);
        running.push_back({a.request_id, json::parse(a.hparams_json), ++next_index});
      } else if (a.kind == Action::Kind::kStopTrial) {
        for (Trial& t : running) {
          if (t.id == a.request_id) t.time = 1 << 20;  // exits at its next turn
        }
      } else {
        shutdown = true;
      }
    }
    log.push_back(absl::StrCat("progress ", s->Progress()));
    if (interrupt == Interrupt::kFromSnapshot) {
      auto restored = Searcher::Restore(config, json::parse(s->Snapshot().dump()));
      ASSERT_TRUE(restored.ok()) << restored.status();
      s = std::move(*restored);
    } else if (interrupt == Interrupt::kFromJournal) {
      for (std::string& event : static_cast<JournaledSearcher&>(*s).TakeEvents()) {
        persisted_events.push_back(std::move(event));
      }
      if (persisted_events.size() >= 7) {
        persisted_snapshot = json::parse(s->Snapshot().dump());
        persisted_events.clear();
      }
      auto restored = Searcher::Restore(config, persisted_snapshot);
      ASSERT_TRUE(restored.ok()) << restored.status();
      auto journaled = std::make_unique<JournaledSearcher>(std::move(*restored));
      for (const std::string& event : persisted_events) ASSERT_TRUE(journaled->Replay(event).ok()) << event;
      s = std::move(journaled);
    }
  };

  absorb(s->InitialActions());
  for (int steps = 0; !running.empty() && steps < 100000; ++steps) {
    Trial t = running.front();
    running.pop_front();
    if (t.time >= 256) {
      absorb(s->TrialExited(t.id));
      continue;
    }
    if (t.index % 7 == 0 || t.index % 11 == 0 || t.index % 13 == 0) {
      ExitReason reason = t.index % 7 == 0    ? ExitReason::kErrored
                          : t.index % 11 == 0 ? ExitReason::kInvalidHP
                                              : ExitReason::kUserCanceled;
      absorb(s->TrialExitedEarly(t.id, reason));
      absorb(s->TrialExited(t.id));
      continue;
    }
    t.time += 16;
    s->TrialProgress(t.id, t.time / 256.0);
    double loss = std::fabs(std::log10(t.hparams["lr"].get<double>()) + 2.5) +
                  1.0 / t.hparams["width"].get<double>() + 10.0 / t.time;
    auto result = s->ValidationCompleted(t.id, {{"loss", loss}, {"batches", t.time}});
    EXPECT_TRUE(result.ok()) << result.status();
    running.push_back(t);
    if (result.ok()) absorb(*result);
  }
  EXPECT_TRUE(shutdown) << "the search did not end; config " << config.dump();
  return log;
}

TEST(SearcherTest, SnapshotRestoreAfterEveryEventEqualsTheUninterruptedRun) {
  for (const json& config : AllConfigs()) {
    SCOPED_TRACE(config["searcher"]["name"].get<std::string>());
    std::vector<std::string> straight = Drive(config, Interrupt::kNever);
    EXPECT_GT(straight.size(), 3u);
    int creates = 0, stops = 0;
    for (const std::string& line : straight) {
      creates += line.rfind("create ", 0) == 0;
      stops += line.rfind("stop ", 0) == 0;
    }
    const std::string name = config["searcher"]["name"];
    if (name == "async_halving" || name == "adaptive_asha") {
      EXPECT_GE(creates, 40);  // max_trials plus replacements of invalid-HP trials
      EXPECT_GT(stops, 20);
    } else {
      EXPECT_EQ(stops, 0);
      EXPECT_EQ(creates, name == "single" ? 1 : name == "random" ? 13 : 24);
    }
    EXPECT_EQ(Drive(config, Interrupt::kFromSnapshot), straight);
  }
}

TEST(SearcherJournalTest, LastSnapshotPlusEventsSinceAfterEveryEventEqualsTheUninterruptedRun) {
  for (const json& config : AllConfigs()) {
    SCOPED_TRACE(config["searcher"]["name"].get<std::string>());
    EXPECT_EQ(Drive(config, Interrupt::kFromJournal), Drive(config, Interrupt::kNever));
  }
}

TEST(SearcherJournalTest, RecordsEachEventOnceAndHandsThemOverOnce) {
  auto created = Searcher::Create(AllConfigs()[1]);  // random, 3 at a time
  ASSERT_TRUE(created.ok());
  JournaledSearcher s(std::move(*created));
  std::vector<Action> first = s.InitialActions();
  ASSERT_EQ(first.size(), 3u);
  s.TrialCreated(first[0].request_id);
  s.TrialProgress(first[0].request_id, 0.25);
  std::vector<std::string> events = s.TakeEvents();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(json::parse(events[0]), json({{"e", "initial"}}));
  EXPECT_EQ(json::parse(events[1]), json({{"e", "created"}, {"r", first[0].request_id}}));
  EXPECT_EQ(json::parse(events[2]), json({{"e", "progress"}, {"r", first[0].request_id}, {"p", 0.25}}));
  EXPECT_TRUE(s.TakeEvents().empty());
}

TEST(SearcherJournalTest, AnEventItDidNotWriteIsDataLossNamingIt) {
  auto created = Searcher::Create(AllConfigs()[0]);
  ASSERT_TRUE(created.ok());
  JournaledSearcher s(std::move(*created));
  for (const char* bad : {"not json", "[1]", R"({"e":"teleported","r":"x"})", R"({"e":"created"})",
                          R"({"e":"exited_early","r":"x","why":9})", R"({"e":"progress","r":"x"})"}) {
    absl::Status status = s.Replay(bad);
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << bad;
    EXPECT_NE(status.message().find("searcher event"), std::string::npos) << status;
  }
  EXPECT_TRUE(s.TakeEvents().empty());  // replayed events are not recorded again
}

TEST(SearcherJournalTest, ASnapshotIsDueFirstAndThenOnceTheEventsSinceOutweighIt) {
  EXPECT_TRUE(SnapshotDue(0, 0));
  EXPECT_FALSE(SnapshotDue(1000, 60 << 10));        // small searches: 64 KiB of events at least
  EXPECT_TRUE(SnapshotDue(1000, (64 << 10) + 1));
  EXPECT_FALSE(SnapshotDue(39 << 20, 30 << 20));    // large ones: the snapshot's own size
  EXPECT_TRUE(SnapshotDue(39 << 20, 40 << 20));
}

TEST(SearcherTest, SameSeedSameSearchDifferentSeedDifferentHyperparameters) {
  std::vector<json> a = AllConfigs(7), b = AllConfigs(7), c = AllConfigs(8);
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i]["searcher"]["name"].get<std::string>());
    std::vector<std::string> first = Drive(a[i], Interrupt::kNever);
    EXPECT_EQ(Drive(b[i], Interrupt::kNever), first);
    EXPECT_NE(Drive(c[i], Interrupt::kNever), first);
  }
}

TEST(SearcherTest, ProgressIsAlwaysAFraction) {
  for (const json& config : AllConfigs()) {
    for (const std::string& line : Drive(config, Interrupt::kNever)) {
      if (line.rfind("progress ", 0) != 0) continue;
      double p = std::stod(line.substr(9));
      EXPECT_TRUE(p >= 0.0 && p <= 1.0) << line;
    }
  }
}

TEST(SearcherTest, CreateRefusesWhatItCannotRun) {
  EXPECT_FALSE(Searcher::Create(json::array()).ok());
  EXPECT_FALSE(Searcher::Create(json::object()).ok());
  auto no_metric = Searcher::Create({{"searcher", {{"name", "single"}}}});
  ASSERT_FALSE(no_metric.ok());
  EXPECT_EQ(no_metric.status().message(), "searcher.metric: required");
  for (const char* removed : {"adaptive", "adaptive_simple", "sync_halving"}) {
    auto r = Searcher::Create({{"searcher", {{"name", removed}, {"metric", "loss"}}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), absl::StrCat("the '", removed,
                                                 "' searcher has been removed and is not valid "
                                                 "for new experiments"));
  }
  auto many_rungs = Searcher::Create({{"searcher",
                                       {{"name", "async_halving"},
                                        {"metric", "loss"},
                                        {"num_rungs", 65},
                                        {"max_trials", 4},
                                        {"max_time", 10},
                                        {"time_metric", "batches"}}}});
  ASSERT_FALSE(many_rungs.ok());
  EXPECT_EQ(many_rungs.status().message(), "searcher.num_rungs: must be <= 64, got 65");
  auto bad_seed = Searcher::Create({{"searcher", {{"name", "single"}, {"metric", "loss"}}},
                                    {"reproducibility", {{"experiment_seed", -1}}}});
  EXPECT_FALSE(bad_seed.ok());
  auto bad_mode = Searcher::Create({{"searcher",
                                     {{"name", "adaptive_asha"},
                                      {"metric", "loss"},
                                      {"max_trials", 4},
                                      {"max_time", 10},
                                      {"time_metric", "batches"},
                                      {"mode", "reckless"}}}});
  ASSERT_FALSE(bad_mode.ok());
  EXPECT_NE(bad_mode.status().message().find("searcher.mode"), std::string::npos);
  auto bad_range = Searcher::Create(
      {{"searcher", {{"name", "random"}, {"metric", "loss"}, {"max_trials", 1}}},
       {"hyperparameters", {{"x", {{"type", "int"}, {"minval", 3}, {"maxval", 3}}}}}});
  ASSERT_FALSE(bad_range.ok());
  EXPECT_EQ(bad_range.status().message(), "hyperparameters.x: minval must be less than maxval");
}

TEST(SearcherTest, AReportWithoutTheMetricIsIgnoredByTheSearchersThatDoNotRankByIt) {
  for (const json& config : AllConfigs()) {
    const std::string name = config["searcher"]["name"];
    SCOPED_TRACE(name);
    auto created = Searcher::Create(config);
    ASSERT_TRUE(created.ok());
    std::unique_ptr<Searcher> s = std::move(*created);
    std::vector<Action> first = s->InitialActions();
    ASSERT_FALSE(first.empty());
    s->TrialCreated(first[0].request_id);
    const json before = s->Snapshot();
    absl::StatusOr<std::vector<Action>> got = s->ValidationCompleted(first[0].request_id, {{"accuracy", 0.5}});
    if (name == "async_halving" || name == "adaptive_asha") {
      ASSERT_FALSE(got.ok());
      EXPECT_NE(got.status().message().find("do not include the searcher metric \"loss\""), std::string::npos);
    } else {
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(got->empty());
      EXPECT_EQ(s->Snapshot(), before) << "nothing changed";
    }
  }
}

TEST(SearcherTest, BareValuesAndMissingReproducibilityAreAccepted) {
  auto s = Searcher::Create({{"searcher", {{"name", "single"}, {"metric", "loss"}}},
                             {"hyperparameters", {{"lr", 0.1}, {"name", "x"}, {"list", {1, 2}}}}});
  ASSERT_TRUE(s.ok()) << s.status();
  std::vector<Action> actions = (*s)->InitialActions();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(json::parse(actions[0].hparams_json),
            json({{"list", {1, 2}}, {"lr", 0.1}, {"name", "x"}}));
}

TEST(SearcherTest, RestoreRefusesAnotherSearchersSnapshot) {
  json single = AllConfigs()[0], random = AllConfigs()[1];
  auto s = Searcher::Create(single);
  ASSERT_TRUE(s.ok());
  (*s)->InitialActions();
  json snap = (*s)->Snapshot();
  EXPECT_EQ(snap["search_method_type"], "single");
  auto wrong = Searcher::Restore(random, snap);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(Searcher::Restore(single, json::object()).ok());
  json broken = snap;
  broken["rand"]["pos"] = "x";
  EXPECT_FALSE(Searcher::Restore(single, broken).ok());
  broken = snap;
  broken["trials_closed"] = 5;
  EXPECT_FALSE(Searcher::Restore(single, broken).ok());
}

TEST(SearcherTest, RequestIdsAreVersion4Uuids) {
  auto s = Searcher::Create(AllConfigs()[1]);
  ASSERT_TRUE(s.ok());
  for (const Action& a : (*s)->InitialActions()) {
    ASSERT_EQ(a.request_id.size(), 36u);
    EXPECT_EQ(a.request_id[14], '4');
    EXPECT_NE(std::string("89ab").find(a.request_id[19]), std::string::npos) << a.request_id;
    EXPECT_LT(a.seed, 1u << 31);
  }
}

}  // namespace
}  // namespace det::searcher

namespace det::searcher {
namespace {

// The config schema takes max_time as a 64-bit integer; the searcher must too (a fuzzer found
// 1021474836480 accepted by one and refused by the other).
TEST(SearcherConfigTest, MaxTimeIsA64BitIntegerAndInt32FieldsStayInRange) {
  nlohmann::json config = {{"searcher",
                            {{"name", "async_halving"}, {"metric", "loss"}, {"time_metric", "batches"},
                             {"max_time", 1021474836480LL}, {"num_rungs", 3}, {"max_trials", 2}, {"divisor", 2}}},
                           {"hyperparameters", nlohmann::json::object()}};
  EXPECT_TRUE(Searcher::Create(config).ok()) << Searcher::Create(config).status();
  config["searcher"]["max_trials"] = 4294967296LL;
  EXPECT_FALSE(Searcher::Create(config).ok());
}

}  // namespace
}  // namespace det::searcher
