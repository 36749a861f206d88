#pragma once
// The streams the Docker Engine API answers with, as pure decoders: a container's multiplexed output
// (GET /containers/{id}/logs and attach, without a TTY) and an image pull's progress messages
// (POST /images/create), turned into task-log lines at a sane rate.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "agent/task_runtime.h"

namespace det::agent {

// Frames of an 8-byte header (stream: 0 stdin, 1 stdout, 2 stderr; three zero bytes; the payload's size,
// 4 bytes big-endian) and the payload. Payloads arrive as the container wrote them, not in lines.
class MultiplexedStreamDecoder {
 public:
  using OnPayload = std::function<void(StdType type, std::string_view payload)>;
  explicit MultiplexedStreamDecoder(OnPayload on_payload) : on_payload_(std::move(on_payload)) {}
  // The next bytes of the stream. InvalidArgument (and nothing more is decoded) for a header whose stream
  // byte or padding is not Docker's.
  absl::Status Feed(std::string_view data);
  // Whether the stream ended between frames.
  bool AtFrameBoundary() const { return pending_.empty() && remaining_ == 0; }

 private:
  OnPayload on_payload_;
  std::string pending_;  // a header read in part
  StdType type_ = StdType::kStdout;
  uint32_t remaining_ = 0;  // payload bytes of the current frame still to come
  bool broken_ = false;
};

// One message of a pull's stream: {"status":..., "id":..., "progressDetail":{"current","total"}}, or
// {"error":..., "errorDetail":{"message":...}}.
struct PullMessage {
  std::string status;  // "Pulling fs layer", "Downloading", "Download complete", "Pull complete", ...
  std::string id;      // the layer, when the message is about one
  int64_t current = 0;
  int64_t total = 0;
  std::string error;  // set: the pull failed with this message
};
absl::StatusOr<PullMessage> ParsePullMessage(std::string_view json_line);

// Turns a pull's messages into task-log lines: each status of each layer once, except progress, which
// is said at most every `interval` per layer (and when a layer is done), with MB and percent.
class PullReporter {
 public:
  PullReporter(std::function<void(std::string line)> say, std::chrono::milliseconds interval)
      : say_(std::move(say)), interval_(interval) {}
  void Add(const PullMessage& message, std::chrono::steady_clock::time_point now);

 private:
  std::function<void(std::string)> say_;
  std::chrono::milliseconds interval_;
  std::map<std::string, std::string> last_status_;  // layer -> its last status said
  std::map<std::string, std::chrono::steady_clock::time_point> last_progress_;
};

}  // namespace det::agent
