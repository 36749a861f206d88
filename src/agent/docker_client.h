#pragma once
// ContainerEngine over the Docker Engine API (v1.41) on a Unix socket, with libcurl: dockerd's
// /var/run/docker.sock, or podman's (`podman system service`, $XDG_RUNTIME_DIR/podman/podman.sock or
// /run/podman/podman.sock). Both engines' answers are handled as captured in
// tests/containers/testdata: errors as {"message"} (dockerd) or {"cause","message","response"} (podman),
// a refused pull as a status (dockerd) or as an error message inside a 200 stream (podman).
#include <chrono>
#include <string>

#include "agent/container_engine.h"

namespace det::agent {

// X-Registry-Auth: base64url, with padding, of the JSON AuthConfig ({username, password, serveraddress}
// or {identitytoken}). A Docker-config `auth` ("user:password" in base64) is sent as username and
// password, since dockerd ignores the `auth` field.
std::string RegistryAuthHeader(const RegistryAuth& auth);

// The body of POST /containers/create for `config` (Tty off, stdin closed, host network by default).
std::string ContainerCreateBody(const ContainerConfig& config);

class DockerClient : public ContainerEngine {
 public:
  // `socket_path` like "/var/run/docker.sock"; `request_timeout` bounds calls that do not stream
  // (pulls, output and waits are unbounded).
  explicit DockerClient(std::string socket_path,
                        std::chrono::milliseconds request_timeout = std::chrono::seconds(60));

  absl::StatusOr<std::string> Describe() override;
  absl::StatusOr<bool> HasImage(const std::string& image) override;
  absl::Status Pull(const std::string& image, const std::optional<RegistryAuth>& auth,
                    const std::function<void(const PullMessage&)>& on_message) override;
  absl::StatusOr<std::string> Create(const ContainerConfig& config) override;
  absl::StatusOr<int> Start(const std::string& id) override;
  absl::Status FollowOutput(const std::string& id,
                            const std::function<void(StdType type, std::string_view data)>& on_output) override;
  absl::StatusOr<int> Wait(const std::string& id) override;
  absl::Status Kill(const std::string& id, const std::string& signal) override;
  absl::Status Remove(const std::string& id) override;
  absl::StatusOr<std::vector<ListedContainer>> List(const std::string& key, const std::string& value) override;

 private:
  struct Reply {
    long status = 0;
    std::string body;
  };
  // One request; `on_data` (when set) receives the body of a 2xx answer as it arrives instead of
  // `Reply::body`. `streaming` lifts the time limit.
  absl::StatusOr<Reply> Call(const std::string& method, const std::string& path, const std::string& body,
                             const std::vector<std::string>& headers,
                             const std::function<void(std::string_view)>& on_data, bool streaming);

  std::string socket_path_;
  std::chrono::milliseconds request_timeout_;
};

// The engine's message in an error body ({"message": ...}), else the body itself, trimmed.
std::string EngineErrorMessage(const std::string& body);

// Splits an image reference into fromImage and tag for POST /images/create ("reg:5000/a/b:t" ->
// {"reg:5000/a/b", "t"}; no tag -> "latest"; a digest stays in fromImage with an empty tag).
std::pair<std::string, std::string> SplitImageReference(const std::string& image);

}  // namespace det::agent
