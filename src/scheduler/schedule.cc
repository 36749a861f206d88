#include "scheduler/schedule.h"

#include "scheduler/fair_share.h"
#include "scheduler/priority.h"
#include "scheduler/round_robin.h"

namespace det::scheduler {

Decision Schedule(const SchedulerConfig& config, const PoolSnapshot& pool) {
  switch (config.type) {
    case SchedulerType::kFairShare:
      return ScheduleFairShare(config, pool);
    case SchedulerType::kRoundRobin:
      return ScheduleRoundRobin(config, pool);
    case SchedulerType::kPriority:
      break;
  }
  return SchedulePriority(config, pool);
}

std::string ConfigName(SchedulerType type) {
  switch (type) {
    case SchedulerType::kFairShare:
      return "fair_share";
    case SchedulerType::kRoundRobin:
      return "round_robin";
    case SchedulerType::kPriority:
      break;
  }
  return "priority";
}

SchedulerConfig FromMasterConfig(const config::SchedulerConfig& c) {
  SchedulerConfig out;
  if (c.type == "fair_share") out.type = SchedulerType::kFairShare;
  if (c.type == "round_robin") out.type = SchedulerType::kRoundRobin;
  out.fitting_policy = c.fitting_policy == "worst" ? FittingPolicy::kWorst : FittingPolicy::kBest;
  out.allow_heterogeneous_fits = c.allow_heterogeneous_fits;
  out.preemption = c.preemption;
  out.default_priority = c.default_priority;
  return out;
}

}  // namespace det::scheduler
