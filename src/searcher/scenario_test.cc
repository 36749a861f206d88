// Runs every searcher scenario in testdata/*.scenario (DuckDB-style tests as data).
//
// File format (one scenario per file; `#` starts a comment line):
//
//   config:                       the experiment config as an indented YAML block; it ends at the
//     searcher: {...}             first non-indented line. Searcher::Create builds the searcher;
//     hyperparameters: {...}      PreviewSearch previews it.
//   expect config_error <text>    Create (and PreviewSearch) must fail with <text> in the message.
//
// Events (trial numbers are 1-based, in the order the searcher emitted the Create actions; every
// Create is answered with TrialCreated at once, like the master does):
//   initial                       InitialActions()
//   validate <trial> <metric> [<time>]   ValidationCompleted with {metric: m, time_metric: t}
//   validate_json <trial> <json>  ValidationCompleted with exactly these metrics
//   exit <trial>...               TrialExited for each trial in turn
//   exit_early <trial> errored|canceled|invalid_hp   TrialExitedEarly
//   progress <trial> <p>          TrialProgress
//   snapshot_restore              Snapshot(), JSON text round trip, Searcher::Restore; the restored
//                                 searcher must snapshot identically and is used from then on.
//
// Expectations about the actions of the latest event. Every action must be expected before the
// next event (or the end of the file); an event with no expect lines must emit nothing.
//   expect create <n>             exactly n Create actions (numbered as new trials)
//   expect stop <trial>...        exactly these Stop actions
//   expect shutdown [failure] [cancel]   a Shutdown with exactly these flags
//   expect nothing                no actions (documentation; the default)
//   expect error <text>           the event failed with <text> in the message
// Expectations about the state:
//   expect progress <p>           Progress() == p (within 1e-9)
//   expect hparams <trial> <json> the trial's hyperparameters, compared as JSON (numbers exactly)
//   expect seed <trial> <n>       the trial's seed
//   expect request_id <trial> <uuid>
//   expect trials <n>             Create actions emitted so far
//   expect preview <json>         every key given equals PreviewSearch's value
//   expect bracket <i> trials <n> concurrency <c> rungs <units>:<trials>...   one preview bracket
//                                 (0-based), all rungs listed
//   expect preview_text <text>    FormatPreview(preview) contains <text>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json_yaml.h"
#include "searcher/preview.h"
#include "searcher/searcher.h"

namespace det::searcher {
namespace {

using nlohmann::json;

struct Line {
  int number;
  std::string text;
};

class ScenarioRunner {
 public:
  explicit ScenarioRunner(std::string file) : file_(std::move(file)) {}

  void Run() {
    std::ifstream in(file_);
    ASSERT_TRUE(in) << "cannot open " << file_;
    std::vector<Line> lines;
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) lines.push_back({n, text});

    size_t i = 0;
    std::string yaml;
    for (; i < lines.size(); ++i) {
      const std::string& t = lines[i].text;
      if (Blank(t)) continue;
      ASSERT_EQ(t, "config:") << Where(lines[i]) << "a scenario starts with `config:`";
      ++i;
      break;
    }
    for (; i < lines.size(); ++i) {
      const std::string& t = lines[i].text;
      if (!t.empty() && t[0] != ' ' && t[0] != '#') break;
      absl::StrAppend(&yaml, t, "\n");
    }
    auto parsed = ParseYaml(yaml);
    ASSERT_TRUE(parsed.ok()) << file_ << ": config: " << parsed.status();
    config_ = *parsed;
    if (config_.contains("searcher")) {
      metric_ = config_["searcher"].value("metric", "");
      time_metric_ = config_["searcher"].value("time_metric", "");
    }
    auto created = Searcher::Create(config_);
    auto preview = PreviewSearch(config_);
    if (created.ok()) {
      searcher_ = std::move(*created);
      ASSERT_TRUE(preview.ok()) << file_ << ": preview failed: " << preview.status();
      preview_ = *preview;
    } else {
      create_error_ = std::string(created.status().message());
      EXPECT_FALSE(preview.ok()) << file_ << ": preview accepted a config Create refused";
    }

    for (; i < lines.size(); ++i) {
      if (Blank(lines[i].text)) continue;
      Step(lines[i]);
      if (::testing::Test::HasFatalFailure()) return;
    }
    CheckAllExpected(Line{static_cast<int>(lines.size()), "<end of file>"});
  }

