#pragma once
// AWS Signature Version 4 for S3 requests (the "Authorization header" form), as documented in
// AWS's "Signature Calculations for the Authorization Header: Transferring Payload in a Single
// Chunk". Pure functions: no I/O and no clock (the caller passes the time), so the published
// examples are exact unit tests.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace det::storage::s3 {

// The x-amz-content-sha256 value for a payload that is not hashed (S3 accepts it over any
// transport; the other choice is the hex SHA-256 of the body).
inline constexpr char kUnsignedPayload[] = "UNSIGNED-PAYLOAD";
// Hex SHA-256 of the empty string: the payload hash of a request without a body.
inline constexpr char kEmptyPayloadSha256[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct SigningCredentials {
  std::string access_key;
  std::string secret_key;
  std::string region = "us-east-1";
  std::string service = "s3";
};

// One HTTP request as S3 sees it, before encoding.
struct SignableRequest {
  std::string method;  // "GET", "PUT", ...
  // The absolute, unencoded path: "/bucket/key with spaces" (path-style) or "/key"
  // (virtual-hosted). Encoded with UriEncodePath for both the canonical request and the URL.
  std::string path;
  // Unencoded query parameters; "?lifecycle" is {"lifecycle", ""}.
  std::vector<std::pair<std::string, std::string>> query;
  // Headers to sign and send. Must contain "host" (any case); names are case-insensitive, values
  // are trimmed. No name may repeat. An "Authorization" header is sent but never signed.
  std::vector<std::pair<std::string, std::string>> headers;
  // Hex SHA-256 of the body, or kUnsignedPayload.
  std::string payload_sha256 = kEmptyPayloadSha256;
};

// S3's URI encoding of a path: each '/'-separated segment as client::UrlEncode encodes it (unreserved
// characters A-Z a-z 0-9 - . _ ~ stay, every other byte is %XX in uppercase hex), the '/'s kept.
std::string UriEncodePath(absl::string_view path);
// "name=value&..." sorted by encoded name, then value; every name and value URI-encoded.
std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query);

// "20130524T000000Z" and "20130524" (UTC).
std::string AmzDate(std::chrono::system_clock::time_point t);
std::string AmzShortDate(std::chrono::system_clock::time_point t);

// "20130524/us-east-1/s3/aws4_request".
std::string CredentialScope(absl::string_view short_date, const SigningCredentials& creds);

// Method, encoded path, canonical query, "name:value" header lines sorted by lowercase name, a
// blank line, the signed header names ("host;range;..."), and the payload hash.
std::string CanonicalRequest(const SignableRequest& req);
// "host;x-amz-content-sha256;x-amz-date": the sorted lowercase names of req.headers.
std::string SignedHeaders(const SignableRequest& req);

// "AWS4-HMAC-SHA256\n<amz date>\n<scope>\n<hex sha256 of the canonical request>".
std::string StringToSign(absl::string_view amz_date, absl::string_view scope,
                         absl::string_view canonical_request);
// HMAC chain "AWS4"+secret -> date -> region -> service -> "aws4_request" (raw bytes).
std::string SigningKey(absl::string_view short_date, const SigningCredentials& creds);
// Hex HMAC-SHA256 of the string to sign under the signing key.
std::string Signature(absl::string_view signing_key, absl::string_view string_to_sign);

// The Authorization header value for `req` as it stands (its headers must already include
// x-amz-date and x-amz-content-sha256 when they are to be signed) at time `t`.
std::string AuthorizationHeader(const SignableRequest& req, const SigningCredentials& creds,
                                std::chrono::system_clock::time_point t);

// Adds x-amz-date and x-amz-content-sha256 (= req.payload_sha256) to req.headers, replacing any
// present, then the Authorization header computed over them. `req` is ready to send.
void SignRequest(SignableRequest& req, const SigningCredentials& creds,
                 std::chrono::system_clock::time_point t);

}  // namespace det::storage::s3
