// KubeHttpClient against a real HTTP server in this process (ScriptedHttpServer): what goes on the
// wire, how replies map to statuses, the retries, the watch and log streams, stop, and TLS.
#include "master/rm/kubernetes/kube_http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/test_temp_dir.h"
#include "master/rm/kubernetes/scripted_http_server.h"

namespace det::master::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;
using std::chrono::milliseconds;
using Response = ScriptedResponse;

constexpr char kPods[] = "/api/v1/namespaces/det/pods";

json Pod(const std::string& name, const std::string& rv) {
  return {{"kind", "Pod"},
          {"apiVersion", "v1"},
          {"metadata", {{"name", name}, {"namespace", "det"}, {"resourceVersion", rv}}}};
}

std::string EventLine(const std::string& type, const json& object) {
  return json{{"type", type}, {"object", object}}.dump() + "\n";
}

Response Chunked(std::vector<Response::Piece> pieces, bool hold_open = false) {
  Response r;
  r.chunked = true;
  r.pieces = std::move(pieces);
  r.hold_open = hold_open;
  return r;
}

class KubeHttpClientTest : public ::testing::Test {
 protected:
  KubeHttpOptions Options() {
    KubeHttpOptions options;
    options.sleep = [this](milliseconds d) {
      std::lock_guard<std::mutex> lock(mu_);
      sleeps_.push_back(d);
    };
    return options;
  }
  std::unique_ptr<KubeHttpClient> Client(KubeHttpOptions options) {
    KubeConnection conn;
    conn.server = server_.url() + "/";  // a trailing '/' is dropped
    conn.token = "sekret";
    return std::make_unique<KubeHttpClient>(conn, std::move(options));
  }
  std::unique_ptr<KubeHttpClient> Client() { return Client(Options()); }
  std::vector<milliseconds> Sleeps() {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

  ScriptedHttpServer server_;
  std::mutex mu_;
  std::vector<milliseconds> sleeps_;  // guarded by mu_
};

TEST_F(KubeHttpClientTest, CreatePostsTheObjectWithTheBearerToken) {
  server_.Reply(Response::Json(201, Pod("p", "7")));
  auto created = Client()->Create(kPods, Pod("p", ""));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ((*created)["metadata"]["resourceVersion"], "7");

  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const RecordedRequest& r = requests[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.path, kPods);
  EXPECT_EQ(r.query, "");
  EXPECT_EQ(r.Header("authorization"), "Bearer sekret");
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_EQ(r.Header("accept"), "application/json");
  EXPECT_EQ(r.Header("expect"), "");
  EXPECT_EQ(json::parse(r.body), Pod("p", ""));
}

TEST_F(KubeHttpClientTest, GetAndListWithEscapedSelectors) {
  server_.Reply(Response::Json(200, Pod("p", "3")));
  server_.Reply(Response::Json(
      200, {{"items", json::array({Pod("p", "3")})}, {"metadata", {{"resourceVersion", "9"}}}}));
  auto client = Client();
  auto pod = client->Get(absl::StrCat(kPods, "/p"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ((*pod)["metadata"]["name"], "p");
  auto list = client->List(
      kPods, {.label_selector = "app=det,tier!=web", .field_selector = "status.phase=Running"});
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ((*list)["metadata"]["resourceVersion"], "9");

  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].path, "/api/v1/namespaces/det/pods/p");
  EXPECT_EQ(requests[0].body, "");
  EXPECT_EQ(requests[1].path, kPods);
  EXPECT_EQ(requests[1].query,
            "labelSelector=app%3Ddet%2Ctier%21%3Dweb&fieldSelector=status.phase%3DRunning");
  EXPECT_EQ(requests[1].Param("labelSelector"), "app=det,tier!=web");
}

TEST_F(KubeHttpClientTest, PatchIsAMergePatch) {
  server_.Reply(Response::Json(200, Pod("p", "4")));
  json patch = {{"metadata", {{"labels", {{"a", "b"}, {"gone", nullptr}}}}}};
  auto patched = Client()->Patch(absl::StrCat(kPods, "/p"), patch);
  ASSERT_TRUE(patched.ok()) << patched.status();
  auto r = server_.requests().at(0);
  EXPECT_EQ(r.method, "PATCH");
  EXPECT_EQ(r.Header("content-type"), "application/merge-patch+json");
  EXPECT_EQ(json::parse(r.body), patch);
}

TEST_F(KubeHttpClientTest, DeleteSendsDeleteOptionsLikeClientGo) {
  server_.Reply(Response::Json(200, {{"kind", "Status"}, {"status", "Success"}}));
  server_.Reply(Response::Json(202, Pod("p", "5")));
  auto client = Client();
  EXPECT_TRUE(client->Delete("/apis/batch/v1/namespaces/det/jobs/j", "Background").ok());
  EXPECT_TRUE(client->Delete(absl::StrCat(kPods, "/p"), "").ok());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "DELETE");
  EXPECT_EQ(requests[0].path, "/apis/batch/v1/namespaces/det/jobs/j");
  EXPECT_EQ(requests[0].Header("content-type"), "application/json");
  EXPECT_EQ(json::parse(requests[0].body),
            json::parse(
                R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})"));
  EXPECT_EQ(json::parse(requests[1].body),
            json::parse(R"({"kind":"DeleteOptions","apiVersion":"v1"})"));
}

