#include "harness/metrics_reporter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

namespace det::harness {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

RetryPolicy FastRetry(int max_elapsed_ms = 5000) {
  return RetryPolicy{milliseconds(1), milliseconds(5), milliseconds(max_elapsed_ms)};
}

// Records what would be POSTed; `script` decides each call's result.
struct FakeMaster {
  std::mutex mu;
  std::vector<std::pair<std::string, json>> posts;  // (path, body) of each request that succeeded
  std::function<absl::Status(int call)> script = [](int) { return absl::OkStatus(); };
  int calls = 0;

  MetricsReporter::PostFn Fn() {
    return [this](const std::string& path, const json& body) {
      int call;
      {
        std::lock_guard<std::mutex> lock(mu);
        call = calls++;
      }
      absl::Status s = script(call);
      if (s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        posts.emplace_back(path, body);
      }
      return s;
    };
  }

  // Every call waits until `release` is set, then gets `result(call)`.
  void HoldCallsUntil(const std::atomic<bool>& release,
                      std::function<absl::Status(int call)> result = [](int) { return absl::OkStatus(); }) {
    script = [&release, result = std::move(result)](int call) {
      while (!release.load()) std::this_thread::sleep_for(milliseconds(1));
      return result(call);
    };
  }

  void WaitForCalls(int n) {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (calls >= n) return;
      }
      std::this_thread::sleep_for(milliseconds(1));
    }
  }

  // Every report that arrived, in order, whether alone or in a batch.
  std::vector<json> Reports() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<json> out;
    for (const auto& [path, body] : posts) {
      if (path.ends_with("/batch")) {
        for (const json& report : body["reports"]) out.push_back(report);
      } else {
        out.push_back(body);
      }
    }
    return out;
  }
};

TEST(MetricsReporterTest, ReportDoesNotWaitForTheNetwork) {
  FakeMaster master;
  std::atomic<bool> release{false};
  master.HoldCallsUntil(release);
  MetricsReporter r(7, 3, master.Fn(), FastRetry());
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(r.Report("training", 0, json{{"loss", 1.0}}, json()).ok());
  master.WaitForCalls(1);  // the first report is out, held by the master
  for (int i = 1; i < 100; ++i) {
    ASSERT_TRUE(r.Report("training", i, json{{"loss", 1.0 / (i + 1)}}, json()).ok());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
  release = true;
  ASSERT_TRUE(r.Flush().ok());
  EXPECT_EQ(r.sent_count(), 100);
  // The first report went alone; the 99 queued behind it went together.
  ASSERT_EQ(master.posts.size(), 2u);
  EXPECT_EQ(master.posts[0].first, "/api/v1/trials/7/metrics");
  EXPECT_EQ(master.posts[1].first, "/api/v1/trials/7/metrics/batch");
  std::vector<json> reports = master.Reports();
  ASSERT_EQ(reports.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(reports[i]["metrics"]["stepsCompleted"], i);  // in order
    EXPECT_EQ(reports[i]["metrics"]["trialRunId"], 3);
  }
}

TEST(MetricsReporterTest, ReportsWithinTheLingerGoInOneRequest) {
  FakeMaster master;
  MetricsReporter r(7, 1, master.Fn(), FastRetry(), milliseconds(300));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(r.Report("training", i, json{{"loss", 1}}, json()).ok());
  master.WaitForCalls(1);
  ASSERT_TRUE(r.Flush().ok());
  ASSERT_EQ(master.posts.size(), 1u);
  EXPECT_EQ(master.posts[0].first, "/api/v1/trials/7/metrics/batch");
  EXPECT_EQ(master.posts[0].second["reports"].size(), 5u);
}

TEST(MetricsReporterTest, FlushDoesNotWaitOutTheLinger) {
  FakeMaster master;
  MetricsReporter r(7, 1, master.Fn(), FastRetry(), std::chrono::hours(1));
  ASSERT_TRUE(r.Report("training", 1, json{{"loss", 1}}, json()).ok());
  ASSERT_TRUE(r.Flush().ok());  // would hang for an hour otherwise
  EXPECT_EQ(master.Reports().size(), 1u);
  ASSERT_TRUE(r.Report("training", 2, json{{"loss", 1}}, json()).ok());
  EXPECT_TRUE(r.Close().ok());
  EXPECT_EQ(master.Reports().size(), 2u);
}

TEST(MetricsReporterTest, ABatchIsRetriedWholeAndCountsEveryReport) {
  FakeMaster master;
  std::atomic<bool> release{false};
  master.HoldCallsUntil(release, [](int call) {
    return call == 1 ? absl::UnavailableError("master restarting") : absl::OkStatus();
  });
  MetricsReporter r(7, 1, master.Fn(), FastRetry());
  ASSERT_TRUE(r.Report("training", 0, json{{"loss", 1}}, json()).ok());
  master.WaitForCalls(1);
  for (int i = 1; i < 5; ++i) ASSERT_TRUE(r.Report("training", i, json{{"loss", 1}}, json()).ok());
  release = true;
  ASSERT_TRUE(r.Flush().ok());
  EXPECT_EQ(master.calls, 3) << "the single report, the batch of 4 failing once, the batch again";
  EXPECT_EQ(r.sent_count(), 5);
  EXPECT_EQ(master.Reports().size(), 5u);
}

TEST(MetricsReporterTest, ABatchNeverExceedsTheLimit) {
  FakeMaster master;
  std::atomic<bool> release{false};
  master.HoldCallsUntil(release);
  MetricsReporter r(7, 1, master.Fn(), FastRetry());
  const int n = static_cast<int>(MetricsReporter::kMaxReportsPerRequest) + 50;
  for (int i = 0; i < n; ++i) ASSERT_TRUE(r.Report("training", i, json::object(), json()).ok());
  release = true;
  ASSERT_TRUE(r.Flush().ok());
  for (const auto& [path, body] : master.posts) {
    if (path.ends_with("/batch")) {
      EXPECT_LE(body["reports"].size(), MetricsReporter::kMaxReportsPerRequest);
    }
  }
  EXPECT_EQ(master.Reports().size(), static_cast<size_t>(n));
}

TEST(MetricsReporterTest, RetriesTransientFailures) {
  FakeMaster master;
  master.script = [](int call) {
    return call < 2 ? absl::UnavailableError("master restarting") : absl::OkStatus();
  };
  MetricsReporter r(1, 1, master.Fn(), FastRetry());
  ASSERT_TRUE(r.Report("validation", 10, json{{"accuracy", 0.9}}, json()).ok());
  EXPECT_TRUE(r.Flush().ok());
  EXPECT_EQ(master.calls, 3);
  ASSERT_EQ(master.posts.size(), 1u);
  EXPECT_EQ(master.posts[0].second["group"], "validation");
}

TEST(MetricsReporterTest, PermanentFailureIsReportedOnceAndLaterReportsStillGo) {
  FakeMaster master;
  master.script = [](int call) {
    return call == 0 ? absl::InvalidArgumentError("bad metric") : absl::OkStatus();
  };
  MetricsReporter r(1, 1, master.Fn(), FastRetry());
  ASSERT_TRUE(r.Report("training", 1, json{{"loss", 1}}, json()).ok());
  absl::Status s = r.Flush();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("training metrics at step 1"), std::string::npos) << s;
  EXPECT_EQ(master.calls, 1);  // not retried
  ASSERT_TRUE(r.Report("training", 2, json{{"loss", 1}}, json()).ok());
  EXPECT_TRUE(r.Flush().ok());
  EXPECT_EQ(r.sent_count(), 1);
}

