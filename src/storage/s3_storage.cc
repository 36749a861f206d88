#include "storage/s3_storage.h"

#include <curl/curl.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/wire.h"
#include "common/crypto.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "storage/checkpoint_resources.h"

namespace det::storage {
namespace fs = std::filesystem;

namespace {

constexpr char kMasked[] = "********";
constexpr char kStagingPrefix[] = "det-s3-store-";
constexpr char kRestorePrefix[] = "det-s3-restore-";
constexpr int kAttempts = 3;

CURL* Curl(void* p) { return static_cast<CURL*>(p); }

// Unescapes the five XML entities and numeric character references (enough for S3's answers).
std::string XmlUnescape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == absl::string_view::npos) {
      absl::StrAppend(&out, s.substr(i));
      break;
    }
    absl::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp")
      out.push_back('&');
    else if (ent == "lt")
      out.push_back('<');
    else if (ent == "gt")
      out.push_back('>');
    else if (ent == "quot")
      out.push_back('"');
    else if (ent == "apos")
      out.push_back('\'');
    else if (!ent.empty() && ent[0] == '#') {
      uint32_t cp = 0;
      bool ok = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X')
                    ? absl::SimpleHexAtoi(ent.substr(2), &cp)
                    : absl::SimpleAtoi(ent.substr(1), &cp);
      if (!ok) {
        absl::StrAppend(&out, s.substr(i, semi - i + 1));
      } else if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
      } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
      } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
      } else {
        out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
      }
    } else {
      absl::StrAppend(&out, s.substr(i, semi - i + 1));
    }
    i = semi;
  }
  return out;
}

// The raw (still escaped) content of every <tag>...</tag> in `xml`, in order. S3's answers are
// flat enough that this suffices: <Key> appears only in <Contents>, <Code>/<Message> only in
// <Error>, and <Contents> does not nest.
std::vector<absl::string_view> XmlRawElements(absl::string_view xml, absl::string_view tag) {
  std::vector<absl::string_view> out;
  std::string open = absl::StrCat("<", tag, ">");
  std::string close = absl::StrCat("</", tag, ">");
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != absl::string_view::npos) {
    size_t start = pos + open.size();
    size_t end = xml.find(close, start);
    if (end == absl::string_view::npos) break;
    out.push_back(xml.substr(start, end - start));
    pos = end + close.size();
  }
  return out;
}

// The unescaped text of every <tag>...</tag> in `xml`, in order.
std::vector<std::string> XmlElements(absl::string_view xml, absl::string_view tag) {
  std::vector<std::string> out;
  for (absl::string_view raw : XmlRawElements(xml, tag)) out.push_back(XmlUnescape(raw));
  return out;
}

std::string XmlElement(absl::string_view xml, absl::string_view tag) {
  auto all = XmlElements(xml, tag);
  return all.empty() ? "" : all.front();
}

// A fresh directory `<temp dir>/<prefix>XXXXXX`.
absl::StatusOr<fs::path> MakeTempDir(const char* prefix) {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  std::string templ = (tmp / absl::StrCat(prefix, "XXXXXX")).string();
  if (mkdtemp(templ.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a temporary directory in ", tmp.string(),
                                            ": ", std::strerror(errno)));
  }
  return fs::path(templ);
}

struct WriteTarget {
  CURL* curl;
  FILE* file;         // the 2xx body goes here when set
  std::string* body;  // otherwise (and every error body) here
  bool write_failed = false;
};

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<WriteTarget*>(user);
  long code = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
  if (t->file != nullptr && code >= 200 && code < 300) {
    size_t written = std::fwrite(data, 1, size * n, t->file);
    if (written != size * n) t->write_failed = true;
    return written;
  }
  t->body->append(data, size * n);
  return size * n;
}

size_t ReadBody(char* data, size_t size, size_t n, void* user) {
  FILE* f = static_cast<FILE*>(user);
  if (f == nullptr) return 0;
  size_t got = std::fread(data, 1, size * n, f);
  if (got == 0 && std::ferror(f)) return CURL_READFUNC_ABORT;
  return got;
}

