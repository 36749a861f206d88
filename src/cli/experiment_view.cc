#include "cli/experiment_view.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/wire.h"
#include "cli/checkpoint_location.h"
#include "cli/format.h"

namespace det::cli {
namespace {

using nlohmann::json;

std::string IntCell(const json& v) {
  if (v.is_null()) return "";
  absl::StatusOr<int64_t> n = api::ReadInt64(v, "value");
  return n.ok() ? std::to_string(*n) : Cell(v);
}

std::string Labels(const json& labels) {
  if (!labels.is_array()) return "";
  std::vector<std::string> names;
  for (const json& l : labels) {
    if (l.is_string()) names.push_back(l.get<std::string>());
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

const json& Field(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

std::string Render(const Table& t, OutputFormat format) {
  return format == OutputFormat::kCsv ? t.ToCsv() : t.Render();
}

std::string RenderJsonOrTable(const json& value, Table (*table)(const json&), OutputFormat format) {
  if (format == OutputFormat::kJson) return value.dump(4) + "\n";
  return Render(table(value.is_array() ? value : json::array({value})), format);
}

Table ExperimentListTable(const json& experiments, bool show_archived) {
  std::vector<std::string> headers = {"ID",       "Owner",   "Name",  "Parent ID",    "State",
                                      "Progress", "Started", "Ended", "Resource Pool"};
  if (show_archived) headers.push_back("Archived");
  Table t(headers);
  if (!experiments.is_array()) return t;
  for (const json& e : experiments) {
    std::vector<std::string> row = {IntCell(Field(e, "id")),
                                    Str(e, "username"),
                                    Str(e, "name"),
                                    IntCell(Field(e, "forkedFrom")),
                                    StripStatePrefix(Str(e, "state")),
                                    FormatPercent(Field(e, "progress")),
                                    FormatTime(Field(e, "startTime")),
                                    FormatTime(Field(e, "endTime")),
                                    Str(e, "resourcePool")};
    if (show_archived) row.push_back(Cell(Field(e, "archived")));
    t.AddRow(std::move(row));
  }
  return t;
}

Table ExperimentSummaryTable(const json& e) {
  Table t({"Experiment ID", "State", "Progress", "Started", "Ended", "Name", "Description",
           "Archived", "Resource Pool", "Labels"});
  t.AddRow({IntCell(Field(e, "id")), StripStatePrefix(Str(e, "state")),
            FormatPercent(Field(e, "progress")), FormatTime(Field(e, "startTime")),
            FormatTime(Field(e, "endTime")), Str(e, "name"), Str(e, "description"),
            Cell(Field(e, "archived")), Str(e, "resourcePool"), Labels(Field(e, "labels"))});
  return t;
}

Table TrialsTable(const json& trials) {
  Table t(
      {"Trial ID", "State", "Batches", "Started", "Ended", "Hyperparameters", "Latest Validation"});
  if (!trials.is_array()) return t;
  for (const json& tr : trials) {
    const json& hparams = Field(tr, "hparams");
    const json& latest = Field(Field(Field(tr, "latestValidation"), "metrics"), "avgMetrics");
    t.AddRow({IntCell(Field(tr, "id")), StripStatePrefix(Str(tr, "state")),
              IntCell(Field(tr, "totalBatchesProcessed")), FormatTime(Field(tr, "startTime")),
              FormatTime(Field(tr, "endTime")), hparams.is_null() ? "" : hparams.dump(),
              FormatMetrics(latest)});
  }
  return t;
}

int64_t CheckpointBytes(const json& checkpoint) { return ResourcesBytes(Field(checkpoint, "resources")); }

int64_t ResourcesBytes(const json& resources) {
  if (!resources.is_object()) return 0;
  int64_t total = 0;
  for (const auto& [path, size] : resources.items()) {
    absl::StatusOr<int64_t> n = api::ReadInt64(size, path);
    if (n.ok()) total += *n;
  }
  return total;
}

Table CheckpointsTable(const json& checkpoints, const json& storage) {
  Table t({"UUID", "Trial ID", "Steps", "State", "Report Time", "Size", "Location"});
  if (!checkpoints.is_array()) return t;
  for (const json& c : checkpoints) {
    std::string uuid = Str(c, "uuid");
    const json& trial_id = Field(Field(c, "training"), "trialId");
    const json& steps = Field(Field(c, "metadata"), "steps_completed");
    t.AddRow({uuid, IntCell(trial_id), IntCell(steps), StripStatePrefix(Str(c, "state")),
              FormatTime(Field(c, "reportTime")), FormatBytes(CheckpointBytes(c)),
              CheckpointLocation(storage, uuid)});
  }
  return t;
}

Table ExperimentCheckpointsTable(const json& checkpoints, const std::string& searcher_metric) {
  Table t({"Trial ID", "# of Batches", "State", "Validation Metric", "UUID", "Resources", "Size"});
  if (!checkpoints.is_array()) return t;
  for (const json& c : checkpoints) {
    const json& training = Field(c, "training");
    const json& value = Field(Field(Field(training, "validationMetrics"), "avgMetrics"), searcher_metric.c_str());
    const json& resources = Field(c, "resources");
    t.AddRow({IntCell(Field(training, "trialId")), IntCell(Field(Field(c, "metadata"), "steps_completed")),
              StripStatePrefix(Str(c, "state")), value.is_null() ? "" : Cell(value), Str(c, "uuid"),
              std::to_string(resources.is_object() ? resources.size() : 0), FormatBytes(CheckpointBytes(c))});
  }
  return t;
}

namespace {

// A section of the experiment's config: the response's `config`, else `experiment.config`.
const json& ConfigSection(const json& get_experiment, const char* section) {
  const json& top = Field(Field(get_experiment, "config"), section);
  if (top.is_object()) return top;
  return Field(Field(Field(get_experiment, "experiment"), "config"), section);
}

}  // namespace

const json& CheckpointStorageOf(const json& get_experiment) {
  return ConfigSection(get_experiment, "checkpoint_storage");
}

std::string SearcherMetricOf(const json& get_experiment) {
  const json& metric = Field(ConfigSection(get_experiment, "searcher"), "metric");
  return metric.is_string() ? metric.get<std::string>() : "";
}

std::string RenderExperimentDescription(const json& get_experiment, const json& trials,
                                        const json& checkpoints, OutputFormat format) {
  std::string out;
  if (format == OutputFormat::kTable) out += "Experiment:\n";
  out += Render(ExperimentSummaryTable(Field(get_experiment, "experiment")), format);
  if (format == OutputFormat::kTable) out += "\nTrials:\n";
  out += Render(TrialsTable(trials), format);
  if (format == OutputFormat::kTable) out += "\nCheckpoints:\n";
  out += Render(CheckpointsTable(checkpoints, CheckpointStorageOf(get_experiment)), format);
  return out;
}

}  // namespace det::cli
