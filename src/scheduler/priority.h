#pragma once
// The priority scheduler (default; reference §6.3, product docs "Task Priority").
//
// Slotted and zero-slot requests are scheduled in two independent passes (zero-slot ones on the aux
// capacity). Within a pass, pending requests are taken by priority level (smaller number first),
// inside a level in queue order (job_queue.h); every request that fits is started (gang: all its
// slots at once). Once a level has a request that does not fit, lower levels are "backfilled":
// with preemption on, only their preemptible requests start; with preemption off, nothing below
// the blocked level starts.
//
// Preemption (config.preemption): for each request of a level that does not fit, running
// preemptible allocations of strictly less important work (a larger priority number, or the same
// priority and a job later in the queue) are released, least important and newest first, until it
// fits (those that turn out not to be needed keep running); its slots are then reserved and it
// starts in a later pass, once they are free. If even
// releasing all of them would not make it fit, nothing is released for it. After a level that
// released anything, the pass stops (nothing else starts until the released slots are back).
// `max_slots` and `weight` are ignored.
//
// Cost: sorting the queue and the candidates, O(n log n). A blocked request walks the candidates
// less important than it that are not released yet, O(1) a placement (FitProbe, fitting.h), and
// touches the ledger only for the agents of its fit (PreemptionCandidates lists what runs on each);
// a shape that preemption cannot help is not walked again in its level.
#include "scheduler/snapshot.h"

namespace det::scheduler {

Decision SchedulePriority(const SchedulerConfig& config, const PoolSnapshot& pool);

}  // namespace det::scheduler
