#pragma once
// The round-robin scheduler (kept, unlike upstream 0.38, which refuses `type: round_robin`).
//
// Jobs take turns, one allocation at a time: the next turn goes to the job holding the fewest
// allocations of the pass's class (running plus started in this pass), ties by submission order,
// then job id; so from an idle pool, jobs start one allocation each in submission order, round
// after round. A job whose next request (in request order) does not fit drops out of the pass;
// the others go on. Slotted and zero-slot requests are separate passes. No preemption.
#include "scheduler/snapshot.h"

namespace det::scheduler {

Decision ScheduleRoundRobin(const SchedulerConfig& config, const PoolSnapshot& pool);

}  // namespace det::scheduler
