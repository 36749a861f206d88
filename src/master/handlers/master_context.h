#pragma once
#include <memory>
#include <string>

#include "config/master_config.h"
#include "master/cluster/cluster.h"
#include "master/db/store.h"
#include "master/event_loop.h"
#include "master/metrics_writer.h"
#include "master/trial_facts.h"


namespace det::master {

class MasterLog;  // master_log.h

struct MasterInfo {
  std::string version;
  std::string master_id;
  std::string cluster_id;
  std::string cluster_name;
};

// What the handlers share: the store for reads and direct writes, the cluster actor for state changes.
struct MasterContext {
  Store& store;
  Cluster& cluster;
  MetricsWriter& metrics_writer;  // metric reports go through its group commit
  TrialFactsCache& trial_facts;    // what a report needs of its trial, without reads
  EventLoop& stream_loop;  // timers for long-lived streams (log follow)
  MasterInfo info;
  std::string default_checkpoint_storage_json;
  int64_t max_context_bytes = 95LL << 20;
  // The effective master configuration (file, env, flags): resource pools, schedulers, defaults.
  // Read-only after startup, so any thread may read it.
  config::MasterConfig config;
  // The master's own recent log lines (GET /api/v1/master/logs); null in tests that need none.
  std::shared_ptr<MasterLog> master_log;
};

}  // namespace det::master