 private:
  static bool Blank(const std::string& t) {
    auto p = t.find_first_not_of(" \t");
    return p == std::string::npos || t[p] == '#';
  }
  std::string Where(const Line& l) const {
    return absl::StrCat(file_, ":", l.number, ": `", l.text, "`: ");
  }

  int Trial(const Line& l, const std::string& word) {
    int n = 0;
    if (!absl::SimpleAtoi(word, &n) || n < 1 || n > static_cast<int>(trials_.size())) {
      ADD_FAILURE() << Where(l) << "no trial " << word << " (" << trials_.size() << " created)";
      return 0;
    }
    return n;
  }
  const std::string& Rid(int n) { return trials_[static_cast<size_t>(n - 1)].request_id; }

  void CheckAllExpected(const Line& l) {
    if (!last_error_.empty() && !error_checked_) {
      ADD_FAILURE() << Where(l) << "unexpected error from the previous event: " << last_error_;
    }
    int creates = 0;
    std::set<int> stops;
    bool shutdown = false;
    for (const Action& a : last_) {
      if (a.kind == Action::Kind::kCreateTrial) ++creates;
      if (a.kind == Action::Kind::kStopTrial) stops.insert(Number(a.request_id));
      if (a.kind == Action::Kind::kShutdown) shutdown = true;
    }
    if (creates > 0 && !creates_checked_) {
      ADD_FAILURE() << Where(l) << "previous event created " << creates << " trial(s) unexpectedly";
    }
    if (!stops.empty() && !stops_checked_) {
      ADD_FAILURE() << Where(l) << "previous event stopped " << stops.size()
                    << " trial(s) unexpectedly, first #" << *stops.begin();
    }
    if (shutdown && !shutdown_checked_) {
      ADD_FAILURE() << Where(l) << "previous event shut the search down unexpectedly";
    }
  }

  int Number(const std::string& rid) {
    for (size_t i = 0; i < trials_.size(); ++i) {
      if (trials_[i].request_id == rid) return static_cast<int>(i) + 1;
    }
    return 0;
  }

  // Starts a new event: checks the previous one was fully expected.
  void BeginEvent(const Line& l) {
    ASSERT_TRUE(searcher_) << Where(l) << "the config was refused: " << create_error_;
    CheckAllExpected(l);
    last_.clear();
    last_error_.clear();
    creates_checked_ = stops_checked_ = shutdown_checked_ = error_checked_ = false;
  }

  void Absorb(const Line& l, std::vector<Action> actions) {
    for (const Action& a : actions) {
      if (a.kind == Action::Kind::kCreateTrial) {
        EXPECT_EQ(Number(a.request_id), 0) << Where(l) << "duplicate request id " << a.request_id;
        trials_.push_back(a);
        searcher_->TrialCreated(a.request_id);
      }
      last_.push_back(a);
    }
    double p = searcher_->Progress();
    EXPECT_TRUE(std::isfinite(p) && p >= 0.0 && p <= 1.0) << Where(l) << "progress " << p;
  }

  void Absorb(const Line& l, absl::StatusOr<std::vector<Action>> result) {
    if (!result.ok()) {
      last_error_ = std::string(result.status().message());
      EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << Where(l);
      return;
    }
    Absorb(l, std::move(*result));
  }

