// `_determined`: the pybind11 face of libdetermined, used by the `determined` Python package.
// JSON crosses the boundary as text (json.dumps / json.loads on the Python side), except metric
// reports, which are converted here (JsonFromPython). A non-OK Status
// becomes a Python exception: ValueError (InvalidArgument), _determined.NotFoundError (NotFound),
// or _determined.DeterminedError (anything else; a RuntimeError).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/checkpoint_storage.h"
#include "harness/checkpoint_context.h"
#include "harness/checkpoint_shards.h"
#include "harness/cluster_info.h"
#include "harness/metrics_reporter.h"
#include "harness/nvml_reader.h"
#include "harness/preempt_context.h"
#include "harness/session.h"
#include "harness/tensorboard_sync.h"
#include "harness/train_context.h"
#include "harness/worker_group.h"
#include "storage/checkpoint_resources.h"
#include "storage/shared_fs_storage.h"
#include "storage/storage_manager.h"

namespace py = pybind11;

namespace det::harness {
namespace {

PyObject* g_determined_error = nullptr;
PyObject* g_not_found_error = nullptr;

[[noreturn]] void Raise(const absl::Status& s) {
  PyObject* type = g_determined_error;
  if (s.code() == absl::StatusCode::kInvalidArgument) type = PyExc_ValueError;
  if (s.code() == absl::StatusCode::kNotFound) type = g_not_found_error;
  PyErr_SetString(type, std::string(s.message()).c_str());
  throw py::error_already_set();
}

void Check(const absl::Status& s) {
  if (!s.ok()) Raise(s);
}

template <typename T>
T Check(absl::StatusOr<T> r) {
  if (!r.ok()) Raise(r.status());
  return std::move(r).value();
}

// Calls `f` with the GIL released; raises the Python exception for a non-OK result afterwards
// (with the GIL held again).
template <typename F>
auto NoGil(F f) {
  using R = decltype(f());
  std::optional<R> r;
  {
    py::gil_scoped_release release;
    r.emplace(f());
  }
  return std::move(*r);
}

py::object ClusterInfoDict() {
  auto info = Check(ClusterInfoFromEnvironment());
  if (!info.has_value()) return py::none();
  py::dict d;
  d["master_url"] = info->master_url;
  d["cluster_id"] = info->cluster_id;
  d["master_id"] = info->master_id;
  d["agent_id"] = info->agent_id;
  d["slot_ids"] = info->slot_ids;
  d["task_id"] = info->task_id;
  d["allocation_id"] = info->allocation_id;
  d["session_token"] = info->session_token;
  d["task_type"] = info->task_type;
  d["user"] = info->user;
  d["user_token"] = info->user_token;
  d["workdir"] = info->workdir;
  d["container_addrs"] = info->rendezvous.container_addrs;
  d["container_rank"] = info->rendezvous.container_rank;
  d["container_slot_counts"] = info->rendezvous.container_slot_counts;
  d["latest_checkpoint"] =
      info->latest_checkpoint.has_value() ? py::cast(*info->latest_checkpoint) : py::none();
  if (info->trial.has_value()) {
    py::dict t;
    t["trial_id"] = info->trial->trial_id;
    t["experiment_id"] = info->trial->experiment_id;
    t["trial_run_id"] = info->trial->trial_run_id;
    t["trial_seed"] = info->trial->trial_seed;
    t["steps_completed"] = info->trial->steps_completed;
    t["hparams_json"] = info->trial->hparams_json;
    t["config_json"] = info->trial->config_json;
    d["trial"] = t;
  } else {
    d["trial"] = py::none();
  }
  return d;
}

// A Python value as JSON, the way determined.util.make_jsonable converts it, without a detour
// through JSON text (metric reports are on the training loop's path): None, bool, int, float
// (non-finite ones as "NaN", "Infinity", "-Infinity"), str, dict (keys through str()) and
// list/tuple here; anything else (numpy and torch scalars, arrays, ...) through make_jsonable.
nlohmann::json JsonFromPython(py::handle value) {
  PyObject* v = value.ptr();
  if (v == Py_None) return nullptr;
  if (PyBool_Check(v)) return v == Py_True;
  if (PyLong_CheckExact(v)) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) return n;
    return PyLong_AsDouble(v);  // JSON numbers beyond 64 bits are doubles to every reader anyway
  }
  if (PyFloat_CheckExact(v)) {
    double d = PyFloat_AS_DOUBLE(v);
    if (std::isfinite(d)) return d;
    if (std::isnan(d)) return "NaN";
    return d > 0 ? "Infinity" : "-Infinity";
  }
  if (PyUnicode_Check(v)) return value.cast<std::string>();  // a str subclass too, as json.dumps writes it
  if (PyDict_Check(v)) {
    nlohmann::json out = nlohmann::json::object();
    for (auto [k, item] : py::reinterpret_borrow<py::dict>(value)) {
      out[PyUnicode_CheckExact(k.ptr()) ? k.cast<std::string>() : std::string(py::str(k))] =
          JsonFromPython(item);
    }
    return out;
  }
  if (PyList_Check(v) || PyTuple_Check(v)) {
    nlohmann::json out = nlohmann::json::array();
    for (py::handle item : value) out.push_back(JsonFromPython(item));
    return out;
  }
  // Leaked on purpose: a static py::object would be released after the interpreter is gone.
  static py::handle make_jsonable =
      py::object(py::module_::import("determined.util").attr("make_jsonable")).release();
  return JsonFromPython(make_jsonable(value));  // returns only the plain types handled above
}

