#include "harness/s3_signing.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace det::harness::s3 {
namespace {

bool IsUnreserved(unsigned char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

std::string Encode(absl::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

// Header value as signed: leading/trailing blanks dropped, inner runs of blanks made one space.
std::string TrimAll(absl::string_view v) {
  std::string out;
  bool pending_space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

// (lowercase name, trimmed value), sorted by name. Authorization, which carries the signature, is
// never signed.
std::vector<std::pair<std::string, std::string>> NormalizedHeaders(const SignableRequest& req) {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(req.headers.size());
  for (const auto& [name, value] : req.headers) {
    std::string lower = absl::AsciiStrToLower(name);
    if (lower == "authorization") continue;
    out.emplace_back(std::move(lower), TrimAll(value));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string FormatUtc(std::chrono::system_clock::time_point t, const char* format) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  size_t n = std::strftime(buf, sizeof(buf), format, &tm);
  return std::string(buf, n);
}

}  // namespace

std::string HexEncode(absl::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xf]);
  }
  return out;
}

std::string Sha256Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  return HexEncode(absl::string_view(reinterpret_cast<const char*>(digest), len));
}

std::string HmacSha256(absl::string_view key, absl::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

std::string UriEncode(absl::string_view s) { return Encode(s, /*keep_slash=*/false); }
std::string UriEncodePath(absl::string_view path) { return Encode(path, /*keep_slash=*/true); }

std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) encoded.emplace_back(UriEncode(name), UriEncode(value));
  std::sort(encoded.begin(), encoded.end());
  return absl::StrJoin(encoded, "&", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, "=", kv.second);
  });
}

std::string AmzDate(std::chrono::system_clock::time_point t) {
  return FormatUtc(t, "%Y%m%dT%H%M%SZ");
}
std::string AmzShortDate(std::chrono::system_clock::time_point t) { return FormatUtc(t, "%Y%m%d"); }

std::string CredentialScope(absl::string_view short_date, const SigningCredentials& creds) {
  return absl::StrCat(short_date, "/", creds.region, "/", creds.service, "/aws4_request");
}

std::string SignedHeaders(const SignableRequest& req) {
  auto headers = NormalizedHeaders(req);
  return absl::StrJoin(headers, ";",
                       [](std::string* out, const auto& kv) { out->append(kv.first); });
}

std::string CanonicalRequest(const SignableRequest& req) {
  std::string out = absl::StrCat(req.method, "\n", UriEncodePath(req.path.empty() ? "/" : req.path),
                                 "\n", CanonicalQueryString(req.query), "\n");
  for (const auto& [name, value] : NormalizedHeaders(req))
    absl::StrAppend(&out, name, ":", value, "\n");
  absl::StrAppend(&out, "\n", SignedHeaders(req), "\n", req.payload_sha256);
  return out;
}

std::string StringToSign(absl::string_view amz_date, absl::string_view scope,
                         absl::string_view canonical_request) {
  return absl::StrCat("AWS4-HMAC-SHA256\n", amz_date, "\n", scope, "\n",
                      Sha256Hex(canonical_request));
}

std::string SigningKey(absl::string_view short_date, const SigningCredentials& creds) {
  std::string k = HmacSha256(absl::StrCat("AWS4", creds.secret_key), short_date);
  k = HmacSha256(k, creds.region);
  k = HmacSha256(k, creds.service);
  return HmacSha256(k, "aws4_request");
}

std::string Signature(absl::string_view signing_key, absl::string_view string_to_sign) {
  return HexEncode(HmacSha256(signing_key, string_to_sign));
}

std::string AuthorizationHeader(const SignableRequest& req, const SigningCredentials& creds,
                                std::chrono::system_clock::time_point t) {
  std::string short_date = AmzShortDate(t);
  std::string scope = CredentialScope(short_date, creds);
  std::string to_sign = StringToSign(AmzDate(t), scope, CanonicalRequest(req));
  return absl::StrCat("AWS4-HMAC-SHA256 Credential=", creds.access_key, "/", scope,
                      ",SignedHeaders=", SignedHeaders(req),
                      ",Signature=", Signature(SigningKey(short_date, creds), to_sign));
}

void SignRequest(SignableRequest& req, const SigningCredentials& creds,
                 std::chrono::system_clock::time_point t) {
  auto& h = req.headers;
  h.erase(std::remove_if(h.begin(), h.end(),
                         [](const auto& kv) {
                           std::string name = absl::AsciiStrToLower(kv.first);
                           return name == "x-amz-date" || name == "x-amz-content-sha256" ||
                                  name == "authorization";
                         }),
          h.end());
  h.emplace_back("x-amz-date", AmzDate(t));
  h.emplace_back("x-amz-content-sha256", req.payload_sha256);
  std::string auth = AuthorizationHeader(req, creds, t);
  h.emplace_back("Authorization", std::move(auth));
}

}  // namespace det::harness::s3
