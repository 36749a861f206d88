// S3Storage against a real S3 server: s3rver (npm), started on a free port with a temp dir.
// scripts/install-deps.sh installs it into tests/s3; S3RVER=/path/to/s3rver overrides the path.
//
// s3rver 3.7.1 checks the access key id of a SigV4 request but not its signature (its
// authentication middleware says "Signature version 4 calculation is unimplemented"), so the
// signature itself is tested against AWS's published examples in s3_signing_test.cc; here a
// wrong secret cannot fail, and the credential error is exercised with an unknown access key.
#include "storage/s3_storage.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <thread>

#include "absl/strings/match.h"
#include "common/file_util.h"
#include "common/test_temp_dir.h"
#include "storage/storage_files_conformance.h"

namespace det::storage {
namespace {
namespace fs = std::filesystem;

constexpr char kBucket[] = "checkpoints";

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteAll(const fs::path& p, const std::string& data) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << data;
}

// Every regular file under `dir` by relative path, with its bytes; directories as "rel/" -> "".
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = e.path().lexically_relative(dir).generic_string();
    if (e.is_directory()) {
      out[rel + "/"] = "";
    } else {
      out[rel] = ReadAll(e.path());
    }
  }
  return out;
}

// One s3rver process for the whole suite.
class S3rver {
 public:
  // Starts s3rver; on failure error() says why (and how to install it).
  S3rver() {
    const char* env = std::getenv("S3RVER");
    fs::path bin = env != nullptr && *env != '\0' ? fs::path(env) : fs::path(DET_S3RVER_BIN);
    if (access(bin.c_str(), X_OK) != 0) {
      error_ = "s3rver is not installed (looked for " + bin.string() +
               "): run scripts/install-deps.sh, or `npm ci --prefix tests/s3` from the repository "
               "root, or point S3RVER at an s3rver 3.7.1 binary";
      return;
    }
    fs::path data = dir_.path() / "data";
    fs::create_directories(data);
    fs::path log = dir_.path() / "s3rver.log";
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      setpgid(0, 0);
      // s3rver's ListObjectsV2 continuation tokens use DES, which Node 17+ (OpenSSL 3) only has
      // in the legacy provider: without it every truncated listing is a 500.
      setenv("NODE_OPTIONS", "--openssl-legacy-provider", 1);
      execl(bin.c_str(), bin.c_str(), "-d", data.c_str(), "-p", "0", "-a", "127.0.0.1",
            "--configure-bucket", kBucket, static_cast<char*>(nullptr));
      _exit(127);
    }
    std::regex listening("S3rver listening on 127\\.0\\.0\\.1:(\\d+)");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      std::string text = ReadAll(log);
      std::smatch m;
      if (std::regex_search(text, m, listening)) {
        endpoint_ = "http://127.0.0.1:" + m[1].str();
        return;
      }
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        error_ = "s3rver exited at start:\n" + text;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    error_ = "s3rver did not say it was listening within 60 s:\n" + ReadAll(log);
  }
  ~S3rver() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status;
      waitpid(pid_, &status, 0);
    }
  }

  const std::string& error() const { return error_; }
  const std::string& endpoint() const { return endpoint_; }

 private:
  TestTempDir dir_{"det_s3_storage_test"};
  pid_t pid_ = -1;
  std::string endpoint_;
  std::string error_;
};

class S3StorageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new S3rver(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->error().empty()) << server_->error(); }

  static S3Config Config(const std::string& prefix = "exp/ckpts") {
    S3Config c;
    c.bucket = kBucket;
    c.prefix = prefix;
    c.endpoint_url = server_->endpoint();
    c.access_key = "S3RVER";
    c.secret_key = "S3RVER";
    return c;
  }

  static S3rver* server_;
};

S3rver* S3StorageTest::server_ = nullptr;

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