// A metrics dict as a JSON object: TypeError for anything but a dict; bytes values are dropped
// with a warning (as upstream does).
nlohmann::json MetricsFromPython(py::handle metrics) {
  if (!PyDict_Check(metrics.ptr())) {
    throw py::type_error(absl::StrCat("metrics must be a dict of name -> value, got ",
                                      Py_TYPE(metrics.ptr())->tp_name));
  }
  nlohmann::json out = nlohmann::json::object();
  std::vector<std::string> dropped;
  for (auto [k, item] : py::reinterpret_borrow<py::dict>(metrics)) {
    std::string name = PyUnicode_CheckExact(k.ptr()) ? k.cast<std::string>() : std::string(py::str(k));
    if (PyBytes_Check(item.ptr()) || PyByteArray_Check(item.ptr())) {
      dropped.push_back(std::move(name));
      continue;
    }
    out[name] = JsonFromPython(item);
  }
  if (!dropped.empty()) {
    py::module_::import("logging").attr("getLogger")("determined").attr("warning")(
        "Removed non serializable metrics: %s", absl::StrJoin(dropped, ", "));
  }
  return out;
}

// Python-facing wrappers: constructors taking plain values, methods taking JSON text (metric
// reports take Python objects, see JsonFromPython).

// Collectives of bytes (the Python side pickles); the GIL is released while waiting on the network.
class PyWorkerGroup {
 public:
  PyWorkerGroup(int rank, int size, const std::string& chief_ip, int port, double join_timeout_seconds)
      : group_(Check(NoGil([&] {
          return WorkerGroup::Join({.rank = rank,
                                    .size = size,
                                    .chief_ip = chief_ip,
                                    .port = port,
                                    .join_timeout = std::chrono::milliseconds(
                                        static_cast<int64_t>(join_timeout_seconds * 1000))});
        }))) {}

  py::object Gather(const py::bytes& data) {
    std::string mine = data;
    auto all = Check(NoGil([&] { return group_->Gather(mine); }));
    if (!all.has_value()) return py::none();
    return Bytes(*all);
  }
  py::list AllGather(const py::bytes& data) {
    std::string mine = data;
    return Bytes(Check(NoGil([&] { return group_->AllGather(mine); })));
  }
  py::bytes Broadcast(const py::bytes& data) {
    std::string mine = data;
    return py::bytes(Check(NoGil([&] { return group_->Broadcast(mine); })));
  }

 private:
  static py::list Bytes(const std::vector<std::string>& items) {
    py::list out;
    for (const std::string& item : items) out.append(py::bytes(item));
    return out;
  }
  std::unique_ptr<WorkerGroup> group_;
};

class PyTrainContext {
 public:
  PyTrainContext(const std::string& master_url, const std::string& token, int64_t trial_id,
                 int64_t trial_run_id, int64_t experiment_id)
      : ctx_(std::make_shared<Session>(master_url, token),
             std::make_unique<MetricsReporter>(trial_id, trial_run_id, master_url, token), trial_id,
             experiment_id) {}

