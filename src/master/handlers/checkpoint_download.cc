// GET /checkpoints/{uuid} (upstream's checkpoint download through the master: the SDK's
// Checkpoint.download(mode=DownloadMode.MASTER), and AUTO where the storage cannot be reached from the
// client): the checkpoint's files, as stored, in one tar.gz (Accept: application/gzip), up to
// checkpoint_archive.h's size limit; larger ones are downloaded from their storage directly.
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/checkpoint_archive.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "storage/storage_manager.h"

namespace det::master {
namespace {

using nlohmann::json;

absl::StatusOr<std::string> DownloadTarGz(MasterContext& ctx, const HttpRequest& req) {
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
  ASSIGN_OR_RETURN(std::unique_ptr<storage::StorageManager> storage, storage::MakeStorageManager(storage_config));
  ASSIGN_OR_RETURN(std::filesystem::path dir, storage->RestorePath(uuid));
  absl::StatusOr<std::string> tgz = CheckpointTarGz(dir, uuid);
  storage->ReleaseRestorePath(dir);
  return tgz;
}

}  // namespace

void RegisterCheckpointDownloadRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/checkpoints/{checkpoint_uuid}", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    ReplyResponse(r, [&]() -> absl::StatusOr<HttpResponse> {
      ASSIGN_OR_RETURN(std::string tgz, DownloadTarGz(ctx, req));
      return HttpResponse{.content_type = "application/gzip", .body = std::move(tgz)};
    }());
  });
}

}  // namespace det::master
