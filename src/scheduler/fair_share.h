#pragma once
// The fair-share scheduler (product docs "Fair-Share Scheduler"; reference §6.4 where they agree).
//
// Zero-slot requests start first come, first served on the aux capacity (no fairness).
// Slotted work: the pool's capacity C (slots of usable agents plus slots in use on the others) is
// divided among jobs in proportion to demand x weight, where demand = slots held + slots pending,
// capped at max_slots (never below the slots held by non-preemptible allocations, which are
// always granted). A job offered more than its demand gives the excess back to the others (water
// filling); shares are rounded down and the remaining slots go to the largest remainders (ties:
// earlier submission). So 8 slots and demands 10 and 30 give 2 and 6; with weights 3 and 1, 4
// and 4. Jobs holding nothing whose share is too small for their smallest request get nothing, and
// their shares go to the others: the newer half of such jobs (at least one) at a time, then the
// shares are computed again, so the oldest of them can still grow into its request. Then a job
// holding more than its share releases preemptible allocations, newest first, until it does not
// (preemption is always on); a job holding less starts its pending requests in order while they fit
// its remaining share and the free slots.
#include "scheduler/snapshot.h"

namespace det::scheduler {

Decision ScheduleFairShare(const SchedulerConfig& config, const PoolSnapshot& pool);

}  // namespace det::scheduler