TEST_F(KubeHttpClientTest, ErrorsMapFromTheStatusObject) {
  auto client = Client();
  struct Case {
    int code;
    std::string reason;
    absl::StatusCode want;
  };
  for (const Case& c : std::vector<Case>{{409, "AlreadyExists", absl::StatusCode::kAlreadyExists},
                                         {409, "Conflict", absl::StatusCode::kAborted},
                                         {404, "NotFound", absl::StatusCode::kNotFound},
                                         {410, "Expired", absl::StatusCode::kOutOfRange},
                                         {422, "Invalid", absl::StatusCode::kInvalidArgument},
                                         {400, "BadRequest", absl::StatusCode::kInvalidArgument},
                                         {401, "Unauthorized", absl::StatusCode::kPermissionDenied},
                                         {403, "Forbidden", absl::StatusCode::kPermissionDenied}}) {
    server_.Reply(Response::KubeStatus(c.code, c.reason, "pods \"p\" says " + c.reason));
    auto got = client->Patch(absl::StrCat(kPods, "/p"), json::object());
    EXPECT_EQ(got.status().code(), c.want) << c.code << " " << c.reason;
    EXPECT_THAT(got.status().message(), HasSubstr(c.reason + ": pods \"p\" says " + c.reason));
    EXPECT_THAT(got.status().message(), HasSubstr("PATCH /api/v1/namespaces/det/pods/p"));
  }
  EXPECT_EQ(server_.requests().size(), 8u);  // none retried
  EXPECT_TRUE(Sleeps().empty());

  Response not_json;
  not_json.status = 404;
  not_json.content_type = "text/plain";
  not_json.body = "404 page not found";
  server_.Reply(not_json);
  auto got = client->Get("/apis/unknown/v1/things/x");
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(got.status().message(), HasSubstr("HTTP 404: 404 page not found"));
}

TEST_F(KubeHttpClientTest, TooManyRequestsWaitsRetryAfterThenSucceeds) {
  Response busy = Response::KubeStatus(429, "TooManyRequests", "slow down");
  busy.headers = {{"Retry-After", "2"}};
  server_.Reply(busy);
  server_.Reply(Response::Json(201, Pod("p", "1")));
  auto created = Client()->Create(kPods, Pod("p", ""));  // a POST too: the server did nothing
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(server_.requests().size(), 2u);
  EXPECT_THAT(Sleeps(), ElementsAre(milliseconds(2000)));
}

TEST_F(KubeHttpClientTest, RetryAfterIsCapped) {
  Response busy = Response::KubeStatus(503, "ServiceUnavailable", "restarting");
  busy.headers = {{"Retry-After", "3600"}};
  server_.Reply(busy);
  server_.Reply(Response::Json(200, Pod("p", "1")));
  auto options = Options();
  options.max_retry_after = std::chrono::seconds(5);
  ASSERT_TRUE(Client(options)->Get(absl::StrCat(kPods, "/p")).ok());
  EXPECT_THAT(Sleeps(), ElementsAre(milliseconds(5000)));
}

