#include "cli/experiment_ops.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/wire.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "common/base64.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

std::string ExperimentPath(int id) { return absl::StrCat("/api/v1/experiments/", id); }

struct Described {
  json experiment_response;
  json trials;
  json checkpoints;
};

absl::StatusOr<Described> Describe(Session& session, int id) {
  Described d;
  absl::StatusOr<json> exp = session.Get(ExperimentPath(id));
  if (!exp.ok()) return exp.status();
  d.experiment_response = std::move(*exp);
  absl::StatusOr<json> trials = GetAllPages(session, ExperimentPath(id) + "/trials", "trials");
  if (!trials.ok()) return trials.status();
  d.trials = std::move(*trials);
  absl::StatusOr<json> ckpts =
      GetAllPages(session, ExperimentPath(id) + "/checkpoints", "checkpoints");
  if (!ckpts.ok()) return ckpts.status();
  d.checkpoints = std::move(*ckpts);
  return d;
}

}  // namespace

absl::StatusOr<int> ListExperiments(Session& session, const ListExperimentsArgs& args,
                                    std::ostream& out) {
  std::string path = "/api/v1/experiments";
  if (!args.all) {
    if (absl::Status s = session.EnsureLoggedIn(); !s.ok()) return s;
    path = AddQuery(path, "archived", "false");
    path = AddQuery(path, "users", session.username());
  }
  absl::StatusOr<json> exps =
      GetAllPages(session, path, "experiments", args.offset, args.limit, args.pages);
  if (!exps.ok()) return exps.status();
  switch (args.format) {
    case OutputFormat::kJson:
      out << exps->dump(2) << "\n";
      break;
    case OutputFormat::kCsv:
      out << ExperimentListTable(*exps, args.all).ToCsv();
      break;
    case OutputFormat::kTable:
      out << ExperimentListTable(*exps, args.all).Render();
      break;
  }
  return 0;
}

absl::StatusOr<int> DescribeExperiments(Session& session, const std::string& ids,
                                        OutputFormat format, std::ostream& out) {
  std::vector<int> parsed;
  for (absl::string_view part : absl::StrSplit(ids, ',', absl::SkipWhitespace())) {
    int id = 0;
    if (!absl::SimpleAtoi(part, &id) || id <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("experiment ID must be a positive integer, got '", part, "'"));
    }
    parsed.push_back(id);
  }
  if (parsed.empty()) return absl::InvalidArgumentError("no experiment ID given");

  json docs = json::array();
  std::string text;
  for (int id : parsed) {
    absl::StatusOr<Described> d = Describe(session, id);
    if (!d.ok()) return d.status();
    if (format == OutputFormat::kJson) {
      json doc = d->experiment_response;
      doc["trials"] = d->trials;
      doc["checkpoints"] = d->checkpoints;
      docs.push_back(std::move(doc));
    } else {
      if (!text.empty()) text += "\n";
      text +=
          RenderExperimentDescription(d->experiment_response, d->trials, d->checkpoints, format);
    }
  }
  if (format == OutputFormat::kJson) {
    out << (docs.size() == 1 ? docs[0] : docs).dump(2) << "\n";
  } else {
    out << text;
  }
  return 0;
}

absl::StatusOr<api::ExperimentState> FetchExperimentState(Session& session, int experiment_id) {
  absl::StatusOr<json> resp = session.Get(ExperimentPath(experiment_id));
  if (!resp.ok()) return resp.status();
  auto exp = resp->find("experiment");
  if (exp == resp->end()) {
    return absl::InternalError(
        absl::StrCat("GetExperiment ", experiment_id, " returned no experiment"));
  }
  return api::ParseExperimentState(StripStatePrefix(Str(*exp, "state")))
      .value_or(api::ExperimentState::kActive);
}

int ReportExperimentEnd(int experiment_id, api::ExperimentState state, std::ostream& out) {
  out << "Experiment " << experiment_id << " terminated with state " << api::Name(state) << "\n";
  out.flush();
  return state == api::ExperimentState::kCompleted ? 0 : 1;
}

absl::StatusOr<int> WaitForExperiment(Session& session, int experiment_id, double poll_seconds,
                                      std::ostream& out) {
  if (poll_seconds <= 0) poll_seconds = 1;
  while (true) {
    absl::StatusOr<api::ExperimentState> state = FetchExperimentState(session, experiment_id);
    if (!state.ok()) return state.status();
    if (api::IsTerminal(*state)) return ReportExperimentEnd(experiment_id, *state, out);
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_seconds));
  }
}

absl::StatusOr<int> ExperimentAction(Session& session, int experiment_id, const std::string& verb,
                                     std::ostream& out) {
  absl::StatusOr<json> r =
      session.Post(absl::StrCat(ExperimentPath(experiment_id), "/", verb), json::object());
  if (!r.ok()) return r.status();
  static const std::pair<const char*, const char*> kPast[] = {
      {"activate", "Activated"}, {"pause", "Paused"},     {"cancel", "Canceled"},
      {"kill", "Killed"},        {"archive", "Archived"}, {"unarchive", "Unarchived"}};
  std::string done = verb;
  for (const auto& [v, past] : kPast) {
    if (verb == v) done = past;
  }
  out << done << " experiment " << experiment_id << "\n";
  return 0;
}

absl::StatusOr<int> DeleteExperiment(Session& session, int experiment_id, std::ostream& out) {
  absl::StatusOr<json> r = session.Delete(ExperimentPath(experiment_id));
  if (!r.ok()) return r.status();
  out << "Deletion of experiment " << experiment_id << " is in progress\n";
  return 0;
}

