#include "master/http/router.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

class FakeAuthenticator : public Authenticator {
 public:
  absl::StatusOr<Principal> Authenticate(const HttpRequest& request) override {
    if (request.Header("authorization") == "Bearer good") return Principal{.user_id = 1, .username = "admin"};
    return absl::UnauthenticatedError("invalid credentials");
  }
};

class CapturingResponder : public Responder {
 public:
  void Send(HttpResponse r) override { response = std::move(r); }
  void BeginStream(int, std::string) override {}
  void WriteChunk(std::string, std::function<void(bool)>) override {}
  void EndStream() override {}
  HttpResponse response;
};

TEST(RouterTest, MatchesPatternsAndAuthenticates) {
  FakeAuthenticator auth;
  Router router(auth);
  std::string seen;
  router.Add("GET", "/api/v1/trials/{trial_id}", Access::kAuthenticated, [&](HttpRequest& req, ResponderPtr r) {
    seen = req.path_params["trial_id"] + ":" + req.principal->username;
    r->Send(JsonResponse(200, "{}"));
  });
  router.Add("GET", "/api/v1/master", Access::kPublic, [](HttpRequest&, ResponderPtr r) { r->Send(JsonResponse(200, "{}")); });

  auto r = std::make_shared<CapturingResponder>();
  HttpRequest req{.method = "GET", .path = "/api/v1/trials/12", .headers = {{"authorization", "Bearer good"}}};
  router.Dispatch(req, r);
  EXPECT_EQ(seen, "12:admin");
  EXPECT_EQ(r->response.status, 200);

  HttpRequest anon{.method = "GET", .path = "/api/v1/trials/12"};
  router.Dispatch(anon, r);
  EXPECT_EQ(r->response.status, 401);
  EXPECT_EQ(nlohmann::json::parse(r->response.body)["error"]["error"], "invalid credentials");

  HttpRequest pub{.method = "GET", .path = "/api/v1/master"};
  router.Dispatch(pub, r);
  EXPECT_EQ(r->response.status, 200);

  HttpRequest missing{.method = "GET", .path = "/api/v1/nothing"};
  router.Dispatch(missing, r);
  EXPECT_EQ(r->response.status, 404);
  EXPECT_EQ(nlohmann::json::parse(r->response.body)["error"]["error"], "api not found: GET /api/v1/nothing");

  HttpRequest wrong_method{.method = "DELETE", .path = "/api/v1/master"};
  router.Dispatch(wrong_method, r);
  EXPECT_EQ(r->response.status, 501);
}

TEST(RouterTest, PrettyIndentsJsonReplies) {
  FakeAuthenticator auth;
  Router router(auth);
  router.Add("GET", "/api/v1/master", Access::kPublic,
             [](HttpRequest&, ResponderPtr r) { r->Send(JsonResponse(200, R"({"a":{"b":1}})")); });
  auto r = std::make_shared<CapturingResponder>();
  HttpRequest plain{.method = "GET", .path = "/api/v1/master"};
  router.Dispatch(plain, r);
  EXPECT_EQ(r->response.body, R"({"a":{"b":1}})");
  HttpRequest pretty{.method = "GET", .path = "/api/v1/master", .query = {{"pretty", ""}}};
  router.Dispatch(pretty, r);
  EXPECT_EQ(r->response.body, "{\n  \"a\": {\n    \"b\": 1\n  }\n}");
  HttpRequest missing{.method = "GET", .path = "/api/v1/nothing", .query = {{"pretty", "true"}}};
  router.Dispatch(missing, r);
  EXPECT_EQ(r->response.status, 404);
  EXPECT_NE(r->response.body.find("\n  \"error\": {"), std::string::npos) << r->response.body;
}

TEST(RouterTest, QueryAcceptsBothSpellings) {
  HttpRequest req{.query = {{"trialIds", "1"}, {"trial_ids", "2"}, {"timeout_seconds", "5"}}};
  EXPECT_EQ(req.QueryAll("trial_ids").size(), 2u);
  EXPECT_EQ(*req.Query("timeout_seconds"), "5");
}

TEST(RouterTest, PrefixRouteTakesEverythingUnderIt) {
  FakeAuthenticator auth;
  Router router(auth);
  std::vector<std::string> rests;
  router.Add("GET", "/det/*", Access::kPublic, [&](HttpRequest& req, ResponderPtr r) {
    rests.push_back(req.path_params["*"]);
    r->Send(JsonResponse(200, "{}"));
  });
  auto r = std::make_shared<CapturingResponder>();
  for (const char* path : {"/det", "/det/index.html", "/det/static/js/a.js"}) {
    HttpRequest req{.method = "GET", .path = path};
    router.Dispatch(req, r);
    EXPECT_EQ(r->response.status, 200) << path;
  }
  EXPECT_EQ(rests, (std::vector<std::string>{"", "index.html", "static/js/a.js"}));
  HttpRequest other{.method = "GET", .path = "/detx/a"};
  router.Dispatch(other, r);
  EXPECT_EQ(r->response.status, 404);
}

class RecordingObserver : public RequestObserver {
 public:
  void Observe(const RequestRecord& record) override { records.push_back(record); }
  std::vector<RequestRecord> records;
};

class StreamingResponder : public CapturingResponder {
 public:
  void BeginStream(int status, std::string) override { begun = status; }
  void EndStream() override { ended = true; }
  int begun = 0;
  bool ended = false;
};

