#include "master/http/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <utility>  // Boost 1.74 asio uses std::exchange without including it

#include <boost/asio/ssl/context.hpp>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace det::master {
namespace {

namespace ssl = boost::asio::ssl;

// The most specific reason OpenSSL recorded, else the error code's message.
std::string Reason(const boost::system::error_code& ec) {
  unsigned long err = ERR_peek_last_error();
  ERR_clear_error();
  if (err != 0) {
    char buf[256];
    ERR_error_string_n(err, buf, sizeof buf);
    return buf;
  }
  return ec.message();
}

absl::Status CheckReadable(const std::string& setting, const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(setting, ": ", file, ": no such file (give a PEM file)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<ssl::context>> MakeServerTlsContext(const std::string& cert_file,
                                                                   const std::string& key_file) {
  if (absl::Status st = CheckReadable("security.tls.cert", cert_file); !st.ok()) return st;
  if (absl::Status st = CheckReadable("security.tls.key", key_file); !st.ok()) return st;
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                           ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                           ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                       ec);
  if (!ec) SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  if (ec) return absl::InternalError(absl::StrCat("setting up TLS: ", Reason(ec)));
  context->use_certificate_chain_file(cert_file, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "security.tls.cert: ", cert_file, ": not a usable PEM certificate (", Reason(ec), ")"));
  }
  context->use_private_key_file(key_file, ssl::context::pem, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "security.tls.key: ", key_file, ": not a usable PEM private key (", Reason(ec), ")"));
  }
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(
        "security.tls.key: ", key_file, " does not belong to the certificate in ", cert_file));
  }
  return context;
}

}  // namespace det::master
