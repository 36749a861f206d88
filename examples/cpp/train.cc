// train_digits: a libtorch MLP (64 -> hidden -> 10) on scikit-learn's 8x8 digits, trained with the
// C++ Core API of libdetermined. The C++ twin of examples/digits/train.py:
//
//   - hyperparameters come from the trial (DET_HPARAMS), with the defaults below off-cluster;
//   - every validation period it reports training and validation metrics and stores a checkpoint
//     (model.pt, optimizer.pt, metadata {"steps_completed": N});
//   - when the trial restarts (after a pause, a preemption or a crash) it loads the latest
//     checkpoint (ClusterInfo::latest_checkpoint) and goes on from that checkpoint's step;
//   - when the master asks it to stop (preempt().ShouldPreempt()) it exits 0 after the checkpoint.
//
// Usage: train_digits [DATA_CSV]   (default digits.csv, written by export_digits.py)
//
// This is the only translation unit that includes libtorch headers (they take ~30 s to compile).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "harness/core_context.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr int64_t kFeatures = 64;
constexpr int64_t kClasses = 10;

struct HParams {
  double learning_rate = 0.1;
  int64_t hidden_size = 128;
  int64_t global_batch_size = 32;
  int64_t epochs = 5;
  // Milliseconds to sleep after every batch, 0 by default. Training this model takes well under a
  // second; tests/e2e/test_cpp_example.py slows it down so that a pause lands mid-training.
  int64_t batch_sleep_ms = 0;
};

struct Dataset {
  torch::Tensor x_train, y_train, x_val, y_val;
};

// How long to train and how often to validate, from the experiment config the same way as
// examples/digits/train.py: searcher.max_time when the searcher counts batches, else
// data.max_batches, else `epochs` epochs; validation every data.validation_period_batches, else
// once per epoch.
struct Plan {
  int64_t total_batches = 0;
  int64_t period = 0;
};

// Reads DATA_CSV: one digit per line, 64 pixel values (0..16) then the label.
absl::StatusOr<Dataset> LoadDigits(const fs::path& csv) {
  std::ifstream in(csv);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(csv.string(),
                                            ": cannot open the digits data; write it with "
                                            "`/usr/bin/python3 export_digits.py ",
                                            csv.string(), "`"));
  }
  std::vector<float> features;
  std::vector<int64_t> labels;
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    std::vector<double> values;
    std::stringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) {
      char* end = nullptr;
      double v = std::strtod(field.c_str(), &end);
      if (end == field.c_str()) {
        return absl::InvalidArgumentError(
            absl::StrCat(csv.string(), ":", line_no, ": not a number: \"", field, "\""));
      }
      values.push_back(v);
    }
    if (static_cast<int64_t>(values.size()) != kFeatures + 1) {
      return absl::InvalidArgumentError(absl::StrCat(csv.string(), ":", line_no, ": expected ",
                                                     kFeatures + 1, " values, got ",
                                                     values.size()));
    }
    for (int64_t i = 0; i < kFeatures; ++i) features.push_back(values[i] / 16.0);
    labels.push_back(static_cast<int64_t>(values[kFeatures]));
  }
  const auto n = static_cast<int64_t>(labels.size());
  if (n < 10) {
    return absl::InvalidArgumentError(
        absl::StrCat(csv.string(), ": expected the 1797 digits, got ", n, " lines"));
  }
  torch::Tensor x = torch::from_blob(features.data(), {n, kFeatures}, torch::kFloat32).clone();
  torch::Tensor y = torch::from_blob(labels.data(), {n}, torch::kInt64).clone();

  // The same 80/20 split for every trial (a fixed shuffle).
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(0));
  const int64_t n_val = n / 5;
  torch::Tensor val = torch::tensor(std::vector<int64_t>(perm.begin(), perm.begin() + n_val));
  torch::Tensor train = torch::tensor(std::vector<int64_t>(perm.begin() + n_val, perm.end()));
  return Dataset{x.index_select(0, train), y.index_select(0, train), x.index_select(0, val),
                 y.index_select(0, val)};
}

int64_t IntAt(const json& obj, const char* key, int64_t fallback) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return fallback;
  return obj[key].get<int64_t>();
}

