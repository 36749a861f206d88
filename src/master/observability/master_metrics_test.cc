#include "master/observability/master_metrics.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/test_temp_dir.h"

namespace det::master {
namespace {

bool Contains(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

ClusterObservation TwoAllocations() {
  ClusterObservation c;
  c.allocations.push_back({.allocation_id = "t1.1",
                           .task_id = "t1",
                           .task_type = "TRIAL",
                           .job_id = "j1",
                           .experiment_id = 7,
                           .resource_pool = "gpu",
                           .running = true,
                           .slots = 2,
                           .processes = {{.container_id = "t1.1.0",
                                          .agent_id = "a1",
                                          .runtime_id = "agent a1 pid 42",
                                          .gpu_uuids = {"GPU-0"}},
                                         {.container_id = "t1.1.1",
                                          .agent_id = "a2",
                                          .runtime_id = "",
                                          .gpu_uuids = {"GPU-1"}}}});
  c.allocations.push_back({.allocation_id = "c2.1",
                           .task_id = "c2",
                           .task_type = "COMMAND",
                           .job_id = "j2",
                           .resource_pool = "gpu",
                           .running = false,
                           .slots = 1});
  c.experiments.push_back(
      {.id = 7, .job_id = "j1", .labels = {"nightly", "a \"quoted\" label", "nightly"}});
  c.pools.push_back({.name = "gpu",
                     .slot_type = "cuda",
                     .agents = 2,
                     .slots_total = 4,
                     .slots_used = 2,
                     .queued_jobs = 1,
                     .pending_allocations = 1,
                     .running_allocations = 1});
  c.scheduling = {.passes = 3, .seconds_total = 0.5, .last_pass_seconds = 0.125};
  return c;
}

TEST(MasterMetricsTest, DetStateMetricsJoinRunningAllocations) {
  std::string text = DetStateMetricsText(TwoAllocations());
  EXPECT_TRUE(Contains(
      text, R"(det_container_id_allocation_id{allocation_id="t1.1",container_id="t1.1.0"} 1)"))
      << text;
  EXPECT_TRUE(Contains(
      text, R"(det_container_id_allocation_id{allocation_id="t1.1",container_id="t1.1.1"} 1)"));
  EXPECT_TRUE(Contains(
      text,
      R"(det_allocation_id_task_id_task_actor{allocation_id="t1.1",job_id="j1",task_actor="TRIAL",task_id="t1"} 1)"));
  EXPECT_TRUE(Contains(
      text,
      R"(det_container_id_runtime_container_id{container_id="t1.1.0",container_runtime_id="agent a1 pid 42"} 1)"));
  EXPECT_TRUE(Contains(text, R"(det_job_id_experiment_id{experiment_id="7",job_id="j1"} 1)"));
  EXPECT_TRUE(Contains(text, R"(det_experiment_id_label{experiment_id="7",label="nightly"} 1)"));
  EXPECT_TRUE(
      Contains(text, R"(det_experiment_id_label{experiment_id="7",label="a \"quoted\" label"} 1)"));
  EXPECT_TRUE(
      Contains(text, R"(det_gpu_uuid_container_id{container_id="t1.1.1",gpu_uuid="GPU-1"} 1)"));
  // The waiting command is in no join; a process not started yet has no runtime id; a repeated
  // label is one row.
  EXPECT_FALSE(Contains(text, "c2.1"));
  EXPECT_FALSE(Contains(text, R"(container_id="t1.1.1",container_runtime_id)"));
  size_t nightly = 0;
  for (size_t at = text.find("label=\"nightly\""); at != std::string::npos;
       at = text.find("label=\"nightly\"", at + 1)) {
    ++nightly;
  }
  EXPECT_EQ(nightly, 1u);
}

TEST(MasterMetricsTest, EmptyClusterHasNoDetStateSeries) { EXPECT_EQ(DetStateMetricsText({}), ""); }

TEST(MasterMetricsTest, CountsRequestsByRoutePatternWithBoundedMethods) {
  MasterMetrics metrics;
  metrics.Observe({.method = "GET",
                   .route = "/api/v1/experiments/{experiment_id}",
                   .status = 200,
                   .seconds = 0.02});
  metrics.Observe({.method = "GET",
                   .route = "/api/v1/experiments/{experiment_id}",
                   .status = 200,
                   .seconds = 3});
  metrics.Observe({.method = "BREW", .route = "/**", .status = 404, .seconds = 0.001});
  std::string text = metrics.Expose({.healthy = true});
  EXPECT_TRUE(Contains(
      text,
      R"(echo_requests_total{code="200",method="GET",url="/api/v1/experiments/{experiment_id}"} 2)"))
      << text;
  EXPECT_TRUE(Contains(text, R"(echo_requests_total{code="404",method="OTHER",url="/**"} 1)"));
  EXPECT_FALSE(Contains(text, "BREW"));
  EXPECT_TRUE(Contains(
      text,
      R"(echo_request_duration_seconds_bucket{code="200",method="GET",url="/api/v1/experiments/{experiment_id}",le="0.025"} 1)"));
  EXPECT_TRUE(Contains(
      text,
      R"(echo_request_duration_seconds_sum{code="200",method="GET",url="/api/v1/experiments/{experiment_id}"} 3.02)"));
  EXPECT_TRUE(Contains(text, "determined_healthy 1"));
  EXPECT_TRUE(Contains(metrics.Expose({.healthy = false}), "determined_healthy 0"));
}

TEST(MasterMetricsTest, ExposesClusterStoreAndProcessFigures) {
  MasterMetrics metrics;
  MasterFigures figures{.healthy = true,
                        .cluster = TwoAllocations(),
                        .metric_ingest = {.reports_committed = 120,
                                          .reports_failed = 1,
                                          .commits = 4,
                                          .reports_queued = 9},
                        .process = ProcessStats{.cpu_seconds = 1.5,
                                                .resident_bytes = 4096,
                                                .start_time_seconds = 1.7e9,
                                                .open_fds = 12,
                                                .max_fds = 1024,
                                                .threads = 5}};
  std::string text = metrics.Expose(figures);
  for (const char* line :
       {R"(determined_queued_jobs{resource_pool="gpu"} 1)",
        R"(determined_pending_allocations{resource_pool="gpu"} 1)",
        R"(determined_running_allocations{resource_pool="gpu"} 1)",
        R"(determined_slots_used{resource_pool="gpu",slot_type="cuda"} 2)",
        R"(determined_slots_free{resource_pool="gpu",slot_type="cuda"} 2)",
        R"(determined_agents{resource_pool="gpu"} 2)", "determined_scheduler_passes_total 3",
        "determined_scheduler_last_pass_seconds 0.125", "determined_metric_rows_ingested_total 120",
        "determined_metric_writer_queue_depth 9", "# TYPE process_cpu_seconds_total counter",
        "process_cpu_seconds_total 1.5", "process_resident_memory_bytes 4096",
        "process_open_fds 12", "process_max_fds 1024"}) {
    EXPECT_TRUE(Contains(text, line)) << line << "\n" << text;
  }
  figures.process.reset();
  EXPECT_FALSE(Contains(metrics.Expose(figures), "process_"));
}

// Both expositions pass Prometheus' own checker, where it is installed (Debian's prometheus
// package).
TEST(MasterMetricsTest, PromtoolAcceptsBothExpositions) {
  if (!std::filesystem::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool not installed";
  TestTempDir dir("det_promtool");
  MasterMetrics metrics;
  metrics.Observe(
      {.method = "GET", .route = "/api/v1/trials/{trial_id}", .status = 200, .seconds = 0.2});
  absl::StatusOr<ProcessStats> process = ReadProcessStats();
  ASSERT_TRUE(process.ok()) << process.status();
  for (const std::string& text :
       {metrics.Expose({.healthy = true, .cluster = TwoAllocations(), .process = *process}),
        DetStateMetricsText(TwoAllocations())}) {
    const std::filesystem::path file = dir.path() / "metrics.txt";
    std::ofstream(file) << text;
    const std::string command = "/usr/bin/promtool check metrics < " + file.string() + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string output;
    char buffer[512];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0) << output << "\n" << text;
  }
}

}  // namespace
}  // namespace det::master
