#pragma once
// The master's persistent state: one small interface per area, and Store, all of them over one
// database. Implementations are safe for concurrent use from any thread. The store stores and
// queries; product rules (what may be archived or deleted, display states) live above it.
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "master/db/access_token_store.h"
#include "master/db/checkpoint_store.h"
#include "master/db/experiment_store.h"
#include "master/db/group_store.h"
#include "master/db/log_store.h"
#include "master/db/metric_store.h"
#include "master/db/model_store.h"
#include "master/db/task_store.h"
#include "master/db/template_store.h"
#include "master/db/user_store.h"
#include "master/db/workspace_store.h"

namespace det::master {

class Store : public UserStore,
              public AccessTokenStore,
              public ExperimentStore,
              public TaskStore,
              public MetricStore,
              public CheckpointStore,
              public LogStore,
              public TemplateStore,
              public WorkspaceStore,
              public ModelStore,
              public GroupStore {
 public:
  // One write: calls of this store's write methods.
  using Write = std::function<absl::Status()>;
  // Runs `writes` in order in one transaction, each undone alone when it fails, and returns each
  // one's outcome. When the transaction cannot commit, every write fails with that error. Other
  // writers wait until the batch ends; readers see all of it or none.
  virtual std::vector<absl::Status> WriteBatch(const std::vector<Write>& writes) = 0;
};

}  // namespace det::master
