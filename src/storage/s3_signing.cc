#include "storage/s3_signing.h"

#include <algorithm>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/rest_client.h"
#include "common/crypto.h"

namespace det::storage::s3 {
namespace {

// Debian's abseil has a string_view of its own; the project's crypto and URL helpers take std's.
std::string_view Std(absl::string_view s) { return {s.data(), s.size()}; }

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

std::string UriEncodePath(absl::string_view path) {
  return absl::StrJoin(absl::StrSplit(path, '/'), "/", [](std::string* out, absl::string_view segment) {
    out->append(client::UrlEncode(Std(segment)));
  });
}

std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) encoded.emplace_back(client::UrlEncode(name), client::UrlEncode(value));
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
                      det::Sha256Hex(Std(canonical_request)));
}

std::string SigningKey(absl::string_view short_date, const SigningCredentials& creds) {
  std::string k = det::HmacSha256(absl::StrCat("AWS4", creds.secret_key), Std(short_date));
  k = det::HmacSha256(k, creds.region);
  k = det::HmacSha256(k, creds.service);
  return det::HmacSha256(k, "aws4_request");
}

std::string Signature(absl::string_view signing_key, absl::string_view string_to_sign) {
  return absl::BytesToHexString(det::HmacSha256(Std(signing_key), Std(string_to_sign)));
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

}  // namespace det::storage::s3