  // `metrics`: a dict; `batch_metrics`: None or a list of dicts.
  void Report(const std::string& group, int64_t steps, const py::handle& metrics,
              const py::handle& batch_metrics) {
    nlohmann::json avg = MetricsFromPython(metrics);
    nlohmann::json batch = batch_metrics.is_none() ? nlohmann::json() : JsonFromPython(batch_metrics);
    Check(NoGil([&] {
      if (group == "training") return ctx_.ReportTrainingMetrics(steps, avg, batch);
      return ctx_.ReportMetrics(group, steps, avg);
    }));
  }
  void ReportEarlyExit(const std::string& reason) {
    Check(NoGil([&] { return ctx_.ReportEarlyExit(reason); }));
  }
  void ReportProgress(double p) {
    Check(NoGil([&] { return ctx_.ReportProgress(p); }));
  }
  void SetStatus(const std::string& s) {
    Check(NoGil([&] { return ctx_.SetStatus(s); }));
  }
  std::optional<double> GetExperimentBestValidation() {
    return Check(NoGil([&] { return ctx_.GetExperimentBestValidation(); }));
  }
  void Flush() {
    Check(NoGil([&] { return ctx_.Flush(); }));
  }
  void Close() {
    Check(NoGil([&] { return ctx_.Close(); }));
  }

 private:
  TrainContext ctx_;
};

class PyCheckpointContext {
 public:
  // `storage_json`: a checkpoint_storage config object. `master_url` empty means off-cluster.
  PyCheckpointContext(const std::string& storage_json, const std::string& master_url,
                      const std::string& token, const std::string& task_id,
                      const std::string& allocation_id) {
    nlohmann::json cs = Check(ParseJson(storage_json));
    std::shared_ptr<storage::StorageManager> storage = Check(storage::MakeStorageManager(cs));
    std::shared_ptr<Session> session;
    if (!master_url.empty()) session = std::make_shared<Session>(master_url, token);
    ctx_ = std::make_unique<CheckpointContext>(std::move(storage), std::move(session), task_id,
                                               allocation_id);
  }

  py::tuple BeginStore() {
    PendingCheckpoint p = Check(NoGil([&] { return ctx_->BeginStore(); }));
    return py::make_tuple(p.path.string(), p.uuid);
  }
  void CommitStore(const std::string& uuid, const std::string& path,
                   const std::string& metadata_json) {
    Check(NoGil([&] {
      return ctx_->CommitStoreJson(PendingCheckpoint{uuid, path}, metadata_json);
    }));
  }
  std::string BeginShard(const std::string& uuid) {
    return Check(NoGil([&] { return ctx_->BeginShard(uuid); })).path.string();
  }
  std::string UploadShard(const std::string& uuid, const std::string& path) {
    auto resources = Check(NoGil([&] { return ctx_->UploadShard(PendingCheckpoint{uuid, path}); }));
    return nlohmann::json(resources).dump();
  }
  // The union of the workers' metadata / files (JSON lists in rank order) as JSON; conflicts raise.
  std::string MergeShardMetadata(const std::string& uuid, const std::string& metadata_list_json) {
    return Check(NoGil([&]() -> absl::StatusOr<std::string> {
      ASSIGN_OR_RETURN(nlohmann::json list, ParseJson(metadata_list_json));
      ASSIGN_OR_RETURN(nlohmann::json merged,
                       det::harness::MergeShardMetadata(uuid, list.get<std::vector<nlohmann::json>>()));
      return merged.dump();
    }));
  }
  std::string MergeShardResources(const std::string& uuid, const std::string& resources_list_json) {
    return Check(NoGil([&]() -> absl::StatusOr<std::string> {
      ASSIGN_OR_RETURN(nlohmann::json list, ParseJson(resources_list_json));
      ASSIGN_OR_RETURN(auto merged,
                       det::harness::MergeShardResources(
                           uuid, list.get<std::vector<std::map<std::string, int64_t>>>(),
                           ctx_->storage().ShardsShareADirectory()));
      return nlohmann::json(merged).dump();
    }));
  }
  void ReportCheckpoint(const std::string& uuid, const std::string& resources_json, const std::string& metadata_json) {
    Check(NoGil([&]() -> absl::Status {
      ASSIGN_OR_RETURN(nlohmann::json resources, ParseJson(resources_json));
      ASSIGN_OR_RETURN(nlohmann::json metadata, ParseJson(metadata_json));
      return ctx_->ReportCheckpoint(uuid, resources.get<std::map<std::string, int64_t>>(), metadata);
    }));
  }
  void ReleaseRestorePath(const std::string& path) {
    NoGil([&] {
      ctx_->ReleaseRestorePath(path);
      return 0;
    });
  }
  std::string RestorePath(const std::string& uuid) {
    return Check(NoGil([&] { return ctx_->RestorePath(uuid); })).string();
  }
  std::string GetMetadata(const std::string& uuid) {
    return Check(NoGil([&] { return ctx_->GetMetadataJson(uuid); }));
  }
  void Delete(const std::string& uuid) {
    Check(NoGil([&] { return ctx_->Delete(uuid); }));
  }
  std::string Describe() { return ctx_->storage().Describe(); }

