#pragma once
// A snapshot of the cluster actor's state for observers (Prometheus: observability/): what runs
// where, what waits, and the scheduler's own figures. Plain values, taken on the cluster loop and
// read on any thread afterwards.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "master/rm/scheduling_figures.h"

namespace det::master {

// One process of a placed allocation (upstream: one container).
struct ObservedProcess {
  std::string
      container_id;  // its resources id (rm/resources_id.h): the allocation id, or "<id>.<rank>"
  std::string agent_id;
  // Where its resource manager says it runs ("agent a1 pid 4242", "pod det-..."): upstream's
  // runtime container id. "" until the process started.
  std::string runtime_id;
  std::vector<std::string> gpu_uuids;  // the GPUs among its slots
};

struct ObservedAllocation {
  std::string allocation_id;
  std::string task_id;
  std::string task_type;  // TRIAL, COMMAND, NOTEBOOK, ...
  std::string job_id;
  std::optional<int64_t> experiment_id;  // a trial's
  std::string resource_pool;
  bool running = false;  // placed (its processes start or run); else it waits in its pool's queue
  int slots = 0;
  std::vector<ObservedProcess> processes;  // empty while it waits
};

struct ObservedExperiment {
  int64_t id = 0;
  std::string job_id;
  std::vector<std::string> labels;
};

struct ObservedAgent {
  std::string id;
  std::string resource_pool;
  std::string address;  // the agent's host as the master sees it
};

struct ObservedPool {
  std::string name;
  std::string slot_type;  // cpu, cuda, rocm
  int agents = 0;
  int slots_total = 0;  // of enabled, connected agents
  int slots_used = 0;
  int aux_capacity = 0;
  int aux_running = 0;
  int queued_jobs = 0;  // jobs of the pool's queue that have nothing running
  int pending_allocations = 0;
  int running_allocations = 0;
};

struct ClusterObservation {
  std::vector<ObservedAllocation> allocations;  // by allocation id
  std::vector<ObservedExperiment> experiments;  // live ones, by id
  std::vector<ObservedAgent> agents;            // by id
  std::vector<ObservedPool> pools;              // by name
  SchedulingFigures scheduling;                 // every resource manager's passes together
  size_t state_writes_kept = 0;  // state writes waiting to be made again (state_writer.h kept())
};

}  // namespace det::master