std::string EnvOr(const std::function<std::string(const char*)>& getenv, const char* name) {
  if (getenv) return getenv(name);
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Is `rel` (a key with the checkpoint prefix removed) a safe relative path?
bool SafeRelative(const std::string& rel) {
  if (rel.empty() || rel.front() == '/') return false;
  for (absl::string_view part : absl::StrSplit(rel, '/')) {
    if (part == "..") return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<S3Config> S3ConfigFromJson(const nlohmann::json& cs,
                                          const std::function<std::string(const char*)>& getenv) {
  S3Config c;
  c.bucket = api::StringField(cs, "bucket");
  if (c.bucket.empty()) {
    return absl::InvalidArgumentError("checkpoint_storage.bucket: required for type s3");
  }
  std::string prefix = api::StringField(cs, "prefix");
  absl::string_view p = prefix;
  while (absl::ConsumePrefix(&p, "/")) {
  }
  while (absl::ConsumeSuffix(&p, "/")) {
  }
  for (absl::string_view part : absl::StrSplit(p, '/')) {
    if (part == "..") {
      return absl::InvalidArgumentError(absl::StrCat(
          "checkpoint_storage.prefix: must not contain \"..\" components, got \"", prefix, "\""));
    }
  }
  c.prefix = std::string(p);
  c.endpoint_url = api::StringField(cs, "endpoint_url");
  while (absl::EndsWith(c.endpoint_url, "/")) c.endpoint_url.pop_back();
  if (!c.endpoint_url.empty() && !absl::StartsWith(c.endpoint_url, "http://") &&
      !absl::StartsWith(c.endpoint_url, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint_storage.endpoint_url: must be an http:// or https:// URL, got \"",
                     c.endpoint_url, "\""));
  }
  c.access_key = api::StringField(cs, "access_key");
  c.secret_key = api::StringField(cs, "secret_key");
  if (c.access_key.empty() || c.access_key == kMasked) {
    c.access_key = EnvOr(getenv, "AWS_ACCESS_KEY_ID");
    if (c.secret_key.empty() || c.secret_key == kMasked) {
      c.secret_key = EnvOr(getenv, "AWS_SECRET_ACCESS_KEY");
      c.session_token = EnvOr(getenv, "AWS_SESSION_TOKEN");
    }
  } else if (c.secret_key == kMasked) {
    c.secret_key = EnvOr(getenv, "AWS_SECRET_ACCESS_KEY");
  }
  if (c.access_key.empty() || c.secret_key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint_storage: s3 bucket ", c.bucket,
                     " needs credentials: set access_key and secret_key, or AWS_ACCESS_KEY_ID and "
                     "AWS_SECRET_ACCESS_KEY in the environment"));
  }
  c.region = api::StringField(cs, "region");
  if (c.region.empty()) c.region = EnvOr(getenv, "AWS_REGION");
  if (c.region.empty()) c.region = EnvOr(getenv, "AWS_DEFAULT_REGION");
  if (c.region.empty()) c.region = "us-east-1";
  return c;
}

S3Storage::S3Storage(S3Config config) : config_(std::move(config)) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
  creds_ = {config_.access_key, config_.secret_key, config_.region, "s3"};
  if (!config_.endpoint_url.empty()) {
    // Path-style: http(s)://host[:port][/base]/bucket/key.
    absl::string_view url = config_.endpoint_url;
    size_t scheme_end = url.find("://");
    scheme_ = std::string(url.substr(0, scheme_end));
    absl::string_view rest = url.substr(scheme_end + 3);
    size_t slash = rest.find('/');
    authority_ = std::string(rest.substr(0, slash));
    std::string base = slash == absl::string_view::npos ? "" : std::string(rest.substr(slash));
    base_path_ = absl::StrCat(base, "/", config_.bucket);
  } else if (config_.bucket.find('.') != std::string::npos) {
    // Dotted bucket names do not match the wildcard certificate: path-style.
    scheme_ = "https";
    authority_ = absl::StrCat("s3.", config_.region, ".amazonaws.com");
    base_path_ = absl::StrCat("/", config_.bucket);
  } else {
    scheme_ = "https";
    authority_ = absl::StrCat(config_.bucket, ".s3.", config_.region, ".amazonaws.com");
    base_path_ = "";
  }
}

