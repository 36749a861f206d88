#include "cli/trial_progress.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace det::cli {
namespace {

using nlohmann::json;

json Validation(double loss) { return {{"metrics", {{"avgMetrics", {{"loss", loss}, {"acc", 0.5}}}}}}; }

TEST(TrialProgressLineTest, StateBatchesSearcherMetricAndRestarts) {
  json trial = {{"id", 7}, {"state", "STATE_RUNNING"}, {"totalBatchesProcessed", 300}, {"restarts", 1},
                {"latestValidation", Validation(0.0123)}, {"bestValidation", Validation(0.01)}};
  EXPECT_EQ(TrialProgressLine(trial, "loss"), "Trial 7: RUNNING, 300 batches, loss 0.0123 (best 0.01), 1 restart");
}

TEST(TrialProgressLineTest, NoValidationYetOrAnotherMetric) {
  json trial = {{"id", "12"}, {"state", "STATE_QUEUED"}, {"totalBatchesProcessed", 1}, {"restarts", 0},
                {"latestValidation", nullptr}, {"bestValidation", nullptr}};
  EXPECT_EQ(TrialProgressLine(trial, "loss"), "Trial 12: QUEUED, 1 batch");
  trial["latestValidation"] = Validation(0.2);
  EXPECT_EQ(TrialProgressLine(trial, "accuracy"), "Trial 12: QUEUED, 1 batch");
  EXPECT_EQ(TrialProgressLine(trial, "loss"), "Trial 12: QUEUED, 1 batch, loss 0.2");
}

TEST(ProgressBoardTest, NotLivePrintsEachChangeOnce) {
  std::ostringstream out;
  ProgressBoard board(out, /*live=*/false);
  board.Show({"Trial 1: RUNNING, 0 batches"});
  board.Show({"Trial 1: RUNNING, 0 batches"});
  board.Show({"Trial 1: RUNNING, 10 batches", "Trial 2: QUEUED, 0 batches"});
  board.Show({"Trial 1: RUNNING, 10 batches", "Trial 2: QUEUED, 0 batches"});
  EXPECT_EQ(out.str(),
            "Trial 1: RUNNING, 0 batches\n"
            "Trial 1: RUNNING, 10 batches\n"
            "Trial 2: QUEUED, 0 batches\n");
}

TEST(ProgressBoardTest, LiveRedrawsTheBlockInPlace) {
  std::ostringstream out;
  ProgressBoard board(out, /*live=*/true);
  board.Show({"a"});
  board.Show({"b", "c"});
  EXPECT_EQ(out.str(),
            "\x1b[2Ka\n"
            "\x1b[1F\x1b[2Kb\n\x1b[2Kc\n");
}

}  // namespace
}  // namespace det::cli