  void Step(const Line& l) {
    std::vector<std::string> w = absl::StrSplit(l.text, ' ', absl::SkipEmpty());
    const std::string& cmd = w[0];
    auto rest = [&](size_t from) {
      std::string s;
      for (size_t k = from; k < w.size(); ++k) absl::StrAppend(&s, k > from ? " " : "", w[k]);
      return s;
    };
    if (cmd == "expect") {
      ASSERT_GE(w.size(), 2u) << Where(l);
      Expect(l, w, rest(2));
      return;
    }
    BeginEvent(l);
    if (::testing::Test::HasFatalFailure()) return;
    if (cmd == "initial") {
      size_t before = trials_.size();
      Absorb(l, searcher_->InitialActions());
      // The preview promises how many trials start at once.
      if (before == 0 && preview_.contains("max_concurrent_trials")) {
        EXPECT_EQ(preview_["max_concurrent_trials"], trials_.size())
            << Where(l) << "preview and initial trials disagree";
      }
    } else if (cmd == "validate" || cmd == "validate_json") {
      ASSERT_GE(w.size(), 3u) << Where(l);
      int t = Trial(l, w[1]);
      if (t == 0) return;
      json metrics;
      if (cmd == "validate_json") {
        auto j = ParseJson(rest(2));
        ASSERT_TRUE(j.ok()) << Where(l) << j.status();
        metrics = *j;
      } else {
        metrics[metric_] = std::stod(w[2]);
        if (w.size() > 3) metrics[time_metric_] = std::stod(w[3]);
      }
      Absorb(l, searcher_->ValidationCompleted(Rid(t), metrics));
    } else if (cmd == "exit") {
      for (size_t k = 1; k < w.size(); ++k) {
        int t = Trial(l, w[k]);
        if (t) Absorb(l, searcher_->TrialExited(Rid(t)));
      }
    } else if (cmd == "exit_early") {
      ASSERT_EQ(w.size(), 3u) << Where(l);
      int t = Trial(l, w[1]);
      if (t == 0) return;
      std::map<std::string, ExitReason> reasons = {{"errored", ExitReason::kErrored},
                                                   {"canceled", ExitReason::kUserCanceled},
                                                   {"invalid_hp", ExitReason::kInvalidHP}};
      ASSERT_TRUE(reasons.count(w[2])) << Where(l) << "unknown reason";
      Absorb(l, searcher_->TrialExitedEarly(Rid(t), reasons[w[2]]));
    } else if (cmd == "progress") {
      ASSERT_EQ(w.size(), 3u) << Where(l);
      int t = Trial(l, w[1]);
      if (t) searcher_->TrialProgress(Rid(t), std::stod(w[2]));
    } else if (cmd == "snapshot_restore") {
      json snap = searcher_->Snapshot();
      auto parsed = ParseJson(DumpJson(snap));
      ASSERT_TRUE(parsed.ok()) << Where(l) << parsed.status();
      auto restored = Searcher::Restore(config_, *parsed);
      ASSERT_TRUE(restored.ok()) << Where(l) << restored.status();
      EXPECT_EQ((*restored)->Snapshot(), snap) << Where(l) << "restored snapshot differs";
      EXPECT_EQ((*restored)->Progress(), searcher_->Progress()) << Where(l);
      searcher_ = std::move(*restored);
    } else {
      FAIL() << Where(l) << "unknown command";
    }
  }

  void Expect(const Line& l, const std::vector<std::string>& w, const std::string& rest) {
    const std::string& what = w[1];
    if (what == "config_error") {
      EXPECT_FALSE(searcher_) << Where(l) << "the config was accepted";
      EXPECT_NE(create_error_.find(rest), std::string::npos)
          << Where(l) << "error was: " << create_error_;
      return;
    }
    if (what == "preview" || what == "bracket" || what == "preview_text") {
      ExpectPreview(l, w, rest);
      return;
    }
    ASSERT_TRUE(searcher_) << Where(l) << "the config was refused: " << create_error_;
    if (what == "create") {
      int creates = 0;
      for (const Action& a : last_) creates += a.kind == Action::Kind::kCreateTrial;
      EXPECT_EQ(std::to_string(creates), rest) << Where(l);
      creates_checked_ = true;
    } else if (what == "stop") {
      std::set<int> want, got;
      for (size_t k = 2; k < w.size(); ++k) want.insert(Trial(l, w[k]));
      for (const Action& a : last_) {
        if (a.kind == Action::Kind::kStopTrial) got.insert(Number(a.request_id));
      }
      EXPECT_EQ(got, want) << Where(l);
      stops_checked_ = true;
    } else if (what == "shutdown") {
      std::vector<const Action*> shutdowns;
      for (const Action& a : last_) {
        if (a.kind == Action::Kind::kShutdown) shutdowns.push_back(&a);
      }
      ASSERT_EQ(shutdowns.size(), 1u) << Where(l) << "want one shutdown";
      bool failure = rest.find("failure") != std::string::npos;
      bool cancel = rest.find("cancel") != std::string::npos;
      EXPECT_EQ(shutdowns[0]->failure, failure) << Where(l) << "failure flag";
      EXPECT_EQ(shutdowns[0]->cancel, cancel) << Where(l) << "cancel flag";
      shutdown_checked_ = true;
    } else if (what == "nothing") {
      EXPECT_TRUE(last_.empty()) << Where(l) << last_.size() << " action(s)";
      EXPECT_TRUE(last_error_.empty()) << Where(l) << last_error_;
    } else if (what == "error") {
      EXPECT_NE(last_error_.find(rest), std::string::npos)
          << Where(l) << "error was: `" << last_error_ << "`";
      EXPECT_FALSE(last_error_.empty()) << Where(l);
      error_checked_ = true;
    } else if (what == "progress") {
      EXPECT_NEAR(searcher_->Progress(), std::stod(rest), 1e-9) << Where(l);
    } else if (what == "hparams") {
      int t = Trial(l, w[2]);
      if (t == 0) return;
      std::string json_text = rest.substr(rest.find(' ') + 1);
      auto want = ParseJson(json_text);
      ASSERT_TRUE(want.ok()) << Where(l) << want.status();
      auto got = ParseJson(trials_[static_cast<size_t>(t - 1)].hparams_json);
      ASSERT_TRUE(got.ok());
      EXPECT_EQ(*got, *want) << Where(l) << "got "
                             << trials_[static_cast<size_t>(t - 1)].hparams_json;
    } else if (what == "seed") {
      int t = Trial(l, w[2]);
      if (t) {
        EXPECT_EQ(std::to_string(trials_[static_cast<size_t>(t - 1)].seed), w.at(3)) << Where(l);
      }
    } else if (what == "request_id") {
      int t = Trial(l, w[2]);
      if (t) {
        EXPECT_EQ(Rid(t), w.at(3)) << Where(l);
      }
    } else if (what == "trials") {
      EXPECT_EQ(std::to_string(trials_.size()), rest) << Where(l);
    } else {
      FAIL() << Where(l) << "unknown expectation";
    }
  }

