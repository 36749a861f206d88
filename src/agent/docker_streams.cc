#include "agent/docker_streams.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace det::agent {

absl::Status MultiplexedStreamDecoder::Feed(std::string_view data) {
  while (!data.empty() && !broken_) {
    if (remaining_ > 0) {
      const size_t n = std::min<size_t>(remaining_, data.size());
      on_payload_(type_, data.substr(0, n));
      remaining_ -= static_cast<uint32_t>(n);
      data.remove_prefix(n);
      continue;
    }
    const size_t want = 8 - pending_.size();
    pending_.append(data.substr(0, want));
    data.remove_prefix(std::min(want, data.size()));
    if (pending_.size() < 8) break;
    const auto* h = reinterpret_cast<const unsigned char*>(pending_.data());
    if (h[0] > 2 || h[1] != 0 || h[2] != 0 || h[3] != 0) {
      broken_ = true;
      return absl::InvalidArgumentError(absl::StrFormat(
          "the container's output stream is not multiplexed (header %02x %02x %02x %02x): was it made with a TTY?",
          h[0], h[1], h[2], h[3]));
    }
    type_ = h[0] == 2 ? StdType::kStderr : StdType::kStdout;
    remaining_ = (uint32_t{h[4]} << 24) | (uint32_t{h[5]} << 16) | (uint32_t{h[6]} << 8) | uint32_t{h[7]};
    pending_.clear();
  }
  return broken_ ? absl::InvalidArgumentError("the container's output stream was broken earlier") : absl::OkStatus();
}

absl::StatusOr<PullMessage> ParsePullMessage(std::string_view json_line) {
  nlohmann::json j = nlohmann::json::parse(json_line, nullptr, false);
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("an image pull message is not a JSON object: ",
                                                   std::string(json_line.substr(0, 200))));
  }
  PullMessage m;
  auto str = [&](const nlohmann::json& o, const char* key) {
    return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
  };
  m.status = str(j, "status");
  m.id = str(j, "id");
  if (j.contains("progressDetail") && j["progressDetail"].is_object()) {
    const nlohmann::json& p = j["progressDetail"];
    if (p.contains("current") && p["current"].is_number()) m.current = p["current"].get<int64_t>();
    if (p.contains("total") && p["total"].is_number()) m.total = p["total"].get<int64_t>();
  }
  m.error = str(j, "error");
  if (m.error.empty() && j.contains("errorDetail") && j["errorDetail"].is_object()) {
    m.error = str(j["errorDetail"], "message");
  }
  return m;
}

void PullReporter::Add(const PullMessage& m, std::chrono::steady_clock::time_point now) {
  if (!m.error.empty()) return say_(absl::StrCat("Error pulling the image: ", m.error));
  if (m.status.empty()) return;
  const bool progress = m.status == "Downloading" || m.status == "Extracting";
  if (progress) {
    auto it = last_progress_.find(m.id);
    if (it != last_progress_.end() && now - it->second < interval_) return;
    last_progress_[m.id] = now;
    std::string line = absl::StrCat(m.id.empty() ? "" : m.id + ": ", m.status);
    if (m.total > 0) {
      absl::StrAppend(&line, absl::StrFormat(" %.1f/%.1f MB (%d%%)", m.current / 1e6, m.total / 1e6,
                                             static_cast<int>(100 * m.current / m.total)));
    }
    return say_(line);
  }
  std::string& last = last_status_[m.id];
  if (last == m.status) return;
  last = m.status;
  say_(m.id.empty() ? m.status : absl::StrCat(m.id, ": ", m.status));
}

}  // namespace det::agent
