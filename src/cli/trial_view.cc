#include "cli/trial_view.h"

#include <nlohmann/json.hpp>

#include "cli/format.h"
#include "cli/table.h"

namespace det::cli {
using nlohmann::json;

std::string RenderTrialDescription(const json& trial, const json& validations, OutputFormat format) {
  std::string out;
  if (format == OutputFormat::kTable) out += "Trial:\n";
  out += Render(TrialsTable(json::array({trial})), format);

  Table details({"Experiment ID", "Restarts", "Checkpoints", "Runner State", "Best Validation"});
  details.AddRow({Cell(Field(trial, "experimentId")), Cell(Field(trial, "restarts")),
                  Cell(Field(trial, "checkpointCount")), Cell(Field(trial, "runnerState")),
                  FormatMetrics(Field(Field(Field(trial, "bestValidation"), "metrics"), "avgMetrics"))});
  if (format == OutputFormat::kTable) out += "\n";
  out += Render(details, format);

  if (!validations.is_array()) return out;
  Table metrics({"Batches", "Report Time", "Validation Metrics"});
  for (const json& report : validations) {
    metrics.AddRow({Cell(Field(report, "totalBatches")), FormatTime(Field(report, "endTime")),
                    FormatMetrics(Field(Field(report, "metrics"), "validation_metrics"))});
  }
  if (format == OutputFormat::kTable) out += "\nValidation metrics:\n";
  out += Render(metrics, format);
  return out;
}

}  // namespace det::cli