  void ExpectPreview(const Line& l, const std::vector<std::string>& w, const std::string& rest) {
    ASSERT_FALSE(preview_.is_null()) << Where(l) << "no preview: " << create_error_;
    if (w[1] == "preview_text") {
      std::string text = FormatPreview(preview_);
      EXPECT_NE(text.find(rest), std::string::npos) << Where(l) << "preview text:\n" << text;
      return;
    }
    if (w[1] == "preview") {
      auto want = ParseJson(rest);
      ASSERT_TRUE(want.ok()) << Where(l) << want.status();
      for (auto it = want->begin(); it != want->end(); ++it) {
        EXPECT_EQ(preview_.value(it.key(), json()), it.value())
            << Where(l) << "key " << it.key() << "; preview " << preview_.dump();
      }
      return;
    }
    // expect bracket <i> trials <n> concurrency <c> rungs u:k ...
    ASSERT_GE(w.size(), 8u) << Where(l);
    ASSERT_EQ(w[3], "trials") << Where(l);
    ASSERT_EQ(w[5], "concurrency") << Where(l);
    ASSERT_EQ(w[7], "rungs") << Where(l);
    size_t i = std::stoul(w[2]);
    ASSERT_TRUE(preview_.contains("brackets")) << Where(l) << preview_.dump();
    ASSERT_LT(i, preview_["brackets"].size()) << Where(l) << preview_.dump();
    const json& b = preview_["brackets"][i];
    json rungs = json::array();
    for (size_t k = 8; k < w.size(); ++k) {
      std::vector<std::string> uk = absl::StrSplit(w[k], ':');
      ASSERT_EQ(uk.size(), 2u) << Where(l);
      rungs.push_back({{"units", std::stoull(uk[0])}, {"trials", std::stoll(uk[1])}});
    }
    json want = {{"trials", std::stoll(w[4])},
                 {"max_concurrent_trials", std::stoll(w[6])},
                 {"rungs", rungs}};
    EXPECT_EQ(b, want) << Where(l) << "got " << b.dump();
  }

  std::string file_;
  json config_;
  json preview_;
  std::string metric_, time_metric_;
  std::unique_ptr<Searcher> searcher_;
  std::string create_error_;
  std::vector<Action> trials_;  // the Create actions, in order
  std::vector<Action> last_;
  std::string last_error_;
  bool creates_checked_ = false, stops_checked_ = false, shutdown_checked_ = false,
       error_checked_ = false;
};

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(SEARCHER_TESTDATA_DIR)) {
    if (e.path().extension() == ".scenario") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(SearcherScenarioTest, AllScenarios) {
  std::vector<std::string> files = ScenarioFiles();
  ASSERT_GE(files.size(), 10u) << "scenarios missing from " << SEARCHER_TESTDATA_DIR;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    ScenarioRunner(f).Run();
  }
}

}  // namespace
}  // namespace det::searcher
