#pragma once
// The master's address as the agent was given it (--master-url), split for the websocket dial and
// for the DET_MASTER* variables tasks receive.
#include <string>

#include "absl/status/statusor.h"

namespace det::agent {

struct MasterUrl {
  std::string scheme;  // "http" (https is refused until the agent link speaks TLS)
  std::string host;    // "127.0.0.1", "master.example.com", or an IPv6 literal without brackets
  int port = 8080;

  // "http://HOST:PORT", with brackets around an IPv6 host.
  std::string HttpUrl() const;
  // "HOST:PORT" as an HTTP Host header writes it.
  std::string HostPort() const;
};

// Accepts "http://host:port", "host:port", "http://host" (port 8080), with an optional trailing
// '/'.
absl::StatusOr<MasterUrl> ParseMasterUrl(const std::string& text);

}  // namespace det::agent