S3Storage::~S3Storage() { curl_easy_cleanup(Curl(curl_)); }

std::string S3Storage::Describe() const {
  std::string out = absl::StrCat("s3 at s3://", config_.bucket);
  if (!config_.prefix.empty()) absl::StrAppend(&out, "/", config_.prefix);
  if (!config_.endpoint_url.empty())
    absl::StrAppend(&out, " (endpoint ", config_.endpoint_url, ")");
  return out;
}

std::string S3Storage::ObjectKey(const std::string& uuid, const std::string& relative) const {
  std::string key = config_.prefix.empty() ? "" : absl::StrCat(config_.prefix, "/");
  absl::StrAppend(&key, uuid, "/", relative);
  return key;
}

absl::StatusOr<S3Storage::Response> S3Storage::SendOnce(
    const std::string& method, const std::string& key,
    const std::vector<std::pair<std::string, std::string>>& query, const Transfer& transfer,
    const std::string& payload_sha256) {
  s3::SignableRequest req;
  req.method = method;
  req.path =
      key.empty() ? (base_path_.empty() ? "/" : base_path_) : absl::StrCat(base_path_, "/", key);
  req.query = query;
  req.headers = {{"host", authority_}};
  if (!config_.session_token.empty()) {
    req.headers.emplace_back("x-amz-security-token", config_.session_token);
  }
  req.payload_sha256 = payload_sha256;
  s3::SignRequest(req, creds_, std::chrono::system_clock::now());

  std::string url = absl::StrCat(scheme_, "://", authority_, s3::UriEncodePath(req.path));
  if (!query.empty()) absl::StrAppend(&url, "?", s3::CanonicalQueryString(query));

  std::unique_ptr<FILE, int (*)(FILE*)> in(nullptr, &std::fclose);
  std::unique_ptr<FILE, int (*)(FILE*)> out(nullptr, &std::fclose);
  curl_off_t upload_size = 0;
  if (transfer.upload != nullptr) {
    in.reset(std::fopen(transfer.upload->c_str(), "rb"));
    std::error_code ec;
    upload_size = static_cast<curl_off_t>(fs::file_size(*transfer.upload, ec));
    if (in == nullptr || ec) {
      return absl::InternalError(
          absl::StrCat("cannot read ", transfer.upload->string(), ": ", std::strerror(errno)));
    }
  }
  if (transfer.download != nullptr) {
    out.reset(std::fopen(transfer.download->c_str(), "wb"));
    if (out == nullptr) {
      return absl::InternalError(
          absl::StrCat("cannot write ", transfer.download->string(), ": ", std::strerror(errno)));
    }
  }

  std::lock_guard<std::mutex> lock(mu_);
  CURL* curl = Curl(curl_);
  curl_easy_reset(curl);
  struct curl_slist* headers = nullptr;
  for (const auto& [name, value] : req.headers) {
    headers = curl_slist_append(headers, absl::StrCat(name, ": ", value).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(headers, &curl_slist_free_all);

  Response resp;
  WriteTarget target{curl, out.get(), &resp.body};
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  // No whole-call limit (checkpoints can be large); a transfer stalled for a minute fails.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &target);
  if (method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, in.get());
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, upload_size);
  } else if (method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp.status);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);  // errbuf dies with this call
  if (target.write_failed) {
    return absl::InternalError(absl::StrCat("cannot write ", transfer.download->string(),
                                            " (disk full?) while downloading s3://", config_.bucket,
                                            "/", key));
  }
  if (rc != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("s3 ", method, " s3://", config_.bucket, "/", key, ": cannot reach ", scheme_,
                     "://", authority_, ": ", errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc)));
  }
  if (out != nullptr && std::fflush(out.get()) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot write ", transfer.download->string(), ": ", std::strerror(errno)));
  }
  return resp;
}