absl::StatusOr<int> DeleteTensorboardFiles(Session& session, int experiment_id, std::ostream& out) {
  RETURN_IF_ERROR(session.Delete(absl::StrCat(ExperimentPath(experiment_id), "/tensorboard-files")).status());
  out << "Deletion of the TensorBoard files of experiment " << experiment_id << " is in progress\n";
  return 0;
}

absl::StatusOr<int> PrintExperimentConfig(Session& session, int experiment_id, std::ostream& out) {
  absl::StatusOr<json> resp = session.Get(ExperimentPath(experiment_id));
  if (!resp.ok()) return resp.status();
  json config;
  if (auto it = resp->find("config"); it != resp->end() && it->is_object()) config = *it;
  if (config.is_null()) {
    if (auto e = resp->find("experiment"); e != resp->end() && e->contains("config")) {
      config = (*e)["config"];
    }
  }
  out << ToYaml(config);
  return 0;
}

absl::StatusOr<int> DownloadExperimentCode(Session& session, int experiment_id, const std::string& output_dir,
                                           std::ostream& out) {
  absl::StatusOr<json> resp = session.Get(absl::StrCat(ExperimentPath(experiment_id), "/model_def"));
  if (!resp.ok()) return resp.status();
  const json* b64 = api::FindField(*resp, "b64_tgz");
  if (b64 == nullptr || !b64->is_string()) {
    return absl::InternalError(absl::StrCat("the master sent no code for experiment ", experiment_id));
  }
  absl::StatusOr<std::string> tgz = Base64Decode(b64->get<std::string>());
  if (!tgz.ok()) return absl::InternalError(absl::StrCat("the master sent undecodable code: ", tgz.status().message()));
  std::filesystem::path dest = std::filesystem::path(output_dir.empty() ? "." : output_dir) /
                               absl::StrCat("experiment_", experiment_id, "_model_def.tgz");
  if (absl::Status st = WriteFile(dest, *tgz); !st.ok()) return st;
  out << "Wrote experiment " << experiment_id << "'s code to " << dest.string() << "\n";
  return 0;
}

absl::StatusOr<int> ListExperimentTrials(Session& session, int experiment_id, OutputFormat format,
                                         std::ostream& out) {
  absl::StatusOr<json> trials =
      GetAllPages(session, ExperimentPath(experiment_id) + "/trials", "trials");
  if (!trials.ok()) return trials.status();
  if (format == OutputFormat::kJson) {
    out << trials->dump(2) << "\n";
  } else {
    Table t = TrialsTable(*trials);
    out << (format == OutputFormat::kCsv ? t.ToCsv() : t.Render());
  }
  return 0;
}

absl::StatusOr<int> SetExperimentField(Session& session, int experiment_id, const std::string& field,
                                       const std::string& value, std::ostream& out) {
  if (field != "description" && field != "name") {
    return absl::InvalidArgumentError(absl::StrCat("cannot set '", field, "': use description or name"));
  }
  absl::StatusOr<json> r = session.Patch(ExperimentPath(experiment_id), json{{field, value}});
  if (!r.ok()) return r.status();
  out << "Set " << field << " of experiment " << experiment_id << " to '" << value << "'\n";
  return 0;
}

absl::StatusOr<int> SetLogRetention(Session& session, LogRetentionOf of, int id, std::optional<int> days,
                                    bool forever, std::ostream& out) {
  const std::string what = of == LogRetentionOf::kExperiment ? "experiment" : "trial";
  if (forever == days.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("give either --days N (days to keep the logs after the trials end, ",
                                                   "e.g. `det ", what, " set log-retention 1 --days 50`) or --forever ",
                                                   "(keep them, e.g. `det ", what, " set log-retention 1 --forever`)"));
  }
  const int num_days = forever ? -1 : *days;
  if (num_days < -1 || num_days > 32767) {
    return absl::InvalidArgumentError(
        absl::StrCat("--days: must be between -1 (forever) and 32767, got ", num_days));
  }
  const std::string path = of == LogRetentionOf::kExperiment ? absl::StrCat(ExperimentPath(id), "/retain_logs")
                                                             : absl::StrCat("/api/v1/trials/", id, "/retain_logs");
  RETURN_IF_ERROR(session.Put(path, json{{"numDays", num_days}}).status());
  out << "Set log retention of " << what << " " << id << " to "
      << (num_days < 0 ? "forever" : absl::StrCat(num_days, " days")) << "\n";
  return 0;
}

absl::StatusOr<int> EditExperimentLabel(Session& session, int experiment_id, const std::string& label,
                                        bool add, std::ostream& out) {
  absl::StatusOr<json> resp = session.Get(ExperimentPath(experiment_id));
  if (!resp.ok()) return resp.status();
  json labels = resp->value("experiment", json::object()).value("labels", json::array());
  if (!labels.is_array()) labels = json::array();
  json updated = json::array();
  bool present = false;
  for (const json& l : labels) {
    if (l == label) {
      present = true;
      if (!add) continue;
    }
    updated.push_back(l);
  }
  if (add && !present) updated.push_back(label);
  if (add == present) {
    // Nothing to change; say what the state is, like upstream.
    out << (add ? absl::StrCat("Label '", label, "' is already on experiment ", experiment_id)
                : absl::StrCat("Label '", label, "' is not on experiment ", experiment_id))
        << "\n";
    return 0;
  }
  absl::StatusOr<json> r = session.Patch(ExperimentPath(experiment_id), json{{"labels", updated}});
  if (!r.ok()) return r.status();
  if (add) {
    out << "Added label '" << label << "' to experiment " << experiment_id << "\n";
  } else {
    out << "Removed label '" << label << "' from experiment " << experiment_id << "\n";
  }
  return 0;
}

}  // namespace det::cli
