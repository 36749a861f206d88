#pragma once
// The lifespan of a new access token (PostAccessTokenRequest.lifespan) under security.token.
#include <chrono>
#include <string>

#include "absl/status/statusor.h"
#include "config/master_config.h"

namespace det::master {

// "" -> default_lifespan_days; "-1" -> max_lifespan_days; otherwise a Go duration ("720h", "90m",
// "2s", "1h30m"). InvalidArgument naming `lifespan` when it is not a positive duration or exceeds
// max_lifespan_days (the message says the limit and how to ask for it).
absl::StatusOr<std::chrono::seconds> AccessTokenLifespan(const std::string& lifespan, const config::TokenConfig& limits);

}  // namespace det::master