absl::StatusOr<S3Storage::Response> S3Storage::Send(
    const std::string& method, const std::string& key,
    const std::vector<std::pair<std::string, std::string>>& query, const Transfer& transfer) {
  std::string payload_sha256 = s3::kEmptyPayloadSha256;
  if (transfer.upload != nullptr) {
    ASSIGN_OR_RETURN(payload_sha256, Sha256FileHex(*transfer.upload));
  }
  absl::StatusOr<Response> r;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    r = SendOnce(method, key, query, transfer, payload_sha256);
    bool transient = (!r.ok() && absl::IsUnavailable(r.status())) ||
                     (r.ok() && (r->status >= 500 || r->status == 429));
    if (!transient || attempt == kAttempts) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250 << attempt));
  }
  return r;
}

absl::Status S3Storage::HttpError(const std::string& method, const std::string& key,
                                  const Response& r) const {
  std::string code = XmlElement(r.body, "Code");
  std::string message = XmlElement(r.body, "Message");
  std::string msg = absl::StrCat("s3 ", method, " s3://", config_.bucket, "/", key);
  if (!config_.endpoint_url.empty()) absl::StrAppend(&msg, " at ", config_.endpoint_url);
  absl::StrAppend(&msg, ": HTTP ", r.status);
  if (!code.empty()) absl::StrAppend(&msg, " ", code);
  if (!message.empty()) absl::StrAppend(&msg, ": ", message);
  if (code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId") {
    absl::StrAppend(&msg,
                    " (check checkpoint_storage.access_key and secret_key, or "
                    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
  } else if (code == "NoSuchBucket") {
    absl::StrAppend(&msg, " (create bucket ", config_.bucket, " or fix checkpoint_storage.bucket)");
  }
  absl::StatusCode status_code;
  if (r.status == 403 || r.status == 401) {
    status_code = absl::StatusCode::kPermissionDenied;
  } else if (r.status == 404) {
    status_code = absl::StatusCode::kNotFound;
  } else if (r.status == 400 || r.status == 411 || r.status == 413) {
    status_code = absl::StatusCode::kInvalidArgument;
  } else if (r.status == 409 || r.status == 412) {
    status_code = absl::StatusCode::kFailedPrecondition;
  } else if (r.status == 429 || r.status >= 500) {
    status_code = absl::StatusCode::kUnavailable;
  } else {
    status_code = absl::StatusCode::kUnknown;
  }
  return absl::Status(status_code, msg);
}

absl::StatusOr<std::vector<S3Storage::ObjectInfo>> S3Storage::ListObjects(
    const std::string& key_prefix) {
  std::vector<ObjectInfo> objects;
  std::string token;
  while (true) {
    std::vector<std::pair<std::string, std::string>> query = {
        {"list-type", "2"}, {"prefix", key_prefix}, {"max-keys", std::to_string(list_page_size_)}};
    if (!token.empty()) query.emplace_back("continuation-token", token);
    ASSIGN_OR_RETURN(Response r, Send("GET", "", query, {}));
    if (r.status < 200 || r.status >= 300) {
      return HttpError("GET (list)", key_prefix, r);
    }
    for (absl::string_view contents : XmlRawElements(r.body, "Contents")) {
      ObjectInfo o;
      o.key = XmlElement(contents, "Key");
      if (!absl::SimpleAtoi(XmlElement(contents, "Size"), &o.size)) o.size = 0;
      o.etag = XmlElement(contents, "ETag");
      objects.push_back(std::move(o));
    }
    bool truncated = XmlElement(r.body, "IsTruncated") == "true";
    token = XmlElement(r.body, "NextContinuationToken");
    if (!truncated) break;
    if (token.empty()) {
      return absl::InternalError(
          absl::StrCat("s3 list s3://", config_.bucket, "/", key_prefix,
                       ": the answer is truncated but carries no NextContinuationToken"));
    }
  }
  return objects;
}

absl::StatusOr<std::vector<std::string>> S3Storage::ListKeys(const std::string& key_prefix) {
  ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, ListObjects(key_prefix));
  std::vector<std::string> keys;
  keys.reserve(objects.size());
  for (ObjectInfo& o : objects) keys.push_back(std::move(o.key));
  return keys;
}

