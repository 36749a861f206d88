#pragma once
// One scheduling pass over one resource pool: dispatches to the configured policy
// (priority.h, fair_share.h, round_robin.h). Pure: no I/O, no clock, no threads.
//
// Contract for callers (the master's cluster actor): build a PoolSnapshot of the pool (free slot
// ids must exclude every slot a running allocation holds), call Schedule, start `to_start` on the
// given agents/slots, ask `to_preempt` to release gracefully (they stay running, and in later
// snapshots, until they exit), and fail `infeasible` requests (CheckFeasible at submit time should
// have refused them already). Calling it again with an unchanged snapshot gives the same Decision.
#include "config/master_config.h"
#include "scheduler/snapshot.h"

namespace det::scheduler {

Decision Schedule(const SchedulerConfig& config, const PoolSnapshot& pool);

// The master config's name of a policy: "priority", "fair_share" or "round_robin".
std::string ConfigName(SchedulerType type);

// The scheduler settings of a validated master config (unknown names fall back to the defaults).
SchedulerConfig FromMasterConfig(const config::SchedulerConfig& config);

}  // namespace det::scheduler