 private:
  std::unique_ptr<CheckpointContext> ctx_;
};

// Files under key prefixes of a checkpoint storage (the TensorBoard runner's downloads).
class PyStorageManager {
 public:
  explicit PyStorageManager(const std::string& storage_json)
      : storage_(Check(storage::MakeStorageManager(Check(ParseJson(storage_json))))) {}

  int UploadDirectory(const std::string& local_dir, const std::string& prefix) {
    return Check(NoGil([&] { return storage_->UploadDirectory(local_dir, prefix); }));
  }
  void UploadFile(const std::string& local_file, const std::string& prefix,
                  const std::string& name) {
    Check(NoGil([&] { return storage_->UploadFile(local_file, prefix, name); }));
  }
  // [{"path", "size", "version"}], sorted by path.
  py::list ListFiles(const std::string& prefix) {
    std::vector<storage::StoredFile> files =
        Check(NoGil([&] { return storage_->ListFiles(prefix); }));
    py::list out;
    for (const storage::StoredFile& f : files) {
      py::dict d;
      d["path"] = f.path;
      d["size"] = f.size;
      d["version"] = f.version;
      out.append(d);
    }
    return out;
  }
  void DownloadFiles(const std::string& prefix, const std::vector<std::string>& files,
                     const std::string& local_dir) {
    Check(NoGil([&] { return storage_->DownloadFiles(prefix, files, local_dir); }));
  }
  int DownloadPrefix(const std::string& prefix, const std::string& local_dir) {
    return Check(NoGil([&] { return storage_->DownloadPrefix(prefix, local_dir); }));
  }
  std::string Describe() { return storage_->Describe(); }

 private:
  std::unique_ptr<storage::StorageManager> storage_;
};

class PyTensorboardSync {
 public:
  PyTensorboardSync(const std::string& storage_json, const std::string& local_dir,
                    const std::string& key_prefix) {
    std::shared_ptr<storage::StorageManager> storage =
        Check(storage::MakeStorageManager(Check(ParseJson(storage_json))));
    sync_ = Check(TensorboardSync::Create(std::move(storage), local_dir, key_prefix));
  }
  int SyncNow() {
    return Check(NoGil([&] { return sync_->SyncNow(); }));
  }
  // `files`: (local path, name under the prefix) pairs.
  int SyncFiles(const std::vector<std::pair<std::string, std::string>>& files) {
    std::vector<TensorboardSync::FileToUpload> chosen;
    for (const auto& [local, name] : files) chosen.push_back({local, name});
    return Check(NoGil([&] { return sync_->SyncFiles(chosen); }));
  }
  void RequestSync() {
    Check(NoGil([&] { return sync_->RequestSync(); }));
  }
  void Flush() {
    Check(NoGil([&] { return sync_->Flush(); }));
  }
  void Close() {
    Check(NoGil([&] { return sync_->Close(); }));
  }
  py::dict Stats() {
    TensorboardSync::Stats st = sync_->stats();
    py::dict d;
    d["syncs"] = st.syncs;
    d["files_uploaded"] = st.files_uploaded;
    d["bytes_uploaded"] = st.bytes_uploaded;
    return d;
  }
  std::string KeyPrefix() { return sync_->key_prefix(); }

