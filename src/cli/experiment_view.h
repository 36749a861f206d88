#pragma once
// Pure rendering of experiment API objects (no I/O), so the layouts can be unit-tested.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cli/table.h"

namespace det::cli {

enum class OutputFormat { kTable, kCsv, kJson };

// A member of a JSON object, or null when `obj` is not an object or lacks it.
const nlohmann::json& Field(const nlohmann::json& obj, const char* key);
// The table as aligned text, or as CSV for kCsv.
std::string Render(const Table& t, OutputFormat format);
// `value` as indented JSON for kJson, else rendered as the table `table` makes of it (of an array,
// or of one object as a one-row array).
std::string RenderJsonOrTable(const nlohmann::json& value, Table (*table)(const nlohmann::json&),
                              OutputFormat format);

// `det experiment list`: ID, Owner, Name, Parent ID, State, Progress, Started, Ended, Resource Pool
// (+ Archived with --all).
Table ExperimentListTable(const nlohmann::json& experiments, bool show_archived);

// `det experiment describe`, one experiment's summary row.
Table ExperimentSummaryTable(const nlohmann::json& experiment);
// Trial ID, State, Batches, Started, Ended, Hyperparameters, Latest Validation.
Table TrialsTable(const nlohmann::json& trials);
// UUID, Trial ID, Steps, State, Report Time, Size, Location.
Table CheckpointsTable(const nlohmann::json& checkpoints, const nlohmann::json& checkpoint_storage);

// `det experiment list-checkpoints`, upstream's columns: Trial ID, # of Batches, State, Validation
// Metric (the value of `searcher_metric` at the checkpoint's step, else empty), UUID, Resources (the
// number of files), Size.
Table ExperimentCheckpointsTable(const nlohmann::json& checkpoints, const std::string& searcher_metric);

// The whole describe text: "Experiment:", "Trials:" and "Checkpoints:" sections.
// `get_experiment` is the GetExperiment response ({"experiment", "config"}).
std::string RenderExperimentDescription(const nlohmann::json& get_experiment,
                                        const nlohmann::json& trials,
                                        const nlohmann::json& checkpoints, OutputFormat format);

// The experiment's effective checkpoint_storage (response `config`, else `experiment.config`).
const nlohmann::json& CheckpointStorageOf(const nlohmann::json& get_experiment);
// Its searcher metric's name ("" when the config has none).
std::string SearcherMetricOf(const nlohmann::json& get_experiment);
// Sum of a checkpoint's `resources` sizes (int64 values as strings or numbers).
int64_t CheckpointBytes(const nlohmann::json& checkpoint);
// The same for a {path: size} resources object.
int64_t ResourcesBytes(const nlohmann::json& resources);

}  // namespace det::cli