HParams ParseHParams(const json& hp) {
  HParams h;
  if (hp.contains("learning_rate") && hp["learning_rate"].is_number()) {
    h.learning_rate = hp["learning_rate"].get<double>();
  }
  h.hidden_size = IntAt(hp, "hidden_size", h.hidden_size);
  h.global_batch_size = IntAt(hp, "global_batch_size", h.global_batch_size);
  h.epochs = IntAt(hp, "epochs", h.epochs);
  h.batch_sleep_ms = IntAt(hp, "batch_sleep_ms", h.batch_sleep_ms);
  return h;
}

Plan MakePlan(const json& config, const HParams& h, int64_t batches_per_epoch) {
  const json searcher = config.value("searcher", json::object());
  const json data = config.value("data", json::object());
  Plan p;
  if (searcher.is_object() && searcher.value("time_metric", json()) == "batches" &&
      IntAt(searcher, "max_time", 0) > 0) {
    p.total_batches = IntAt(searcher, "max_time", 0);
  } else if (IntAt(data, "max_batches", 0) > 0) {
    p.total_batches = IntAt(data, "max_batches", 0);
  } else {
    p.total_batches = h.epochs * batches_per_epoch;
  }
  p.period = std::max<int64_t>(1, IntAt(data, "validation_period_batches", batches_per_epoch));
  return p;
}

// (loss, accuracy) of `model` on a whole split.
std::pair<double, double> Evaluate(torch::nn::Sequential& model, const torch::Tensor& x,
                                   const torch::Tensor& y) {
  torch::NoGradGuard no_grad;
  model->eval();
  torch::Tensor logits = model->forward(x);
  double loss = torch::nn::functional::cross_entropy(logits, y).item<double>();
  double accuracy = logits.argmax(1).eq(y).to(torch::kFloat64).mean().item<double>();
  return {loss, accuracy};
}