 private:
  std::unique_ptr<TensorboardSync> sync_;
};

class PyPreemptContext {
 public:
  PyPreemptContext(const std::string& master_url, const std::string& token,
                   const std::string& allocation_id)
      : ctx_(PreemptContext::ForAllocation(std::make_shared<Session>(master_url, token),
                                           allocation_id)) {}
  void Start() { ctx_->Start(); }
  bool ShouldPreempt(bool auto_ack) {
    py::gil_scoped_release release;
    return ctx_->ShouldPreempt(auto_ack);
  }
  void Acknowledge() {
    Check(NoGil([&] { return ctx_->AcknowledgePreemptionSignal(); }));
  }
  void Close() {
    py::gil_scoped_release release;
    ctx_->Close();
  }

 private:
  std::unique_ptr<PreemptContext> ctx_;
};

}  // namespace
}  // namespace det::harness

PYBIND11_MODULE(_determined, m) {
  using namespace det::harness;
  namespace storage = det::storage;
  m.doc() = "libdetermined: the Core API of the Determined harness, implemented in C++";

  g_determined_error =
      PyErr_NewException("_determined.DeterminedError", PyExc_RuntimeError, nullptr);
  g_not_found_error = PyErr_NewException("_determined.NotFoundError", g_determined_error, nullptr);
  m.add_object("DeterminedError", py::handle(g_determined_error));
  m.add_object("NotFoundError", py::handle(g_not_found_error));

  m.def("cluster_info_from_env", &ClusterInfoDict,
        "The task environment as a dict, or None when not running on a cluster.");
  m.def(
      "list_resources", [](const std::string& dir) { return Check(storage::ListResources(dir)); },
      "Files (relative path -> size) and directories ('name/' -> 0) under a checkpoint directory.");
  m.def(
      "resolve_shared_fs_base",
      [](const std::string& host_path, const std::string& storage_path) {
        return Check(det::config::ResolveSharedFsBase(host_path, storage_path)).string();
      },
      py::arg("host_path"), py::arg("storage_path") = "");

  py::class_<NvmlReader>(m, "NvmlReader",
                         "Each GPU's utilisation and free memory through NVML, loaded at run time.")
      .def_static(
          "open", [](const std::string& library) { return Check(NvmlReader::Open(library)); },
          py::arg("library") = "libnvidia-ml.so.1",
          "Raises NotFoundError without NVIDIA's driver, DeterminedError when NVML fails.")
      .def(
          "read",
          [](NvmlReader& self) {
            py::list out;
            for (const GpuReading& r : Check(self.Read())) {
              py::dict d;
              d["uuid"] = r.uuid;
              d["gpu_util"] = r.gpu_util;
              d["gpu_free_memory"] = r.gpu_free_memory;
              out.append(std::move(d));
            }
            return out;
          },
          "[{uuid, gpu_util (percent), gpu_free_memory (bytes)}] of every GPU NVML shows.");

  py::class_<PyTrainContext>(m, "TrainContext")
      .def(py::init<const std::string&, const std::string&, int64_t, int64_t, int64_t>(),
           py::arg("master_url"), py::arg("token"), py::arg("trial_id"), py::arg("trial_run_id"),
           py::arg("experiment_id"))
      .def("report", &PyTrainContext::Report, py::arg("group"), py::arg("steps_completed"),
           py::arg("metrics"), py::arg("batch_metrics") = py::none())
      .def("report_early_exit", &PyTrainContext::ReportEarlyExit, py::arg("reason"))
      .def("report_progress", &PyTrainContext::ReportProgress, py::arg("progress"))
      .def("set_status", &PyTrainContext::SetStatus, py::arg("status"))
      .def("get_experiment_best_validation", &PyTrainContext::GetExperimentBestValidation)
      .def("flush", &PyTrainContext::Flush)
      .def("close", &PyTrainContext::Close);

  py::class_<PyCheckpointContext>(m, "CheckpointContext")
      .def(py::init<const std::string&, const std::string&, const std::string&, const std::string&,
                    const std::string&>(),
           py::arg("storage_json"), py::arg("master_url") = "", py::arg("token") = "",
           py::arg("task_id") = "", py::arg("allocation_id") = "")
      .def("begin_store", &PyCheckpointContext::BeginStore)
      .def("commit_store", &PyCheckpointContext::CommitStore, py::arg("uuid"), py::arg("path"),
           py::arg("metadata_json"))
      .def("begin_shard", &PyCheckpointContext::BeginShard, py::arg("uuid"))
      .def("upload_shard", &PyCheckpointContext::UploadShard, py::arg("uuid"), py::arg("path"))
      .def("merge_shard_metadata", &PyCheckpointContext::MergeShardMetadata, py::arg("uuid"),
           py::arg("metadata_list_json"))
      .def("merge_shard_resources", &PyCheckpointContext::MergeShardResources, py::arg("uuid"),
           py::arg("resources_list_json"))
      .def("report_checkpoint", &PyCheckpointContext::ReportCheckpoint, py::arg("uuid"), py::arg("resources_json"),
           py::arg("metadata_json"))
      .def("restore_path", &PyCheckpointContext::RestorePath, py::arg("uuid"))
      .def("release_restore_path", &PyCheckpointContext::ReleaseRestorePath, py::arg("path"))
      .def("get_metadata", &PyCheckpointContext::GetMetadata, py::arg("uuid"))
      .def("delete", &PyCheckpointContext::Delete, py::arg("uuid"))
      .def("describe", &PyCheckpointContext::Describe);

  m.def("tensorboard_key_prefix", &storage::TensorboardKeyPrefix, py::arg("experiment_id"),
        py::arg("trial_id"), "tensorboard/experiment/E/trial/T");

  py::class_<PyStorageManager>(m, "StorageManager")
      .def(py::init<const std::string&>(), py::arg("storage_json"))
      .def("upload_directory", &PyStorageManager::UploadDirectory, py::arg("local_dir"),
           py::arg("prefix"))
      .def("upload_file", &PyStorageManager::UploadFile, py::arg("local_file"), py::arg("prefix"),
           py::arg("name"))
      .def("list_files", &PyStorageManager::ListFiles, py::arg("prefix"))
      .def("download_files", &PyStorageManager::DownloadFiles, py::arg("prefix"), py::arg("files"),
           py::arg("local_dir"))
      .def("download_prefix", &PyStorageManager::DownloadPrefix, py::arg("prefix"),
           py::arg("local_dir"))
      .def("describe", &PyStorageManager::Describe);

  py::class_<PyTensorboardSync>(m, "TensorboardSync")
      .def(py::init<const std::string&, const std::string&, const std::string&>(),
           py::arg("storage_json"), py::arg("local_dir"), py::arg("key_prefix"))
      .def("sync_now", &PyTensorboardSync::SyncNow)
      .def("sync_files", &PyTensorboardSync::SyncFiles, py::arg("files"))
      .def("request_sync", &PyTensorboardSync::RequestSync)
      .def("flush", &PyTensorboardSync::Flush)
      .def("close", &PyTensorboardSync::Close)
      .def("stats", &PyTensorboardSync::Stats)
      .def_property_readonly("key_prefix", &PyTensorboardSync::KeyPrefix);

  py::class_<PyWorkerGroup>(m, "WorkerGroup")
      .def(py::init<int, int, const std::string&, int, double>(), py::arg("rank"), py::arg("size"),
           py::arg("chief_ip"), py::arg("port"), py::arg("join_timeout_seconds") = 300.0)
      .def("gather", &PyWorkerGroup::Gather, py::arg("data"))
      .def("allgather", &PyWorkerGroup::AllGather, py::arg("data"))
      .def("broadcast", &PyWorkerGroup::Broadcast, py::arg("data"));

  py::class_<PyPreemptContext>(m, "PreemptContext")
      .def(py::init<const std::string&, const std::string&, const std::string&>(),
           py::arg("master_url"), py::arg("token"), py::arg("allocation_id"))
      .def("start", &PyPreemptContext::Start)
      .def("should_preempt", &PyPreemptContext::ShouldPreempt, py::arg("auto_ack") = true)
      .def("acknowledge_preemption_signal", &PyPreemptContext::Acknowledge)
      .def("close", &PyPreemptContext::Close);
}
