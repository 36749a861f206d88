#pragma once
// `s3` checkpoint storage (reference §2.5): checkpoint UUID's files are the objects
// `prefix/UUID/relative/path` of one bucket, with an empty `prefix/UUID/dir/` object for every
// subdirectory (as upstream's S3StorageManager writes them). Requests are signed with SigV4 and
// sent with libcurl; any S3-compatible server works through `endpoint_url` (path-style
// addressing). Safe for concurrent use: requests are serialized on one connection.
#include <functional>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/s3_signing.h"
#include "storage/storage_manager.h"

namespace det::storage {

struct S3Config {
  std::string bucket;
  std::string prefix;        // normalized: no leading or trailing '/', no ".." component
  std::string endpoint_url;  // "" = AWS (https://BUCKET.s3.REGION.amazonaws.com)
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // sent as x-amz-security-token when set
  std::string region = "us-east-1";
};

// Reads an `s3` checkpoint_storage object: bucket (required), prefix, endpoint_url, access_key,
// secret_key, region (not in upstream's schema; honoured when present). Keys missing from the
// config (or masked as "********") come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
// AWS_SESSION_TOKEN, the region from AWS_REGION / AWS_DEFAULT_REGION, as boto3 does. `getenv`
// returns "" for unset variables (defaults to the process environment).
absl::StatusOr<S3Config> S3ConfigFromJson(
    const nlohmann::json& checkpoint_storage,
    const std::function<std::string(const char*)>& getenv = nullptr);

class S3Storage : public StorageManager {
 public:
  explicit S3Storage(S3Config config);
  ~S3Storage() override;
  S3Storage(const S3Storage&) = delete;
  S3Storage& operator=(const S3Storage&) = delete;

  // A fresh staging directory under the system temp dir (TMPDIR); PostStore uploads it and
  // removes it.
  absl::StatusOr<std::filesystem::path> StorePath(const std::string& uuid) override;
  // Uploads every file under `dir` (streamed from disk) and a marker for every subdirectory, then
  // removes `dir`. When the upload fails `dir` stays, and the error names it.
  absl::Status PostStore(const std::string& uuid, const std::filesystem::path& dir) override;
  // Downloads every object under prefix/UUID/ into DIR/UUID, DIR a fresh directory under the
  // system temp dir, removed by ReleaseRestorePath. NotFound when there is none.
  absl::StatusOr<std::filesystem::path> RestorePath(const std::string& uuid) override;
  void ReleaseRestorePath(const std::filesystem::path& dir) override;
  // Deletes every object under prefix/UUID/; OK when there is none.
  absl::Status Delete(const std::string& uuid) override;
  // Downloads every object under prefix/UUID/ into `dir` (created if missing; files there are
  // overwritten). NotFound when there is none; on another error `dir` may hold part of it.
  absl::Status DownloadTo(const std::string& uuid, const std::filesystem::path& dir) override;
  // "s3 at s3://bucket/prefix (endpoint http://127.0.0.1:9000)".
  std::string Describe() const override;

  // Files under key prefix P are the objects `prefix/P/relative/path` (PutObject, ListObjectsV2,
  // GetObject). ListFiles leaves out directory markers ("name/") and keys that are not clean
  // relative paths under P/; a file's version is its ETag.
  absl::Status UploadFile(const std::filesystem::path& local_file, const std::string& prefix,
                          const std::string& name) override;
  absl::StatusOr<std::vector<StoredFile>> ListFiles(const std::string& prefix) override;
  absl::Status DownloadFile(const std::string& prefix, const std::string& name,
                            const std::filesystem::path& local_file) override;
  absl::Status DeleteFile(const std::string& prefix, const std::string& name) override;

  // The object key of `relative` in checkpoint `uuid`: "prefix/UUID/relative" (also under a key
  // prefix: "prefix/P/relative").
  std::string ObjectKey(const std::string& uuid, const std::string& relative) const;
  // One object of a listing.
  struct ObjectInfo {
    std::string key;
    int64_t size = 0;
    std::string etag;
  };
  // Every object whose key starts with `key_prefix` (ListObjectsV2, following continuation tokens).
  absl::StatusOr<std::vector<ObjectInfo>> ListObjects(const std::string& key_prefix);
  // The keys of ListObjects.
  absl::StatusOr<std::vector<std::string>> ListKeys(const std::string& key_prefix);

  const S3Config& config() const { return config_; }
  // ListObjectsV2 max-keys, to exercise continuation tokens with few objects.
  void SetListPageSizeForTest(int n) { list_page_size_ = n; }

 private:
  struct Response {
    long status = 0;
    std::string body;  // the response body (or, for a download, the error body only)
  };
  // What to send and where the response body goes.
  struct Transfer {
    const std::filesystem::path* upload = nullptr;    // PUT body from this file; null = no body
    const std::filesystem::path* download = nullptr;  // 2xx body to this file; null = into body
  };

  // One signed request for `key` ("" = the bucket), retried on transport errors and 5xx. A non-2xx
  // answer is returned as a Response, not an error; transport failures are Unavailable.
  absl::StatusOr<Response> Send(const std::string& method, const std::string& key,
                                const std::vector<std::pair<std::string, std::string>>& query,
                                const Transfer& transfer);
  absl::StatusOr<Response> SendOnce(const std::string& method, const std::string& key,
                                    const std::vector<std::pair<std::string, std::string>>& query,
                                    const Transfer& transfer, const std::string& payload_sha256);
  // The error Status for a non-2xx response to `method` on `key`.
  absl::Status HttpError(const std::string& method, const std::string& key,
                         const Response& r) const;
  absl::Status Upload(const std::string& key, const std::filesystem::path& file);
  absl::Status Download(const std::string& key, const std::filesystem::path& file);

  S3Config config_;
  s3::SigningCredentials creds_;
  std::string scheme_;     // "http" or "https"
  std::string authority_;  // the Host header: "127.0.0.1:9000" or "bucket.s3.region.amazonaws.com"
  std::string base_path_;  // "/bucket" (path-style) or "" (virtual-hosted)
  int list_page_size_ = 1000;
  std::mutex mu_;  // guards curl_
  void* curl_;     // CURL*, kept out of the header
};

}  // namespace det::storage