TEST_F(S3StorageTest, StoreRestoreDeleteRoundTrip) {
  S3Storage storage(Config());
  storage.SetListPageSizeForTest(2);  // several ListObjectsV2 pages: continuation tokens
  const std::string uuid = "0f6e3c1a-5b7d-4c1e-9a51-5a0c2f6d7e01";

  auto dir = storage.StorePath(uuid);
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(dir->filename(), uuid);
  EXPECT_TRUE(fs::is_empty(*dir));
  WriteAll(*dir / "metadata.json", R"({"steps_completed": 3})");
  WriteAll(*dir / "model" / "weights.bin", RandomBytes(3 * 1024 * 1024 + 17, 1));
  WriteAll(*dir / "model" / "deeper" / "state.txt", "step 3\n");
  WriteAll(*dir / "odd name $&+=.txt", "odd");
  WriteAll(*dir / "empty.txt", "");
  fs::create_directories(*dir / "empty_dir");
  auto before = Snapshot(*dir);

  ASSERT_TRUE(storage.PostStore(uuid, *dir).ok());
  EXPECT_FALSE(fs::exists(*dir)) << "the staging directory is removed after the upload";
  EXPECT_FALSE(fs::exists(dir->parent_path()));

  auto keys = storage.ListKeys("exp/ckpts/" + uuid + "/");
  ASSERT_TRUE(keys.ok()) << keys.status();
  std::vector<std::string> want = {
      "exp/ckpts/" + uuid + "/empty.txt",         "exp/ckpts/" + uuid + "/empty_dir/",
      "exp/ckpts/" + uuid + "/metadata.json",     "exp/ckpts/" + uuid + "/model/",
      "exp/ckpts/" + uuid + "/model/deeper/",     "exp/ckpts/" + uuid + "/model/deeper/state.txt",
      "exp/ckpts/" + uuid + "/model/weights.bin", "exp/ckpts/" + uuid + "/odd name $&+=.txt",
  };
  std::vector<std::string> got = *keys;
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);

  auto restored = storage.RestorePath(uuid);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->filename(), uuid);
  EXPECT_EQ(Snapshot(*restored), before);
  EXPECT_TRUE(absl::StartsWith(restored->parent_path().filename().string(), "det-s3-restore-"));
  fs::remove_all(restored->parent_path());
  TestTempDir out{"det_storage_test"};
  ASSERT_TRUE(storage.DownloadTo(uuid, out.path() / "x").ok());
  EXPECT_EQ(Snapshot(out.path() / "x"), before);

  ASSERT_TRUE(storage.Delete(uuid).ok());
  keys = storage.ListKeys("exp/ckpts/" + uuid + "/");
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_TRUE(keys->empty());
  auto gone = storage.RestorePath(uuid);
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound) << gone.status();
  EXPECT_TRUE(absl::StrContains(gone.status().message(), uuid)) << gone.status();
  EXPECT_EQ(storage.DownloadTo(uuid, out.path() / "y").code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(out.path() / "y"));
  EXPECT_TRUE(storage.Delete(uuid).ok()) << "deleting a deleted checkpoint is not an error";
}

TEST_F(S3StorageTest, FilesUnderAPrefix) {
  S3Storage storage(Config("tb-test"));
  storage.SetListPageSizeForTest(2);  // several ListObjectsV2 pages
  ExpectFilesUnderPrefixConform(storage);
  // Objects `prefix/P/name`, beside the checkpoints; no directory markers; the deleted ones gone.
  auto keys = storage.ListKeys("tb-test/");
  ASSERT_TRUE(keys.ok()) << keys.status();
  std::sort(keys->begin(), keys->end());
  EXPECT_EQ(*keys, (std::vector<std::string>{
                       "tb-test/tensorboard/experiment/1/trial/1/events.out.tfevents.1.host",
                       "tb-test/tensorboard/experiment/1/trial/1/odd name $&+=.txt",
                       "tb-test/tensorboard/experiment/1/trial/10/other",
                   }));
  ASSERT_TRUE(storage.Delete("tensorboard").ok());
}

TEST_F(S3StorageTest, ListingLeavesOutDirectoryMarkers) {
  S3Storage storage(Config("tb-markers"));
  // A checkpoint-style upload writes "dir/" markers; they are not files.
  auto dir = storage.StorePath("p");
  ASSERT_TRUE(dir.ok()) << dir.status();
  WriteAll(*dir / "sub" / "f", "data");
  ASSERT_TRUE(storage.PostStore("p", *dir).ok());
  auto files = storage.ListFiles("p");
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].path, "sub/f");
  EXPECT_EQ((*files)[0].size, 4);
  ASSERT_TRUE(storage.Delete("p").ok());
}

TEST_F(S3StorageTest, DeleteLeavesOtherCheckpointsAlone) {
  S3Storage storage(Config(""));
  for (const std::string uuid : {"ab", "abc"}) {
    auto dir = storage.StorePath(uuid);
    ASSERT_TRUE(dir.ok()) << dir.status();
    WriteAll(*dir / "f", uuid);
    ASSERT_TRUE(storage.PostStore(uuid, *dir).ok());
  }
  ASSERT_TRUE(storage.Delete("ab").ok());
  auto keys = storage.ListKeys("");
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(*keys, std::vector<std::string>{"abc/f"});
  auto restored = storage.RestorePath("abc");
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(ReadAll(*restored / "f"), "abc");
  fs::remove_all(restored->parent_path());
  ASSERT_TRUE(storage.Delete("abc").ok());
}

TEST_F(S3StorageTest, MakeStorageManagerBuildsS3FromTheConfig) {
  nlohmann::json cs = {{"type", "s3"},           {"bucket", kBucket},
                       {"prefix", "/via/make/"}, {"endpoint_url", server_->endpoint() + "/"},
                       {"access_key", "S3RVER"}, {"secret_key", "S3RVER"}};
  auto storage = MakeStorageManager(cs);
  ASSERT_TRUE(storage.ok()) << storage.status();
  EXPECT_EQ((*storage)->Describe(),
            "s3 at s3://checkpoints/via/make (endpoint " + server_->endpoint() + ")");
  auto dir = (*storage)->StorePath("u1");
  ASSERT_TRUE(dir.ok()) << dir.status();
  WriteAll(*dir / "x", "y");
  ASSERT_TRUE((*storage)->PostStore("u1", *dir).ok());
  S3Storage direct(Config("via/make"));
  auto keys = direct.ListKeys("via/make/u1/");
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(*keys, std::vector<std::string>{"via/make/u1/x"});
  EXPECT_TRUE((*storage)->Delete("u1").ok());
}