absl::Status S3Storage::Upload(const std::string& key, const fs::path& file) {
  ASSIGN_OR_RETURN(Response r, Send("PUT", key, {}, {.upload = &file}));
  if (r.status < 200 || r.status >= 300) return HttpError("PUT", key, r);
  return absl::OkStatus();
}

absl::Status S3Storage::Download(const std::string& key, const fs::path& file) {
  ASSIGN_OR_RETURN(Response r, Send("GET", key, {}, {.download = &file}));
  if (r.status < 200 || r.status >= 300) return HttpError("GET", key, r);
  return absl::OkStatus();
}

absl::StatusOr<fs::path> S3Storage::StorePath(const std::string& uuid) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  ASSIGN_OR_RETURN(fs::path root, MakeTempDir(kStagingPrefix));
  fs::path dir = root / uuid;
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create staging directory ", dir.string(), ": ", ec.message()));
  }
  return dir;
}

absl::Status S3Storage::PostStore(const std::string& uuid, const fs::path& dir) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  auto upload_all = [&]() -> absl::Status {
    // Files and, as empty "name/" objects, directories, as upstream's S3StorageManager uploads them.
    ASSIGN_OR_RETURN(auto resources, ListResources(dir));
    for (const auto& [rel, size] : resources) {
      std::string key = ObjectKey(uuid, rel);
      if (rel.back() == '/') {
        ASSIGN_OR_RETURN(Response r, Send("PUT", key, {}, {}));
        if (r.status < 200 || r.status >= 300) return HttpError("PUT", key, r);
      } else {
        RETURN_IF_ERROR(Upload(key, dir / rel));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status st = upload_all(); !st.ok()) {
    // The staging copy stays: it is the only one.
    return absl::Status(st.code(), absl::StrCat("uploading checkpoint ", uuid, " to ", Describe(), ": ",
                                                st.message(), "; its files are still in ", dir.string()));
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (absl::StartsWith(dir.parent_path().filename().string(), kStagingPrefix)) {
    fs::remove(dir.parent_path(), ec);  // only when empty
  }
  return absl::OkStatus();
}

absl::Status S3Storage::DownloadTo(const std::string& uuid, const fs::path& dir) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  std::string prefix = ObjectKey(uuid, "");
  auto download_all = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<std::string> keys, ListKeys(prefix));
    if (keys.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "checkpoint ", uuid, " not found: no objects under s3://", config_.bucket, "/", prefix));
    }
    RETURN_IF_ERROR(MakeDirs(dir));
    for (const std::string& key : keys) {
      std::string rel = key.substr(prefix.size());
      if (rel.empty()) continue;  // a marker for the checkpoint itself
      if (!SafeRelative(rel)) {
        return absl::InvalidArgumentError(
            absl::StrCat("object s3://", config_.bucket, "/", key,
                         " is not a safe relative path; refusing to download it"));
      }
      fs::path target = dir / rel;
      if (rel.back() == '/') {
        RETURN_IF_ERROR(MakeDirs(target));
        continue;
      }
      RETURN_IF_ERROR(MakeDirs(target.parent_path()));
      RETURN_IF_ERROR(Download(key, target));
    }
    return absl::OkStatus();
  };
  absl::Status st = download_all();
  if (!st.ok()) {
    return absl::Status(st.code(), absl::StrCat("downloading checkpoint ", uuid, " from ",
                                                Describe(), ": ", st.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<fs::path> S3Storage::RestorePath(const std::string& uuid) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  ASSIGN_OR_RETURN(fs::path root, MakeTempDir(kRestorePrefix));
  fs::path dir = root / uuid;
  absl::Status st = DownloadTo(uuid, dir);
  if (!st.ok()) {
    std::error_code ec;
    fs::remove_all(root, ec);
    return st;
  }
  return dir;
}

void S3Storage::ReleaseRestorePath(const fs::path& dir) {
  // RestorePath's temporary directory holds the copy: remove both.
  fs::path root = dir.parent_path();
  if (root.filename().string().rfind(kRestorePrefix, 0) != 0) return;
  std::error_code ec;
  fs::remove_all(root, ec);
}

absl::Status S3Storage::Delete(const std::string& uuid) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  std::string prefix = ObjectKey(uuid, "");
  auto keys = ListKeys(prefix);
  if (!keys.ok()) {
    return absl::Status(keys.status().code(),
                        absl::StrCat("deleting checkpoint ", uuid, " from ", Describe(), ": ",
                                     keys.status().message()));
  }
  for (const std::string& key : *keys) {
    ASSIGN_OR_RETURN(Response r, Send("DELETE", key, {}, {}));
    if ((r.status < 200 || r.status >= 300) && r.status != 404) {
      absl::Status st = HttpError("DELETE", key, r);
      return absl::Status(st.code(),
                          absl::StrCat("deleting checkpoint ", uuid, ": ", st.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status S3Storage::DeleteFile(const std::string& prefix, const std::string& name) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  RETURN_IF_ERROR(ValidateRelativeKey(name));
  const std::string key = ObjectKey(p, name);
  ASSIGN_OR_RETURN(Response r, Send("DELETE", key, {}, {}));
  if ((r.status < 200 || r.status >= 300) && r.status != 404) {
    absl::Status st = HttpError("DELETE", key, r);
    return absl::Status(st.code(), absl::StrCat("deleting ", p, "/", name, " from ", Describe(), ": ", st.message()));
  }
  return absl::OkStatus();
}

absl::Status S3Storage::UploadFile(const fs::path& local_file, const std::string& prefix,
                                   const std::string& name) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  RETURN_IF_ERROR(ValidateRelativeKey(name));
  std::error_code ec;
  absl::Status st = fs::is_regular_file(local_file, ec)
                        ? Upload(ObjectKey(p, name), local_file)
                        : absl::NotFoundError(absl::StrCat("no file ", local_file.string()));
  if (!st.ok()) {
    return absl::Status(st.code(), absl::StrCat("uploading ", local_file.string(), " as ", p, "/",
                                                name, " to ", Describe(), ": ", st.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<StoredFile>> S3Storage::ListFiles(const std::string& prefix) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  std::string key_prefix = ObjectKey(p, "");
  auto objects = ListObjects(key_prefix);
  if (!objects.ok()) {
    return absl::Status(objects.status().code(), absl::StrCat("listing ", p, "/ in ", Describe(),
                                                              ": ", objects.status().message()));
  }
  std::vector<StoredFile> out;
  for (ObjectInfo& o : *objects) {
    std::string rel = o.key.substr(key_prefix.size());
    if (!ValidateRelativeKey(rel).ok()) continue;  // a directory marker, or not a path we write
    out.push_back(StoredFile{std::move(rel), o.size, std::move(o.etag)});
  }
  std::sort(out.begin(), out.end(),
            [](const StoredFile& a, const StoredFile& b) { return a.path < b.path; });
  return out;
}

absl::Status S3Storage::DownloadFile(const std::string& prefix, const std::string& name,
                                     const fs::path& local_file) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  RETURN_IF_ERROR(ValidateRelativeKey(name));
  // Into a hidden sibling first: a reader of `local_file` (TensorBoard) never sees a part.
  fs::path partial = PartialSibling(local_file);
  absl::Status st = MakeDirs(local_file.parent_path());
  if (st.ok()) st = Download(ObjectKey(p, name), partial);
  std::error_code ec;
  if (st.ok()) {
    fs::rename(partial, local_file, ec);
    if (ec) {
      st = absl::InternalError(absl::StrCat("renaming ", partial.string(), " to ",
                                            local_file.string(), ": ", ec.message()));
    }
  }
  if (!st.ok()) {
    fs::remove(partial, ec);
    return absl::Status(st.code(), absl::StrCat("downloading ", p, "/", name, " from ", Describe(),
                                                " to ", local_file.string(), ": ", st.message()));
  }
  return absl::OkStatus();
}

}  // namespace det::storage
