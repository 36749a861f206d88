#pragma once
#include <chrono>
#include <string>

#include "common/timed_cache.h"
#include "master/db/store.h"
#include "master/http/router.h"

namespace det::master {

// Authenticates user sessions (`Authorization: Bearer`, cookie `auth`) and task allocation tokens
// (`Grpc-Metadata-x-allocation-token: Bearer`, `x-allocation-token`). Tokens are stored hashed.
// A live allocation's token is read from the store at most every 5 s (a trial reporting metrics
// sends hundreds of requests a second). While the database cannot be reached, a user is told so
// (503, not 401: the token may be fine), and a task whose allocation token was seen before goes on
// being recognized, so that what needs no database still answers it and its writes are refused with
// a 503 it retries. A task's principal carries its owner's id and name (not the admin flag): the rule
// in force lets it read what its owner may read and change nothing (master/task/authz.h).
class TokenAuthenticator : public Authenticator {
 public:
  explicit TokenAuthenticator(Store& store) : store_(store), allocations_(std::chrono::seconds(5), 100000) {}
  absl::StatusOr<Principal> Authenticate(const HttpRequest& request) override;

 private:
  // Who an allocation token speaks for.
  struct AllocationCaller {
    std::string allocation_id;
    int64_t owner_id = 0;
    std::string owner_name;
  };
  absl::StatusOr<Principal> AuthenticateAllocation(const std::string& token);

  Store& store_;
  TimedCache<std::string, AllocationCaller> allocations_;  // by token hash
};

// The token presented as a user session, or "" (for logout).
std::string UserToken(const HttpRequest& request);

}  // namespace det::master
