#pragma once
// The part of a container engine the agent uses, as the Docker Engine API (v1.41) offers it: pull an
// image (with registry credentials), create, start, follow the output of, wait for, kill, remove and
// list (by label) containers. One implementation speaks the API over the engine's Unix socket (docker_client.h; dockerd and `podman system service` both serve it); tests use fakes.
//
// Errors: the engine's refusal carries its own message (`unauthorized: authentication required`,
// `initializing source docker://...: manifest unknown`); NotFound for a missing image or container;
// Unavailable when the engine does not answer.
//
// Threads: every call blocks; one engine may be used from several threads at once.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/docker_streams.h"

namespace det::agent {

// upstream's environment.registry_auth; sent as X-Registry-Auth.
struct RegistryAuth {
  std::string username;
  std::string password;
  std::string server_address;
  std::string auth;           // base64 "user:password", the Docker config form; used when username is empty
  std::string identity_token;
};

struct ContainerConfig {
  std::string name;
  std::vector<std::string> entrypoint;  // replaces the image's ENTRYPOINT; its CMD is not appended
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> labels;
  std::string user;      // "uid:gid"; "" = the image's
  std::string work_dir;  // "" = the image's
  ContainerSettings settings;
};

// A container as a list by label shows it.
struct ListedContainer {
  std::string id;
  std::map<std::string, std::string> labels;
};

class ContainerEngine {
 public:
  virtual ~ContainerEngine() = default;

  // The engine's name and API version, e.g. "Docker Engine 20.10.24 (API 1.41)"; also a liveness check.
  virtual absl::StatusOr<std::string> Describe() = 0;
  // Whether the image is present locally.
  virtual absl::StatusOr<bool> HasImage(const std::string& image) = 0;
  // Pulls the image, calling `on_message` with each progress message as it arrives. A failure the
  // engine reports in the stream or as a status is the error, with the engine's message.
  virtual absl::Status Pull(const std::string& image, const std::optional<RegistryAuth>& auth,
                            const std::function<void(const PullMessage&)>& on_message) = 0;
  // Creates a container (without a TTY); its id.
  virtual absl::StatusOr<std::string> Create(const ContainerConfig& config) = 0;
  // Starts it; the host pid of its first process (0 when it already ended).
  virtual absl::StatusOr<int> Start(const std::string& id) = 0;
  // Follows the container's output from its start until it ends (or the connection breaks), in the
  // order it was written; `on_output` gets the payloads as the engine frames them, not lines.
  virtual absl::Status FollowOutput(const std::string& id,
                                    const std::function<void(StdType type, std::string_view data)>& on_output) = 0;
  // Waits for the container to stop; its exit code (128+N when killed by signal N).
  virtual absl::StatusOr<int> Wait(const std::string& id) = 0;
  // Sends a signal ("SIGTERM", "SIGKILL"); OK when the container already stopped.
  virtual absl::Status Kill(const std::string& id, const std::string& signal) = 0;
  // Removes the container and its anonymous volumes, forcing a running one; OK when it is gone.
  virtual absl::Status Remove(const std::string& id) = 0;
  // Every container, running or not, that has label `key` with `value`.
  virtual absl::StatusOr<std::vector<ListedContainer>> List(const std::string& key, const std::string& value) = 0;
};

}  // namespace det::agent