TEST(MetricsReporterTest, GivesUpAfterTheRetryBudget) {
  FakeMaster master;
  master.script = [](int) { return absl::UnavailableError("down"); };
  MetricsReporter r(1, 1, master.Fn(), FastRetry(30));
  ASSERT_TRUE(r.Report("training", 1, json{{"loss", 1}}, json()).ok());
  EXPECT_EQ(r.Flush().code(), absl::StatusCode::kUnavailable);
  EXPECT_GT(master.calls, 1);
}

TEST(MetricsReporterTest, MalformedReportsFailAtOnce) {
  FakeMaster master;
  MetricsReporter r(1, 1, master.Fn(), FastRetry());
  EXPECT_EQ(r.Report("training", 1, json::array({1}), json()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.Report("", 1, json::object(), json()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.Report("training", -1, json::object(), json()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.Report("training", 1, json::object(), json::array({1})).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(r.Report("training", 1, json{{"loss", 2}}, json::array({json{{"loss", 2}}})).ok());
  EXPECT_TRUE(r.Flush().ok());
  ASSERT_EQ(master.posts.size(), 1u);
  EXPECT_EQ(master.posts[0].second["metrics"]["metrics"]["batchMetrics"][0]["loss"], 2);
}

TEST(MetricsReporterTest, CloseDrainsAndRefusesLaterReports) {
  FakeMaster master;
  MetricsReporter r(1, 1, master.Fn(), FastRetry());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(r.Report("training", i, json::object(), json()).ok());
  EXPECT_TRUE(r.Close().ok());
  EXPECT_EQ(master.Reports().size(), 10u);
  EXPECT_EQ(r.Report("training", 11, json::object(), json()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(r.Close().ok());  // idempotent
}

}  // namespace
}  // namespace det::harness
