#include "master/auth/token_authenticator.h"

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/crypto.h"

namespace det::master {
namespace {

std::string BearerValue(const std::string& header) {
  absl::string_view v = header;
  if (absl::ConsumePrefix(&v, "Bearer ") || absl::ConsumePrefix(&v, "bearer ")) return std::string(v);
  return "";
}

std::string CookieValue(const std::string& cookies, const std::string& name) {
  for (absl::string_view part : absl::StrSplit(cookies, ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (absl::ConsumePrefix(&part, name + "=")) return std::string(part);
  }
  return "";
}

}  // namespace

std::string UserToken(const HttpRequest& request) {
  std::string token = BearerValue(request.Header("authorization"));
  if (token.empty()) token = CookieValue(request.Header("cookie"), "auth");
  return token;
}

absl::StatusOr<Principal> TokenAuthenticator::Authenticate(const HttpRequest& request) {
  std::string alloc_token = BearerValue(request.Header("grpc-metadata-x-allocation-token"));
  if (alloc_token.empty()) alloc_token = BearerValue(request.Header("x-allocation-token"));
  if (!alloc_token.empty()) return AuthenticateAllocation(alloc_token);
  std::string token = UserToken(request);
  if (token.empty()) return absl::UnauthenticatedError("token missing");
  absl::StatusOr<int64_t> user_id = store_.LookupSession(Sha256Hex(token), std::chrono::system_clock::now());
  if (absl::IsUnavailable(user_id.status())) return user_id.status();
  if (!user_id.ok()) return absl::UnauthenticatedError("invalid credentials");
  absl::StatusOr<api::User> user = store_.GetUser(*user_id);
  if (absl::IsUnavailable(user.status())) return user.status();
  if (!user.ok()) return absl::UnauthenticatedError("invalid credentials");
  if (!user->active) return absl::PermissionDeniedError("user is not active");
  return Principal{.user_id = user->id, .username = user->username, .admin = user->admin, .allocation_id = "", .token = token};
}

absl::StatusOr<Principal> TokenAuthenticator::AuthenticateAllocation(const std::string& token) {
  std::string hash = Sha256Hex(token);
  auto principal = [&token](const AllocationCaller& caller) {
    return Principal{.user_id = caller.owner_id, .username = caller.owner_name, .admin = false,
                     .allocation_id = caller.allocation_id, .token = token};
  };
  auto now = std::chrono::steady_clock::now();
  if (std::optional<AllocationCaller> known = allocations_.Fresh(hash, now)) return principal(*known);
  absl::StatusOr<Allocation> alloc = store_.GetAllocationByTokenHash(hash);
  if (alloc.ok()) {
    AllocationCaller caller{.allocation_id = alloc->allocation_id};
    absl::StatusOr<Task> task = store_.GetTask(alloc->task_id);
    if (absl::IsUnavailable(task.status())) return task.status();
    if (task.ok()) {
      caller.owner_id = task->owner_id;
      caller.owner_name = task->username;
    }
    if (IsTerminal(alloc->state)) {
      allocations_.Erase(hash);
    } else {
      allocations_.Put(hash, caller, now);
    }
    return principal(caller);
  }
  if (!absl::IsUnavailable(alloc.status())) return absl::UnauthenticatedError("invalid credentials");
  std::optional<AllocationCaller> known = allocations_.Any(hash);  // the database is down: seen before?
  if (!known) return alloc.status();
  return principal(*known);
}

}  // namespace det::master
