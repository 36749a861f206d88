#pragma once
// The master's address as the agent was given it (--master-url), split for the websocket dial and
// for the DET_MASTER* variables tasks receive.
#include <string>

#include "absl/status/statusor.h"

namespace det::agent {

struct MasterUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // "127.0.0.1", "master.example.com", or an IPv6 literal without brackets
  int port = 8080;

  // "http(s)://HOST:PORT", with brackets around an IPv6 host.
  std::string HttpUrl() const;
  // "HOST:PORT" as an HTTP Host header writes it.
  std::string HostPort() const;
};

// Accepts "http://host:port", "https://host:port", "host:port" (http), "http://host" (port 8080),
// "https://host" (port 8443), with an optional trailing '/'; ws:// and wss:// stand for http:// and
// https://.
absl::StatusOr<MasterUrl> ParseMasterUrl(const std::string& text);

}  // namespace det::agent
