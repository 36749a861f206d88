// GET /checkpoints/{uuid} (upstream's checkpoint download through the master: the SDK's
// Checkpoint.download(mode=DownloadMode.MASTER), and AUTO where the storage cannot be reached from the
// client): the checkpoint's files, as stored, in one tar.gz (Accept: application/gzip). The archive is
// built in memory; checkpoints too large for that are downloaded from their storage directly.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/archive.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "harness/storage_manager.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"

namespace det::master {
namespace {

using nlohmann::json;

// The files under `dir`, as archive entries with paths relative to it.
absl::StatusOr<std::vector<ArchiveEntry>> EntriesUnder(const std::filesystem::path& dir) {
  std::vector<ArchiveEntry> entries;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file() || harness::IsPartialName(it->path().filename().string())) continue;
    ArchiveEntry e;
    e.path = it->path().lexically_relative(dir).generic_string();
    ASSIGN_OR_RETURN(e.content, ReadFile(it->path()));
    entries.push_back(std::move(e));
  }
  if (ec) return absl::InternalError(absl::StrCat("listing checkpoint files in ", dir.string(), ": ", ec.message()));
  return entries;
}

absl::StatusOr<std::string> CheckpointTarGz(MasterContext& ctx, const HttpRequest& req) {
  const std::string accept = req.Header("accept");
  if (!accept.empty() && !absl::StrContains(accept, "application/gzip") && !absl::StrContains(accept, "*/*")) {
    return absl::InvalidArgumentError(
        absl::StrCat("Accept: \"", accept, "\" is not served: checkpoints download as application/gzip (tar.gz)"));
  }
  const std::string& uuid = req.path_params.at("checkpoint_uuid");
  ASSIGN_OR_RETURN(api::Checkpoint checkpoint, ctx.store.GetCheckpoint(uuid));
  if (checkpoint.state == "DELETED") {
    return absl::FailedPreconditionError(absl::StrCat("checkpoint ", uuid, " is deleted: its files are gone"));
  }
  ASSIGN_OR_RETURN(api::Experiment experiment, ctx.store.GetExperiment(checkpoint.experiment_id));
  json config = json::parse(experiment.config_json, nullptr, /*allow_exceptions=*/false);
  json storage_config = config.is_object() ? config.value("checkpoint_storage", json::object()) : json::object();
  ASSIGN_OR_RETURN(std::unique_ptr<harness::StorageManager> storage, harness::MakeStorageManager(storage_config));
  ASSIGN_OR_RETURN(std::filesystem::path dir, storage->RestorePath(uuid));
  absl::StatusOr<std::vector<ArchiveEntry>> entries = EntriesUnder(dir);
  storage->ReleaseRestorePath(dir);
  if (!entries.ok()) return entries.status();
  return CreateTarGz(*entries);
}

}  // namespace

void RegisterCheckpointDownloadRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/checkpoints/{checkpoint_uuid}", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    absl::StatusOr<std::string> tgz = CheckpointTarGz(ctx, req);
    if (!tgz.ok()) return ReplyError(r, tgz.status());
    HttpResponse resp;
    resp.content_type = "application/gzip";
    resp.body = std::move(*tgz);
    r->Send(std::move(resp));
  });
}

}  // namespace det::master
