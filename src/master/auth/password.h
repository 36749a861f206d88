#pragma once
#include <string>

#include "api/types.h"

namespace det::master {

// Upstream's rule (reference §0.4): the stored hash is bcrypt(client-side SHA-512 form); a login sends
// either that form (`is_hashed`) or plain text, which is hashed the same way here. A blank password
// matches only a user without a password.
bool PasswordMatches(const api::User& user, const std::string& password, bool is_hashed);

}  // namespace det::master
