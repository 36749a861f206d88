#pragma once
// The master's TLS server context (Boost.Asio over OpenSSL), built from PEM files. Kept apart from
// server.h so that asio's ssl headers stay out of widely included headers.
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace boost::asio::ssl {
class context;
}

namespace det::master {

// A TLS 1.2+ server context with the certificate chain in `cert_file` (PEM: the leaf first, then
// intermediates) and the matching private key in `key_file` (PEM). InvalidArgument naming the
// setting (security.tls.cert / security.tls.key) and the file when one is missing, unreadable, not
// PEM, or the key does not belong to the certificate.
absl::StatusOr<std::shared_ptr<boost::asio::ssl::context>> MakeServerTlsContext(
    const std::string& cert_file, const std::string& key_file);

}  // namespace det::master
