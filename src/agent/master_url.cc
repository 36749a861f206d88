#include "agent/master_url.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace det::agent {

std::string MasterUrl::HostPort() const {
  std::string host_part = host.find(':') != std::string::npos ? absl::StrCat("[", host, "]") : host;
  return absl::StrCat(host_part, ":", port);
}

std::string MasterUrl::HttpUrl() const { return absl::StrCat(scheme, "://", HostPort()); }

absl::StatusOr<MasterUrl> ParseMasterUrl(const std::string& text) {
  MasterUrl url;
  std::string rest = text;
  size_t sep = rest.find("://");
  if (sep != std::string::npos) {
    url.scheme = rest.substr(0, sep);
    rest = rest.substr(sep + 3);
  } else {
    url.scheme = "http";
  }
  if (url.scheme == "ws") url.scheme = "http";
  if (url.scheme == "wss") url.scheme = "https";
  if (url.scheme != "http" && url.scheme != "https") {
    return absl::InvalidArgumentError(
        absl::StrCat("--master-url ", text, ": unknown scheme \"", url.scheme,
                     "\"; use http://HOST:PORT or https://HOST:PORT"));
  }
  if (url.scheme == "https") url.port = 8443;
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--master-url ", text, ": a path is not supported; use http://HOST:PORT"));
  }
  std::string port_text;
  if (absl::StartsWith(rest, "[")) {
    size_t close = rest.find(']');
    if (close == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("--master-url ", text, ": unterminated '['"));
    }
    url.host = rest.substr(1, close - 1);
    std::string after = rest.substr(close + 1);
    if (absl::StartsWith(after, ":"))
      port_text = after.substr(1);
    else if (!after.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--master-url ", text, ": junk after ']'"));
    }
  } else {
    size_t colon = rest.rfind(':');
    if (colon != std::string::npos) {
      url.host = rest.substr(0, colon);
      port_text = rest.substr(colon + 1);
    } else {
      url.host = rest;
    }
  }
  if (url.host.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--master-url ", text, ": missing host"));
  }
  if (!port_text.empty()) {
    if (!absl::SimpleAtoi(port_text, &url.port) || url.port <= 0 || url.port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--master-url ", text, ": port must be 1..65535, got \"", port_text, "\""));
    }
  }
  return url;
}

}  // namespace det::agent
