#include "storage/s3_signing.h"

#include <gtest/gtest.h>

#include <chrono>

#include "common/crypto.h"

namespace det::storage::s3 {
namespace {

// AWS's published SigV4 examples for S3 ("Signature Calculations for the Authorization Header:
// Transferring Payload in a Single Chunk"): bucket examplebucket in us-east-1, 2013-05-24 00:00
// UTC.
constexpr char kAccessKey[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kSecretKey[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr char kHost[] = "examplebucket.s3.amazonaws.com";

SigningCredentials Creds() { return {kAccessKey, kSecretKey, "us-east-1", "s3"}; }

std::chrono::system_clock::time_point May24() {
  // 2013-05-24T00:00:00Z
  return std::chrono::system_clock::time_point(std::chrono::seconds(1369353600));
}

SignableRequest GetObjectExample() {
  SignableRequest req;
  req.method = "GET";
  req.path = "/test.txt";
  req.headers = {{"Host", kHost},
                 {"Range", "bytes=0-9"},
                 {"x-amz-content-sha256", kEmptyPayloadSha256},
                 {"x-amz-date", "20130524T000000Z"}};
  return req;
}

TEST(S3Signing, Dates) {
  EXPECT_EQ(AmzDate(May24()), "20130524T000000Z");
  EXPECT_EQ(AmzShortDate(May24()), "20130524");
  EXPECT_EQ(AmzDate(May24() + std::chrono::seconds(3723)), "20130524T010203Z");
  EXPECT_EQ(CredentialScope("20130524", Creds()), "20130524/us-east-1/s3/aws4_request");
}

TEST(S3Signing, EmptyPayloadHash) {
  EXPECT_EQ(det::Sha256Hex(""), kEmptyPayloadSha256);
}

TEST(S3Signing, UriEncoding) {
  EXPECT_EQ(UriEncodePath("/ckpts/uuid/sub dir/f$1.txt"), "/ckpts/uuid/sub%20dir/f%241.txt");
  EXPECT_EQ(UriEncodePath("/a/\xc3\xa9/"), "/a/%C3%A9/");
  EXPECT_EQ(CanonicalQueryString({{"prefix", "J"}, {"max-keys", "2"}}), "max-keys=2&prefix=J");
  EXPECT_EQ(CanonicalQueryString({{"lifecycle", ""}}), "lifecycle=");
  EXPECT_EQ(CanonicalQueryString(
                {{"prefix", "a/b c"}, {"list-type", "2"}, {"continuation-token", "x+y="}}),
            "continuation-token=x%2By%3D&list-type=2&prefix=a%2Fb%20c");
}

TEST(S3Signing, GetObjectExample) {
  SignableRequest req = GetObjectExample();
  EXPECT_EQ(
      CanonicalRequest(req),
      "GET\n"
      "/test.txt\n"
      "\n"
      "host:examplebucket.s3.amazonaws.com\n"
      "range:bytes=0-9\n"
      "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
      "x-amz-date:20130524T000000Z\n"
      "\n"
      "host;range;x-amz-content-sha256;x-amz-date\n"
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  std::string scope = CredentialScope("20130524", Creds());
  std::string to_sign = StringToSign("20130524T000000Z", scope, CanonicalRequest(req));
  EXPECT_EQ(to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(Signature(SigningKey("20130524", Creds()), to_sign),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(AuthorizationHeader(req, Creds(), May24()),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(S3Signing, SignRequestAddsDateHashAndAuthorization) {
  SignableRequest req;
  req.method = "GET";
  req.path = "/test.txt";
  req.headers = {{"Host", kHost}, {"Range", "bytes=0-9"}, {"x-amz-date", "stale"}};
  SignRequest(req, Creds(), May24());
  auto find = [&](const std::string& name) {
    for (const auto& [n, v] : req.headers) {
      if (n == name) return v;
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(find("x-amz-date"), "20130524T000000Z");
  EXPECT_EQ(find("x-amz-content-sha256"), kEmptyPayloadSha256);
  EXPECT_EQ(req.headers.size(), 5u);  // host, range, date, hash, authorization
  EXPECT_EQ(find("Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(S3Signing, PutObjectExample) {
  SignableRequest req;
  req.method = "PUT";
  req.path = "/test$file.text";
  req.payload_sha256 = det::Sha256Hex("Welcome to Amazon S3.");
  req.headers = {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                 {"Host", kHost},
                 {"x-amz-storage-class", "REDUCED_REDUNDANCY"}};
  SignRequest(req, Creds(), May24());
  EXPECT_EQ(
      CanonicalRequest(req),
      "PUT\n"
      "/test%24file.text\n"
      "\n"
      "date:Fri, 24 May 2013 00:00:00 GMT\n"
      "host:examplebucket.s3.amazonaws.com\n"
      "x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
      "x-amz-date:20130524T000000Z\n"
      "x-amz-storage-class:REDUCED_REDUNDANCY\n"
      "\n"
      "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
      "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  EXPECT_EQ(req.headers.back().second,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
            "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(S3Signing, GetBucketLifecycleExample) {
  SignableRequest req;
  req.method = "GET";
  req.path = "/";
  req.query = {{"lifecycle", ""}};
  req.headers = {{"Host", kHost}};
  SignRequest(req, Creds(), May24());
  EXPECT_EQ(
      StringToSign("20130524T000000Z", CredentialScope("20130524", Creds()), CanonicalRequest(req)),
      "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
      "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca");
  EXPECT_EQ(req.headers.back().second,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
            "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(S3Signing, ListObjectsExample) {
  SignableRequest req;
  req.method = "GET";
  req.path = "/";
  req.query = {{"prefix", "J"}, {"max-keys", "2"}};  // out of order on purpose
  req.headers = {{"Host", kHost}};
  SignRequest(req, Creds(), May24());
  EXPECT_EQ(
      StringToSign("20130524T000000Z", CredentialScope("20130524", Creds()), CanonicalRequest(req)),
      "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
      "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7");
  EXPECT_EQ(req.headers.back().second,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
            "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(S3Signing, WrongSecretChangesSignature) {
  SigningCredentials wrong = Creds();
  wrong.secret_key.back() = 'X';
  EXPECT_NE(AuthorizationHeader(GetObjectExample(), wrong, May24()),
            AuthorizationHeader(GetObjectExample(), Creds(), May24()));
}

TEST(S3Signing, HeaderValuesAreTrimmed) {
  SignableRequest req = GetObjectExample();
  req.headers[1].second = "  bytes=0-9  ";
  EXPECT_EQ(CanonicalRequest(req), CanonicalRequest(GetObjectExample()));
}

}  // namespace
}  // namespace det::storage::s3
