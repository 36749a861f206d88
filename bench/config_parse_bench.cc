// Parse + validate + default a typical 60-line experiment config N times; prints mean and p99 per
// parse. Goal: < 1 ms per parse. Usage: config_parse_bench [N=2000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json_yaml.h"
#include "config/experiment_config.h"

namespace {

constexpr char kConfig[] = R"(name: mnist-asha
description: ASHA over a small CNN with nested optimizer settings
labels: [bench, asha]
entrypoint: python3 train.py --epochs 10
searcher:
  name: adaptive_asha
  metric: validation_loss
  smaller_is_better: true
  max_trials: 64
  max_concurrent_trials: 8
  mode: aggressive
  max_rungs: 4
  divisor: 4
  time_metric: batches
  max_time: 10000
hyperparameters:
  global_batch_size: 64
  dropout: {type: double, minval: 0.1, maxval: 0.5}
  layers: {type: int, minval: 1, maxval: 4}
  activation: {type: categorical, vals: [relu, gelu, tanh]}
  optimizer:
    lr: {type: log, minval: -5, maxval: -1, base: 10}
    momentum: {type: const, val: 0.9}
    schedule:
      warmup: 100
      kind: cosine
resources:
  slots_per_trial: 2
  max_slots: 8
  weight: 2
  priority: 10
  resource_pool: gpu-pool
  shm_size: 4G
  devices:
    - /dev/fuse:/dev/fuse:rwm
environment:
  image:
    cpu: determinedai/pytorch-ngc-dev:0736b6d
    cuda: determinedai/pytorch-ngc-dev:0736b6d
  environment_variables:
    - NCCL_DEBUG=INFO
    - OMP_NUM_THREADS=4
  force_pull_image: false
bind_mounts:
  - host_path: /data/mnist
    container_path: /mnt/mnist
    read_only: true
checkpoint_storage:
  type: shared_fs
  host_path: /mnt/checkpoints
  storage_path: mnist
  save_trial_best: 2
reproducibility:
  experiment_seed: 1234
log_policies:
  - name: nccl timeout
    pattern: ".*NCCL timeout.*"
    action: cancel_retries
max_restarts: 2
debug: false
)";

// CPU time of this thread: excludes the time the (shared) machine spends running other builders.
double ThreadCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void Report(const char* what, std::vector<double> v) {
  double sum = 0;
  for (double x : v) sum += x;
  std::sort(v.begin(), v.end());
  std::printf("%-28s mean %7.1f us  p50 %7.1f us  p99 %7.1f us  max %8.1f us\n", what,
              sum / v.size(), v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 99 / 100)],
              v.back());
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (n <= 0) n = 2000;
  det::config::ExperimentDefaults defaults{
      .checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp/ckpt"})",
      .seed = 7,
      .name = "Experiment (bench)"};
  auto first = det::config::ParseExperimentConfig(kConfig, defaults);
  if (!first.ok()) {
    std::fprintf(stderr, "config does not validate: %s\n",
                 std::string(first.status().message()).c_str());
    return 1;
  }
  int lines = static_cast<int>(std::count(std::begin(kConfig), std::end(kConfig), '\n'));
  std::vector<double> wall, cpu, yaml_cpu, validate_cpu;
  size_t sink = 0;
  for (int i = 0; i < n; ++i) {
    auto start = std::chrono::steady_clock::now();
    double cpu_start = ThreadCpuMicros();
    auto cfg = det::config::ParseExperimentConfig(kConfig, defaults);
    cpu.push_back(ThreadCpuMicros() - cpu_start);
    wall.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    sink += cfg->full_json.size();
  }
  // The same work in two phases: YAML -> JSON (common/json_yaml), then validate + default.
  for (int i = 0; i < n; ++i) {
    double t0 = ThreadCpuMicros();
    auto parsed = det::ParseYaml(kConfig);
    double t1 = ThreadCpuMicros();
    auto cfg = det::config::ParseExperimentConfigJson(*parsed, defaults);
    double t2 = ThreadCpuMicros();
    sink += cfg->full_json.size();
    yaml_cpu.push_back(t1 - t0);
    validate_cpu.push_back(t2 - t1);
  }
  std::printf("config_parse_bench: %d parses of a %d-line config (full_json %zu bytes)\n", n, lines,
              sink / (2 * n));
  Report("wall per parse", wall);
  Report("thread CPU per parse", cpu);
  Report("  YAML -> JSON (CPU)", yaml_cpu);
  Report("  validate + default (CPU)", validate_cpu);
  std::printf("goal: mean < 1000 us\n");
  return 0;
}