TEST(RouterTest, ObserverGetsRoutePatternsStatusesAndDurations) {
  FakeAuthenticator auth;
  Router router(auth);
  RecordingObserver observer;
  auto t = std::chrono::steady_clock::time_point{};
  router.SetObserver(&observer, [&t] { return t; });
  router.Add("GET", "/api/v1/trials/{trial_id}", Access::kAuthenticated,
             [&t](HttpRequest&, ResponderPtr r) {
               t += std::chrono::milliseconds(250);
               r->Send(JsonResponse(200, "{}"));
             });
  router.Add("GET", "/api/v1/stream", Access::kPublic, [&t](HttpRequest&, ResponderPtr r) {
    r->BeginStream(200, "application/x-ndjson");
    t += std::chrono::seconds(2);
    r->EndStream();
  });
  auto r = std::make_shared<StreamingResponder>();
  for (const char* id : {"12", "13"}) {
    HttpRequest req{.method = "GET",
                    .path = std::string("/api/v1/trials/") + id,
                    .headers = {{"authorization", "Bearer good"}}};
    router.Dispatch(req, r);
  }
  HttpRequest anon{.method = "GET", .path = "/api/v1/trials/14"};
  router.Dispatch(anon, r);
  HttpRequest missing{.method = "GET", .path = "/api/v1/nothing/77"};
  router.Dispatch(missing, r);
  HttpRequest stream{.method = "GET", .path = "/api/v1/stream", .query = {{"pretty", ""}}};
  router.Dispatch(stream, r);
  EXPECT_EQ(r->begun, 200);
  EXPECT_TRUE(r->ended);

  ASSERT_EQ(observer.records.size(), 5u);
  for (int i : {0, 1}) {
    EXPECT_EQ(observer.records[i].route, "/api/v1/trials/{trial_id}");
    EXPECT_EQ(observer.records[i].status, 200);
    EXPECT_DOUBLE_EQ(observer.records[i].seconds, 0.25);
    EXPECT_EQ(observer.records[i].method, "GET");
  }
  EXPECT_EQ(observer.records[2].route, "/api/v1/trials/{trial_id}");
  EXPECT_EQ(observer.records[2].status, 401);
  EXPECT_DOUBLE_EQ(observer.records[2].seconds, 0);
  EXPECT_EQ(observer.records[3].route, "/**");  // no id of an unknown path becomes a label
  EXPECT_EQ(observer.records[3].status, 404);
  EXPECT_EQ(observer.records[4].route, "/api/v1/stream");
  EXPECT_DOUBLE_EQ(observer.records[4].seconds, 2);
}

TEST(RouterTest, StreamDroppedWithoutEndIsStillObserved) {
  FakeAuthenticator auth;
  Router router(auth);
  RecordingObserver observer;
  router.SetObserver(&observer);
  router.Add("GET", "/api/v1/stream", Access::kPublic,
             [](HttpRequest&, ResponderPtr r) { r->BeginStream(200, "text/plain"); });
  router.Add("GET", "/api/v1/silent", Access::kPublic, [](HttpRequest&, ResponderPtr) {});
  auto r = std::make_shared<StreamingResponder>();
  HttpRequest stream{.method = "GET", .path = "/api/v1/stream"};
  router.Dispatch(stream, r);
  HttpRequest silent{.method = "GET", .path = "/api/v1/silent"};
  router.Dispatch(silent, r);
  ASSERT_EQ(observer.records.size(), 1u);  // a request never answered has no status to count
  EXPECT_EQ(observer.records[0].route, "/api/v1/stream");
  EXPECT_EQ(observer.records[0].status, 200);
}

TEST(RouterTest, TheGuardAnswersBeforeAnAuthenticatedHandlerRuns) {
  FakeAuthenticator auth;
  Router router(auth);
  int handled = 0;
  auto ok = [&](HttpRequest&, ResponderPtr r) {
    ++handled;
    r->Send(JsonResponse(200, "{}"));
  };
  router.Add("GET", "/api/v1/trials/{trial_id}", Access::kAuthenticated, ok);
  router.Add("GET", "/api/v1/master", Access::kPublic, ok);
  std::vector<std::string> asked;
  router.SetGuard([&](const HttpRequest& req, const std::string& pattern) {
    asked.push_back(pattern + " " + req.principal->username);
    return req.path_params.at("trial_id") == "7" ? absl::NotFoundError("trial 7 not found") : absl::OkStatus();
  });

  auto r = std::make_shared<CapturingResponder>();
  HttpRequest hidden{.method = "GET", .path = "/api/v1/trials/7", .headers = {{"authorization", "Bearer good"}}};
  router.Dispatch(hidden, r);
  EXPECT_EQ(r->response.status, 404);
  EXPECT_NE(r->response.body.find("trial 7 not found"), std::string::npos);
  EXPECT_EQ(handled, 0);

  HttpRequest seen{.method = "GET", .path = "/api/v1/trials/8", .headers = {{"authorization", "Bearer good"}}};
  router.Dispatch(seen, r);
  EXPECT_EQ(r->response.status, 200);
  HttpRequest anonymous{.method = "GET", .path = "/api/v1/master"};
  router.Dispatch(anonymous, r);
  EXPECT_EQ(handled, 2);
  EXPECT_EQ(asked, (std::vector<std::string>{"/api/v1/trials/{trial_id} admin", "/api/v1/trials/{trial_id} admin"}))
      << "public routes are not guarded";
}

}  // namespace
}  // namespace det::master
