#pragma once
// Collectives of opaque byte strings among the workers of a distributed task (DistributedContext's
// gather, allgather and broadcast), over TCP in a star: the chief (rank 0) listens on chief_ip:port and
// every other worker connects to it. Calls are collective: every worker makes the same calls in the same
// order. Not thread-safe: one thread drives a group.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::harness {

struct WorkerGroupOptions {
  int rank = 0;
  int size = 1;
  std::string chief_ip = "127.0.0.1";
  int port = 12360;
  // How long to wait for every worker to join (the chief) or for the chief to listen (the others).
  std::chrono::milliseconds join_timeout{std::chrono::minutes(5)};
};

class WorkerGroup {
 public:
  // Forms the group: returns once every worker has joined. An error names what failed (a port in
  // use, a worker that never came, a rank given twice).
  static absl::StatusOr<std::unique_ptr<WorkerGroup>> Join(const WorkerGroupOptions& options);
  ~WorkerGroup();
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // The chief gets everyone's data in rank order; the others get nullopt.
  absl::StatusOr<std::optional<std::vector<std::string>>> Gather(const std::string& data);
  // Everyone gets everyone's data in rank order.
  absl::StatusOr<std::vector<std::string>> AllGather(const std::string& data);
  // Everyone gets the chief's data (the others' `data` is ignored).
  absl::StatusOr<std::string> Broadcast(const std::string& data);

 private:
  WorkerGroup(int rank, int size, std::vector<int> peers) : rank_(rank), size_(size), peers_(std::move(peers)) {}

  int rank_;
  int size_;
  // The chief: a socket per rank (index 0 unused); the others: one socket, to the chief.
  std::vector<int> peers_;
};

}  // namespace det::harness
