#include "master/auth/password.h"

#include "common/crypto.h"

namespace det::master {

bool PasswordMatches(const api::User& user, const std::string& password, bool is_hashed) {
  std::string hashed = is_hashed ? password : ClientSidePasswordHash(password);
  if (!user.password_hash) return hashed.empty();
  return !hashed.empty() && BcryptVerify(hashed, *user.password_hash);
}

}  // namespace det::master