TEST_F(S3StorageTest, WrongCredentialsAreAClearError) {
  S3Config c = Config();
  c.access_key = "NOT-A-KEY";
  c.secret_key = "not-the-secret";
  S3Storage storage(c);
  auto dir = storage.StorePath("u2");
  ASSERT_TRUE(dir.ok()) << dir.status();
  WriteAll(*dir / "f", "data");
  absl::Status st = storage.PostStore("u2", *dir);
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied) << st;
  for (const char* part : {"uploading checkpoint u2", "HTTP 403", "InvalidAccessKeyId",
                           "s3://checkpoints/exp/ckpts/u2/f", "AWS_SECRET_ACCESS_KEY"}) {
    EXPECT_TRUE(absl::StrContains(st.message(), part)) << part << " missing from: " << st;
  }
  EXPECT_TRUE(absl::StrContains(st.message(), dir->string())) << "the error says where the files stayed: " << st;
  EXPECT_TRUE(fs::exists(*dir / "f")) << "a failed upload keeps the only copy";
  absl::Status del = storage.Delete("u2");
  EXPECT_EQ(del.code(), absl::StatusCode::kPermissionDenied) << del;
  EXPECT_TRUE(absl::StrContains(del.message(), "InvalidAccessKeyId")) << del;
  auto restored = storage.RestorePath("u2");
  EXPECT_EQ(restored.status().code(), absl::StatusCode::kPermissionDenied) << restored.status();
}

TEST_F(S3StorageTest, MissingBucketIsNamed) {
  S3Config c = Config();
  c.bucket = "no-such-bucket";
  S3Storage storage(c);
  auto r = storage.RestorePath("u3");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "NoSuchBucket")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "no-such-bucket")) << r.status();
}

TEST_F(S3StorageTest, UnreachableEndpointIsUnavailable) {
  S3Config c = Config();
  c.endpoint_url = "http://127.0.0.1:1";
  S3Storage storage(c);
  absl::Status st = storage.Delete("u4");
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "127.0.0.1:1")) << st;
}

TEST(S3Config, FieldsEnvironmentFallbacksAndErrors) {
  std::map<std::string, std::string> env = {{"AWS_ACCESS_KEY_ID", "AK"},
                                            {"AWS_SECRET_ACCESS_KEY", "SK"},
                                            {"AWS_SESSION_TOKEN", "TOK"},
                                            {"AWS_DEFAULT_REGION", "eu-west-1"}};
  auto getenv = [&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  auto c = S3ConfigFromJson({{"type", "s3"}, {"bucket", "b"}, {"prefix", "//a/b//"}}, getenv);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->prefix, "a/b");
  EXPECT_EQ(c->access_key, "AK");
  EXPECT_EQ(c->secret_key, "SK");
  EXPECT_EQ(c->session_token, "TOK");
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_EQ(S3Storage(*c).Describe(), "s3 at s3://b/a/b");
  EXPECT_EQ(S3Storage(*c).ObjectKey("u", "x/y"), "a/b/u/x/y");

  // Keys in the config win; masked keys (a printed config) fall back to the environment.
  c = S3ConfigFromJson(
      {{"bucket", "b"}, {"access_key", "k"}, {"secret_key", "s"}, {"region", "ap-south-1"}},
      getenv);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key, "k");
  EXPECT_EQ(c->secret_key, "s");
  EXPECT_EQ(c->session_token, "");
  EXPECT_EQ(c->region, "ap-south-1");
  c = S3ConfigFromJson({{"bucket", "b"}, {"access_key", "********"}, {"secret_key", "********"}},
                       getenv);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key, "AK");
  EXPECT_EQ(c->secret_key, "SK");

  env.clear();
  c = S3ConfigFromJson({{"bucket", "b"}, {"access_key", "k"}, {"secret_key", "s"}}, getenv);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->region, "us-east-1");
  auto no_creds = S3ConfigFromJson({{"bucket", "b"}}, getenv);
  EXPECT_EQ(no_creds.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(no_creds.status().message(), "AWS_ACCESS_KEY_ID"));
  auto no_bucket = S3ConfigFromJson({{"access_key", "k"}, {"secret_key", "s"}}, getenv);
  EXPECT_TRUE(absl::StrContains(no_bucket.status().message(), "checkpoint_storage.bucket"));
  auto dotdot = S3ConfigFromJson(
      {{"bucket", "b"}, {"prefix", "a/../b"}, {"access_key", "k"}, {"secret_key", "s"}}, getenv);
  EXPECT_TRUE(absl::StrContains(dotdot.status().message(), "checkpoint_storage.prefix"));
  auto bad_url = S3ConfigFromJson(
      {{"bucket", "b"}, {"endpoint_url", "minio:9000"}, {"access_key", "k"}, {"secret_key", "s"}},
      getenv);
  EXPECT_TRUE(absl::StrContains(bad_url.status().message(), "checkpoint_storage.endpoint_url"));
}

}  // namespace
}  // namespace det::storage