absl::Status Run(const fs::path& data_path) {
  auto core_or = det::harness::CoreContext::Init();
  if (!core_or.ok()) return core_or.status();
  det::harness::CoreContext& core = **core_or;
  const auto& info = core.info();

  HParams hparams;
  json config = json::object();
  uint32_t seed = 0;
  std::optional<std::string> latest_checkpoint;
  if (info.has_value() && info->trial.has_value()) {
    hparams = ParseHParams(json::parse(info->trial->hparams_json, nullptr, false));
    config = json::parse(info->trial->config_json, nullptr, false);
    if (!config.is_object()) config = json::object();
    seed = info->trial->trial_seed;
    latest_checkpoint = info->latest_checkpoint;
  }
  if (hparams.global_batch_size < 1 || hparams.hidden_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("hyperparameters: global_batch_size and hidden_size must be >= 1, got ",
                     hparams.global_batch_size, " and ", hparams.hidden_size));
  }
  std::cout << "hyperparameters: learning_rate=" << hparams.learning_rate
            << " hidden_size=" << hparams.hidden_size
            << " global_batch_size=" << hparams.global_batch_size << " epochs=" << hparams.epochs
            << " seed=" << seed << std::endl;

  auto data_or = LoadDigits(data_path);
  if (!data_or.ok()) return data_or.status();
  const Dataset& data = *data_or;

  torch::manual_seed(seed);
  torch::nn::Sequential model(torch::nn::Linear(kFeatures, hparams.hidden_size), torch::nn::ReLU(),
                              torch::nn::Linear(hparams.hidden_size, kClasses));
  torch::optim::SGD opt(model->parameters(),
                        torch::optim::SGDOptions(hparams.learning_rate).momentum(0.9));
  const int64_t n_train = data.x_train.size(0);
  const int64_t batch_size = hparams.global_batch_size;
  const int64_t batches_per_epoch = (n_train + batch_size - 1) / batch_size;
  const Plan plan = MakePlan(config, hparams, batches_per_epoch);

  int64_t steps = 0;
  if (latest_checkpoint.has_value()) {
    auto path = core.checkpoint().RestorePath(*latest_checkpoint);
    if (!path.ok()) return path.status();
    auto metadata = core.checkpoint().GetMetadataJson(*latest_checkpoint);
    if (!metadata.ok()) return metadata.status();
    steps = IntAt(json::parse(*metadata, nullptr, false), "steps_completed", -1);
    if (steps < 0) {
      return absl::DataLossError(absl::StrCat("checkpoint ", *latest_checkpoint,
                                              ": metadata has no steps_completed: ", *metadata));
    }
    torch::load(model, (*path / "model.pt").string());
    torch::load(opt, (*path / "optimizer.pt").string());
    core.checkpoint().ReleaseRestorePath(*path);  // remote storage removes its downloaded copy
    std::cout << "resumed from checkpoint " << *latest_checkpoint << " at step " << steps
              << std::endl;
  }

  double total_loss = 0;
  int64_t since_report = 0;
  std::optional<double> final_accuracy;
  while (steps < plan.total_batches) {
    const int64_t epoch = steps / batches_per_epoch;
    const int64_t offset = steps % batches_per_epoch;
    // Shuffle per (seed, epoch), so that a resumed trial sees the batches it would have seen.
    std::vector<int64_t> order(n_train);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + epoch));
    const int64_t begin = offset * batch_size;
    const int64_t end = std::min(n_train, begin + batch_size);
    torch::Tensor idx =
        torch::tensor(std::vector<int64_t>(order.begin() + begin, order.begin() + end));

    model->train();
    opt.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        model->forward(data.x_train.index_select(0, idx)), data.y_train.index_select(0, idx));
    loss.backward();
    opt.step();
    total_loss += loss.item<double>();
    ++since_report;
    ++steps;
    if (hparams.batch_sleep_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(hparams.batch_sleep_ms));
    }
    if (steps % plan.period != 0 && steps != plan.total_batches) continue;

    const double train_loss = total_loss / static_cast<double>(since_report);
    total_loss = 0;
    since_report = 0;
    auto [val_loss, accuracy] = Evaluate(model, data.x_val, data.y_val);
    final_accuracy = accuracy;
    absl::Status st =
        core.train().ReportTrainingMetrics(steps, {{"loss", train_loss}}, json(nullptr));
    if (!st.ok()) return st;
    st = core.train().ReportValidationMetrics(
        steps, {{"validation_loss", val_loss}, {"accuracy", accuracy}, {"batches", steps}});
    if (!st.ok()) return st;
    std::cout << "batch " << steps << "/" << plan.total_batches << ": loss=" << train_loss
              << " validation_loss=" << val_loss << " accuracy=" << accuracy << std::endl;

    auto pending = core.checkpoint().BeginStore();
    if (!pending.ok()) return pending.status();
    torch::save(model, (pending->path / "model.pt").string());
    torch::save(opt, (pending->path / "optimizer.pt").string());
    st = core.checkpoint().CommitStore(*pending, {{"steps_completed", steps}});
    if (!st.ok()) return st;
    std::cout << "saved checkpoint " << pending->uuid << " at batch " << steps << std::endl;
    // Progress is advisory (the web UI's bar): a failure is not worth stopping the trial for.
    if (absl::Status p = core.train().ReportProgress(static_cast<double>(steps) /
                                                     static_cast<double>(plan.total_batches));
        !p.ok()) {
      std::cerr << "reporting progress: " << p << std::endl;
    }

    if (core.preempt().ShouldPreempt()) {
      std::cout << "preemption requested; stopping at batch " << steps << std::endl;
      break;
    }
  }
  if (steps >= plan.total_batches && final_accuracy.has_value()) {
    std::cout << "final validation accuracy=" << *final_accuracy << std::endl;
  }
  return core.Close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 ||
      (argc == 2 && (std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help"))) {
    std::cerr << "usage: " << argv[0]
              << " [DATA_CSV]   (default digits.csv, see export_digits.py)\n";
    return 2;
  }
  const fs::path data_path = argc == 2 ? fs::path(argv[1]) : fs::path("digits.csv");
  try {
    absl::Status st = Run(data_path);
    if (!st.ok()) {
      std::cerr << "train_digits: " << st << std::endl;
      return 1;
    }
  } catch (const std::exception& e) {  // libtorch reports errors (e.g. a corrupt .pt) by throwing
    std::cerr << "train_digits: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
