#pragma once
// An in-memory Kubernetes API for the resource manager's unit tests: objects by path with one
// resourceVersion counter, watches that stream every change after a version, a Job that makes its pods
// at once (bound to the node its nodeSelector or node affinity names, and Running), and test controls
// for nodes, others' pods and pod endings. The wire format is checked elsewhere: the end-to-end tests
// run the manager against the fake API server (tests/fake_kube), which the real kubectl and
// python3-kubernetes drive.
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "master/manual_loop.h"
#include "master/rm/kubernetes/kube_api.h"

namespace det::master::kube {

class FakeKubeApi : public KubeApi {
 public:
  absl::StatusOr<nlohmann::json> Create(std::string_view collection, const nlohmann::json& object) override;
  absl::StatusOr<nlohmann::json> Get(std::string_view item) override;
  absl::StatusOr<nlohmann::json> List(std::string_view collection, const ListOptions& options) override;
  absl::StatusOr<nlohmann::json> Patch(std::string_view item, const nlohmann::json& merge_patch) override;
  absl::Status Delete(std::string_view item, std::string_view propagation_policy) override;
  absl::Status Watch(std::string_view collection, const ListOptions& options, const std::string& resource_version,
                     const std::function<void(const WatchEvent&)>& on_event, const std::atomic<bool>& stop) override;
  absl::Status Logs(std::string_view pod, const LogOptions& options,
                    const std::function<void(std::string_view line)>& on_line, const std::atomic<bool>& stop) override;

  // Test controls.
  // Until called, lists wait: the manager sees the cluster only from then on (a master restarting
  // before its cluster answers).
  void Open();
  void AddNode(const std::string& name, int gpus);
  void RemoveNode(const std::string& name);
  // A pod the master did not make, holding `gpus` on `node`.
  void AddForeignPod(const std::string& name, const std::string& node, int gpus);
  // The pods of a Job (by its name), in completion-index order.
  std::vector<nlohmann::json> PodsOf(const std::string& job_name) const;
  std::vector<std::string> JobNames() const;
  // Ends a pod's container with `exit_code` (Succeeded when 0, else Failed); a pod being deleted is
  // then gone.
  void EndPod(const std::string& pod_name, int exit_code);
  void DeletePod(const std::string& pod_name);
  // "METHOD path[?propagationPolicy=...]" of every change request, in order.
  std::vector<std::string> Requests() const;
  // No call runs and every watch has seen the latest change.
  bool Quiet() const;

 private:
  struct Change {
    int64_t version;
    std::string path;
    WatchEvent event;
  };
  void Record(const std::string& path, const std::string& type, nlohmann::json object);
  nlohmann::json& Put(const std::string& path, nlohmann::json object);
  void RemoveLocked(const std::string& path);
  std::string PodPath(const std::string& pod_name) const;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, nlohmann::json> objects_;  // item path -> object
  std::vector<Change> changes_;
  std::vector<std::string> requests_;
  int64_t version_ = 1;
  int calls_ = 0;
  std::map<int, int64_t> watch_seen_;  // watch id -> last version delivered
  int next_watch_ = 1;
  int next_ip_ = 2;
  bool open_ = false;
};

// Runs `loop` while the manager's threads work: until `api` has been quiet for a few rounds (no call
// running, every watch caught up), at most a few seconds.
void RunUntilQuiet(ManualLoop& loop, const FakeKubeApi& api);

}  // namespace det::master::kube
