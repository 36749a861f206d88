#include "cli/trial_view.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "cli/format.h"
#include "cli/table.h"

namespace det::cli {
using nlohmann::json;

namespace {

// The one workload a WorkloadContainer holds ({"training"|"validation"|"checkpoint": ...}).
const json& Unpacked(const json& container) {
  for (const char* kind : {"training", "validation", "checkpoint"}) {
    if (const json& w = Field(container, kind); w.is_object()) return w;
  }
  static const json kNone;
  return kNone;
}

}  // namespace

std::string RenderTrialDescription(const json& trial, const json& workloads, bool training_metrics,
                                   OutputFormat format) {
  std::string out;
  if (format == OutputFormat::kTable) out += "Trial:\n";
  out += Render(TrialsTable(json::array({trial})), format);

  Table details({"Experiment ID", "Restarts", "Checkpoints", "Runner State", "Best Validation"});
  details.AddRow({Cell(Field(trial, "experimentId")), Cell(Field(trial, "restarts")),
                  Cell(Field(trial, "checkpointCount")), Cell(Field(trial, "runnerState")),
                  FormatMetrics(Field(Field(Field(trial, "bestValidation"), "metrics"), "avgMetrics"))});
  if (format == OutputFormat::kTable) out += "\n";
  out += Render(details, format);

  std::vector<std::string> headers = {"# of Batches", "Report Time", "Checkpoint", "Checkpoint UUID",
                                      "Validation Metrics"};
  if (training_metrics) headers.push_back("Workload Metrics");
  Table rows(headers);
  for (const json& container : workloads.is_array() ? workloads : json::array()) {
    const json& w = Unpacked(container);
    const json& checkpoint = Field(container, "checkpoint");
    std::vector<std::string> row = {
        Cell(Field(w, "totalBatches")), FormatTime(Field(w, "endTime")),
        StripStatePrefix(Str(checkpoint, "state")), Str(checkpoint, "uuid"),
        FormatMetrics(Field(Field(Field(container, "validation"), "metrics"), "avgMetrics"))};
    if (training_metrics) {
      row.push_back(FormatMetrics(Field(Field(Field(container, "training"), "metrics"), "avgMetrics")));
    }
    rows.AddRow(std::move(row));
  }
  if (format == OutputFormat::kTable) out += "\nWorkloads:\n";
  out += Render(rows, format);
  return out;
}

}  // namespace det::cli
