#pragma once
// SSH key pairs for shells: the master makes one per shell (upstream does the same), ships the
// public half to the task's sshd and hands the private half to the shell's owner.
#include <string>

#include "absl/status/statusor.h"

namespace det {

struct SshKeyPair {
  std::string private_key;  // PEM ("-----BEGIN RSA PRIVATE KEY-----"), as ssh -i reads it
  std::string public_key;   // one authorized_keys line: "ssh-rsa AAAA... determined"
};

// A fresh 2048-bit RSA key pair.
absl::StatusOr<SshKeyPair> GenerateSshKeyPair();

}  // namespace det