TEST_F(KubeHttpClientTest, ServerErrorIsRetriedWithBackoffForIdempotentCalls) {
  server_.Reply(Response::KubeStatus(500, "InternalError", "etcd hiccup"));
  server_.Reply(Response::KubeStatus(502, "", "bad gateway"));
  server_.Reply(Response::Json(200, Pod("p", "1")));
  auto got = Client()->Get(absl::StrCat(kPods, "/p"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(server_.requests().size(), 3u);
  EXPECT_THAT(Sleeps(), ElementsAre(milliseconds(250), milliseconds(500)));
}

TEST_F(KubeHttpClientTest, ServerErrorIsNotRetriedForCreate) {
  server_.Reply(Response::KubeStatus(500, "InternalError", "admission webhook failed"));
  auto created = Client()->Create(kPods, Pod("p", ""));
  EXPECT_EQ(created.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(created.status().message(), HasSubstr("admission webhook failed"));
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(KubeHttpClientTest, RetriesEndAfterMaxAttempts) {
  for (int i = 0; i < 4; ++i) server_.Reply(Response::KubeStatus(503, "", "down"));
  auto got = Client()->List(kPods, {});
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(server_.requests().size(), 4u);
  EXPECT_THAT(Sleeps(), ElementsAre(milliseconds(250), milliseconds(500), milliseconds(1000)));
}

TEST_F(KubeHttpClientTest, BrokenConnectionIsRetriedForGetButNotForCreate) {
  Response drop;
  drop.drop_connection = true;
  server_.Reply(drop);
  server_.Reply(Response::Json(200, Pod("p", "1")));
  EXPECT_TRUE(Client()->Get(absl::StrCat(kPods, "/p")).ok());
  EXPECT_EQ(server_.requests().size(), 2u);

  server_.Reply(drop);
  auto created = Client()->Create(kPods, Pod("q", ""));  // a new client: a new connection
  EXPECT_EQ(created.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(created.status().message(), HasSubstr("cannot reach the Kubernetes API server"));
  EXPECT_EQ(server_.requests().size(), 3u);
}

TEST_F(KubeHttpClientTest, NoServerIsUnavailableAfterRetriesEvenForCreate) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);  // nobody listens on that port now
  KubeConnection conn;
  conn.server = absl::StrCat("http://127.0.0.1:", ntohs(addr.sin_port));
  KubeHttpClient client(conn, Options());
  auto created = client.Create(kPods, Pod("p", ""));
  EXPECT_EQ(created.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(created.status().message(), HasSubstr(conn.server));
  EXPECT_EQ(Sleeps().size(), 3u);  // nothing was sent, so a POST may go again
}

TEST_F(KubeHttpClientTest, RequestTimeoutIsUnavailableAndNotRetried) {
  server_.Reply(Chunked({}, /*hold_open=*/true));
  auto options = Options();
  options.request_timeout = std::chrono::seconds(1);
  auto got = Client(options)->Get(absl::StrCat(kPods, "/p"));
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(got.status().message(), HasSubstr("did not answer within 1 s"));
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(KubeHttpClientTest, TokenFileIsReadAgain) {
  TestTempDir tmp("det_kube_token");
  std::filesystem::path token_file = tmp.path() / "token";
  ASSERT_TRUE(WriteFile(token_file, "first\n").ok());
  KubeConnection conn;
  conn.server = server_.url();
  conn.token = "first";
  conn.token_file = token_file.string();
  auto options = Options();
  options.token_file_refresh = std::chrono::seconds(0);
  KubeHttpClient client(conn, options);
  server_.Reply(Response::Json(200, Pod("p", "1")));
  server_.Reply(Response::Json(200, Pod("p", "1")));
  ASSERT_TRUE(client.Get(absl::StrCat(kPods, "/p")).ok());
  ASSERT_TRUE(WriteFile(token_file, "second\n").ok());
  ASSERT_TRUE(client.Get(absl::StrCat(kPods, "/p")).ok());
  auto requests = server_.requests();
  EXPECT_EQ(requests[0].Header("authorization"), "Bearer first");
  EXPECT_EQ(requests[1].Header("authorization"), "Bearer second");
}

TEST_F(KubeHttpClientTest, ConnectionsAreKeptForTheNextCall) {
  for (int i = 0; i < 3; ++i) server_.Reply(Response::Json(200, Pod("p", "1")));
  auto client = Client();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client->Get(absl::StrCat(kPods, "/p")).ok());
  EXPECT_EQ(server_.connections_accepted(), 1);
}

TEST_F(KubeHttpClientTest, ConcurrentCallsFromSeveralThreads) {
  constexpr int kThreads = 8;
  for (int i = 0; i < kThreads * 3; ++i) server_.Reply(Response::Json(200, Pod("p", "1")));
  auto client = Client();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3; ++i) ok += client->Get(absl::StrCat(kPods, "/p")).ok() ? 1 : 0;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kThreads * 3);
}

// --- Watch ---

TEST_F(KubeHttpClientTest, WatchParsesEventsSplitAcrossChunks) {
  std::string added = EventLine("ADDED", Pod("a", "11"));
  std::string modified = EventLine("MODIFIED", Pod("a", "12"));
  std::string bookmark =
      EventLine("BOOKMARK", {{"kind", "Pod"}, {"metadata", {{"resourceVersion", "13"}}}});
  std::string deleted = EventLine("DELETED", Pod("a", "14"));
  deleted.pop_back();  // the last event without its newline
  server_.Reply(Chunked({{milliseconds(0), added + modified.substr(0, 10)},
                         {milliseconds(30), modified.substr(10)},
                         {milliseconds(30), bookmark.substr(0, 5)},
                         {milliseconds(0), bookmark.substr(5) + "\n" + deleted}}));
  std::vector<std::pair<std::string, std::string>> events;
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Watch(
      kPods, {.label_selector = "app=det"}, "10",
      [&](const WatchEvent& e) {
        events.emplace_back(e.type, e.object["metadata"]["resourceVersion"].get<std::string>());
      },
      stop);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(events, ElementsAre(std::pair<std::string, std::string>("ADDED", "11"),
                                  std::pair<std::string, std::string>("MODIFIED", "12"),
                                  std::pair<std::string, std::string>("BOOKMARK", "13"),
                                  std::pair<std::string, std::string>("DELETED", "14")));
  auto r = server_.requests().at(0);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, kPods);
  EXPECT_EQ(r.Param("watch"), "true");
  EXPECT_EQ(r.Param("allowWatchBookmarks"), "true");
  EXPECT_EQ(r.Param("resourceVersion"), "10");
  EXPECT_EQ(r.Param("labelSelector"), "app=det");
  EXPECT_FALSE(r.HasParam("fieldSelector"));
  int timeout = std::stoi(r.Param("timeoutSeconds"));
  EXPECT_GE(timeout, 300);
  EXPECT_LE(timeout, 360);
  EXPECT_EQ(r.Header("authorization"), "Bearer sekret");
}

TEST_F(KubeHttpClientTest, WatchWithoutResourceVersionOmitsIt) {
  server_.Reply(Chunked({{milliseconds(0), EventLine("ADDED", Pod("a", "1"))}}));
  std::atomic<bool> stop{false};
  EXPECT_TRUE(Client()
                  ->Watch(
                      kPods, {}, "", [](const WatchEvent&) {}, stop)
                  .ok());
  EXPECT_FALSE(server_.requests().at(0).HasParam("resourceVersion"));
}

TEST_F(KubeHttpClientTest, WatchErrorEventGoneIsOutOfRange) {
  json gone = {{"kind", "Status"},    {"apiVersion", "v1"},
               {"status", "Failure"}, {"message", "too old resource version: 10 (42)"},
               {"reason", "Expired"}, {"code", 410}};
  server_.Reply(Chunked({{milliseconds(0), EventLine("ADDED", Pod("a", "11"))},
                         {milliseconds(10), EventLine("ERROR", gone)}},
                        /*hold_open=*/true));
  int events = 0;
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Watch(
      kPods, {}, "10", [&](const WatchEvent&) { ++events; }, stop);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << status;
  EXPECT_THAT(status.message(), HasSubstr("too old resource version"));
  EXPECT_EQ(events, 1);
}

TEST_F(KubeHttpClientTest, WatchErrorEventOtherCodeMaps) {
  json forbidden = {{"kind", "Status"}, {"message", "no"}, {"reason", "Forbidden"}, {"code", 403}};
  server_.Reply(Chunked({{milliseconds(0), EventLine("ERROR", forbidden)}}));
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Watch(
      kPods, {}, "10", [](const WatchEvent&) {}, stop);
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied) << status;
}

