#pragma once
#include "master/db/store.h"
#include "master/http/router.h"

namespace det::master {

// Authenticates user sessions (`Authorization: Bearer`, cookie `auth`) and task allocation tokens
// (`Grpc-Metadata-x-allocation-token: Bearer`, `x-allocation-token`). Tokens are stored hashed.
class TokenAuthenticator : public Authenticator {
 public:
  explicit TokenAuthenticator(Store& store) : store_(store) {}
  absl::StatusOr<Principal> Authenticate(const HttpRequest& request) override;

 private:
  Store& store_;
};

// The token presented as a user session, or "" (for logout).
std::string UserToken(const HttpRequest& request);

}  // namespace det::master