TEST_F(KubeHttpClientTest, WatchGoneReplyIsOutOfRange) {
  server_.Reply(Response::KubeStatus(410, "Expired", "too old resource version: 1 (50)"));
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Watch(
      kPods, {}, "1", [](const WatchEvent&) {}, stop);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << status;
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(KubeHttpClientTest, WatchStartIsRetriedAfterServerError) {
  server_.Reply(Response::KubeStatus(503, "", "starting"));
  server_.Reply(Chunked({{milliseconds(0), EventLine("ADDED", Pod("a", "1"))}}));
  int events = 0;
  std::atomic<bool> stop{false};
  EXPECT_TRUE(Client()
                  ->Watch(
                      kPods, {}, "", [&](const WatchEvent&) { ++events; }, stop)
                  .ok());
  EXPECT_EQ(events, 1);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(KubeHttpClientTest, WatchBrokenBeforeItsFirstEventStartsAfresh) {
  std::string added = EventLine("ADDED", Pod("a", "1"));
  Response cut = Chunked({{milliseconds(0), added.substr(0, 20)}});
  cut.cut_off = true;
  server_.Reply(cut);
  server_.Reply(Chunked({{milliseconds(0), added}}));
  std::vector<std::string> names;
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Watch(
      kPods, {}, "", [&](const WatchEvent& e) { names.push_back(e.object["metadata"]["name"]); },
      stop);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(names, ElementsAre("a"));  // the broken try's piece of an event is gone
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(KubeHttpClientTest, WatchBrokenAfterAnEventIsUnavailable) {
  std::string added = EventLine("ADDED", Pod("a", "1"));
  Response cut = Chunked({{milliseconds(0), added + added.substr(0, 20)}});
  cut.cut_off = true;
  server_.Reply(cut);
  int events = 0;
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Watch(
      kPods, {}, "", [&](const WatchEvent&) { ++events; }, stop);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr("broke"));
  EXPECT_EQ(events, 1);
  EXPECT_EQ(server_.requests().size(), 1u);  // the caller goes on from the last resourceVersion
}

TEST_F(KubeHttpClientTest, MalformedWatchEventIsAnError) {
  server_.Reply(Chunked({{milliseconds(0), "this is not json\n"}}));
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Watch(
      kPods, {}, "", [](const WatchEvent&) {}, stop);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("this is not json"));
}

// Runs `call` (a Watch or Logs) on a thread; once `started` is set, sets `stop` and returns how
// long the call took to return after that.
template <typename Call>
milliseconds TimeToStop(std::atomic<bool>& stop, std::future<void> started, absl::Status* status,
                        Call call) {
  std::promise<std::chrono::steady_clock::time_point> returned;
  std::thread t([&] {
    *status = call();
    returned.set_value(std::chrono::steady_clock::now());
  });
  EXPECT_EQ(started.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto stopped_at = std::chrono::steady_clock::now();
  stop = true;
  auto returned_at = returned.get_future().get();
  t.join();
  return std::chrono::duration_cast<milliseconds>(returned_at - stopped_at);
}

TEST_F(KubeHttpClientTest, StopEndsAQuietWatchQuickly) {
  server_.Reply(
      Chunked({{milliseconds(0), EventLine("ADDED", Pod("a", "1"))}}, /*hold_open=*/true));
  auto client = Client();
  std::atomic<bool> stop{false};
  std::promise<void> first_event;
  absl::Status status;
  milliseconds took = TimeToStop(stop, first_event.get_future(), &status, [&] {
    return client->Watch(
        kPods, {}, "", [&](const WatchEvent&) { first_event.set_value(); }, stop);
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_LT(took, milliseconds(1000));  // stop is looked at every 100 ms
  // The client closed the connection: the server sees it go.
  for (int i = 0; i < 100 && server_.held_streams_closed_by_client() == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(server_.held_streams_closed_by_client(), 1);
}

TEST_F(KubeHttpClientTest, StopEndsAWatchBeforeItsFirstEvent) {
  server_.Reply(Chunked({}, /*hold_open=*/true));
  auto client = Client();
  std::atomic<bool> stop{false};
  std::promise<void> requested;
  absl::Status status;
  std::thread announce([&] {
    server_.WaitForRequests(1, std::chrono::seconds(10));
    requested.set_value();
  });
  milliseconds took = TimeToStop(stop, requested.get_future(), &status, [&] {
    return client->Watch(
        kPods, {}, "", [](const WatchEvent&) {}, stop);
  });
  announce.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_LT(took, milliseconds(1000));
}

TEST_F(KubeHttpClientTest, WatchThatOutlivesItsTimeoutIsEndedHere) {
  server_.Reply(Chunked({}, /*hold_open=*/true));
  auto options = Options();
  options.watch_timeout = std::chrono::seconds(1);  // jitter: a fifth of 1 s is 0
  options.watch_grace = std::chrono::seconds(0);
  std::atomic<bool> stop{false};
  absl::Status status = Client(options)->Watch(
      kPods, {}, "", [](const WatchEvent&) {}, stop);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr("did not end the watch"));
}

// --- Logs ---

TEST_F(KubeHttpClientTest, LogsDeliverLinesAcrossChunksAndTheLastWithoutNewline) {
  Response log = Chunked({{milliseconds(0), "2024-01-01T00:00:00Z one\n2024-01-01T00:00:01Z t"},
                          {milliseconds(20), "wo\n\n"},
                          {milliseconds(20), "last"}});
  log.content_type = "text/plain";
  server_.Reply(log);
  std::vector<std::string> lines;
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Logs(
      absl::StrCat(kPods, "/p"),
      {.container = "main",
       .follow = true,
       .timestamps = true,
       .since_time = "2024-01-01T00:00:00Z"},
      [&](std::string_view line) { lines.emplace_back(line); }, stop);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(lines,
              ElementsAre("2024-01-01T00:00:00Z one", "2024-01-01T00:00:01Z two", "", "last"));
  auto r = server_.requests().at(0);
  EXPECT_EQ(r.path, "/api/v1/namespaces/det/pods/p/log");
  EXPECT_EQ(r.Param("container"), "main");
  EXPECT_EQ(r.Param("follow"), "true");
  EXPECT_EQ(r.Param("timestamps"), "true");
  EXPECT_EQ(r.Param("sinceTime"), "2024-01-01T00:00:00Z");
}

TEST_F(KubeHttpClientTest, LogsWithoutOptionsSendNoParameters) {
  server_.Reply(Chunked({{milliseconds(0), "a\n"}}));
  std::atomic<bool> stop{false};
  EXPECT_TRUE(Client()
                  ->Logs(
                      absl::StrCat(kPods, "/p"), {}, [](std::string_view) {}, stop)
                  .ok());
  EXPECT_EQ(server_.requests().at(0).query, "");
}

TEST_F(KubeHttpClientTest, LogsOfAContainerNotStartedIsInvalidArgument) {
  server_.Reply(Response::KubeStatus(
      400, "BadRequest", "container \"main\" in pod \"p\" is waiting to start: ContainerCreating"));
  std::atomic<bool> stop{false};
  absl::Status status = Client()->Logs(
      absl::StrCat(kPods, "/p"), {.container = "main"}, [](std::string_view) {}, stop);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("is waiting to start"));
}

TEST_F(KubeHttpClientTest, StopEndsALogFollowQuickly) {
  server_.Reply(Chunked({{milliseconds(0), "started\n"}}, /*hold_open=*/true));
  auto client = Client();
  std::atomic<bool> stop{false};
  std::promise<void> first_line;
  absl::Status status;
  milliseconds took = TimeToStop(stop, first_line.get_future(), &status, [&] {
    return client->Logs(
        absl::StrCat(kPods, "/p"), {.follow = true},
        [&](std::string_view) { first_line.set_value(); }, stop);
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_LT(took, milliseconds(1000));
}

// --- TLS, with certificates made by the `openssl` binary ---

class KubeHttpClientTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TestTempDir("det_kube_tls");
    for (auto [name, san] : {std::pair{"server", "IP:127.0.0.1"}, std::pair{"client", "DNS:det"},
                             std::pair{"stranger", "IP:127.0.0.1"}}) {
      std::string cmd = absl::StrCat(
          "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
          "-subj /CN=",
          name, " -addext subjectAltName=", san, " -keyout ", File(name, "key"), " -out ",
          File(name, "crt"), " >/dev/null 2>&1");
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string File(const std::string& name, const std::string& ext) {
    return (dir_->path() / (name + "." + ext)).string();
  }
  static std::string Read(const std::string& name, const std::string& ext) {
    return ReadFile(File(name, ext)).value();
  }
  // A server that wants a client certificate (`client.crt`) when `mutual`.
  static std::unique_ptr<ScriptedHttpServer> Server(bool mutual) {
    ServerTls tls{.cert_file = File("server", "crt"),
                  .key_file = File("server", "key"),
                  .client_ca_file = mutual ? File("client", "crt") : ""};
    auto server = std::make_unique<ScriptedHttpServer>(&tls);
    server->Reply(Response::Json(200, Pod("p", "1")));
    return server;
  }
  static KubeHttpOptions NoWaits() {
    KubeHttpOptions options;
    options.sleep = [](milliseconds) {};
    return options;
  }

  static TestTempDir* dir_;
};

TestTempDir* KubeHttpClientTlsTest::dir_ = nullptr;

TEST_F(KubeHttpClientTlsTest, CaDataAndClientCertificateData) {
  auto server = Server(/*mutual=*/true);
  KubeConnection conn;
  conn.server = server->url();
  conn.ca_data_pem = Read("server", "crt");
  conn.client_cert_pem = Read("client", "crt");
  conn.client_key_pem = Read("client", "key");
  auto got = KubeHttpClient(conn, NoWaits()).Get(absl::StrCat(kPods, "/p"));
  EXPECT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(server->requests().size(), 1u);
}

TEST_F(KubeHttpClientTlsTest, CaFileAndClientCertificateFiles) {
  auto server = Server(/*mutual=*/true);
  KubeConnection conn;
  conn.server = server->url();
  conn.ca_file = File("server", "crt");
  conn.client_cert_file = File("client", "crt");
  conn.client_key_file = File("client", "key");
  auto got = KubeHttpClient(conn, NoWaits()).Get(absl::StrCat(kPods, "/p"));
  EXPECT_TRUE(got.ok()) << got.status();
}

TEST_F(KubeHttpClientTlsTest, AServerCertificateNotFromTheCaIsRefusedAtOnce) {
  auto server = Server(/*mutual=*/false);
  KubeConnection conn;
  conn.server = server->url();
  conn.ca_data_pem = Read("stranger", "crt");
  int waits = 0;
  KubeHttpOptions options;
  options.sleep = [&](milliseconds) { ++waits; };
  auto got = KubeHttpClient(conn, options).Get(absl::StrCat(kPods, "/p"));
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(got.status().message(), HasSubstr("TLS with the Kubernetes API server"));
  EXPECT_THAT(got.status().message(), HasSubstr("certificate-authority"));
  EXPECT_EQ(waits, 0);  // trying again would not help
  EXPECT_TRUE(server->requests().empty());
}

TEST_F(KubeHttpClientTlsTest, InsecureSkipTlsVerifyAcceptsAnyCertificate) {
  auto server = Server(/*mutual=*/false);
  KubeConnection conn;
  conn.server = server->url();
  conn.ca_data_pem = Read("stranger", "crt");
  conn.insecure_skip_tls_verify = true;
  auto got = KubeHttpClient(conn, NoWaits()).Get(absl::StrCat(kPods, "/p"));
  EXPECT_TRUE(got.ok()) << got.status();
}

TEST_F(KubeHttpClientTlsTest, NoClientCertificateWhereOneIsRequired) {
  auto server = Server(/*mutual=*/true);
  KubeConnection conn;
  conn.server = server->url();
  conn.ca_file = File("server", "crt");
  auto got = KubeHttpClient(conn, NoWaits()).Get(absl::StrCat(kPods, "/p"));
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable) << got.status();
}

}  // namespace
}  // namespace det::master::kube
