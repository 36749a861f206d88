#include "master/handlers/handler_util.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/handlers/log_stream.h"
#include "master/manual_loop.h"

namespace det::master {
namespace {

using nlohmann::json;

// Records what a handler answered: one response, or a stream's chunks.
class RecordingResponder : public Responder {
 public:
  void Send(HttpResponse r) override {
    ++sends;
    response = std::move(r);
  }
  void BeginStream(int status, std::string) override { stream_status = status; }
  void WriteChunk(std::string data, std::function<void(bool)> done) override {
    chunks.push_back(std::move(data));
    if (done) done(true);
  }
  void EndStream() override { ended = true; }

  int sends = 0;
  HttpResponse response;
  int stream_status = 0;
  std::vector<std::string> chunks;
  bool ended = false;
};

TEST(HandlerUtilTest, ReplyAnswersTheBodyOrTheErrorOnce) {
  auto ok = std::make_shared<RecordingResponder>();
  Reply(ok, json{{"a", 1}});
  EXPECT_EQ(ok->sends, 1);
  EXPECT_EQ(ok->response.status, 200);
  EXPECT_EQ(ok->response.content_type, "application/json");
  EXPECT_EQ(ok->response.body, R"({"a":1})");

  auto failed = std::make_shared<RecordingResponder>();
  Reply(failed, absl::NotFoundError("experiment 7 not found"));
  EXPECT_EQ(failed->sends, 1);
  EXPECT_EQ(failed->response.status, 404);
  EXPECT_EQ(failed->response.body, R"({"error":{"code":5,"error":"experiment 7 not found","reason":"NotFound"}})");
}

TEST(HandlerUtilTest, AHandlerBodyReadsAsTheHappyPath) {
  auto body = [](int64_t n) -> absl::StatusOr<json> {
    if (n < 0) return absl::InvalidArgumentError("n must be >= 0");
    return json{{"n", n}};
  };
  auto handler = [&](const ResponderPtr& r, int64_t n) {
    Reply(r, [&]() -> absl::StatusOr<json> {
      ASSIGN_OR_RETURN(json j, body(n));
      j["twice"] = 2 * n;
      return j;
    }());
  };
  auto good = std::make_shared<RecordingResponder>();
  handler(good, 3);
  EXPECT_EQ(good->response.body, R"({"n":3,"twice":6})");
  auto bad = std::make_shared<RecordingResponder>();
  handler(bad, -1);
  EXPECT_EQ(bad->response.status, 400);
  EXPECT_EQ(bad->response.body, R"({"error":{"code":3,"error":"n must be >= 0","reason":"InvalidArgument"}})");
}

TEST(HandlerUtilTest, ReplyIfErrorAnswersOnlyAFailedStart) {
  auto started = std::make_shared<RecordingResponder>();
  ReplyIfError(started, absl::OkStatus());
  EXPECT_EQ(started->sends, 0) << "the responder was handed on: someone else answers";
  auto failed = std::make_shared<RecordingResponder>();
  ReplyIfError(failed, absl::PermissionDeniedError("tasks cannot kill trials"));
  EXPECT_EQ(failed->sends, 1);
  EXPECT_EQ(failed->response.status, 403);
}

TEST(HandlerUtilTest, ReplyWithMakesCallbacksForStatusAndStatusOr) {
  // A Status callback: {} by default.
  auto done = std::make_shared<RecordingResponder>();
  std::function<void(absl::Status)> on_done = ReplyWith(done);
  on_done(absl::OkStatus());
  EXPECT_EQ(done->response.status, 200);
  EXPECT_EQ(done->response.body, "{}");

  auto refused = std::make_shared<RecordingResponder>();
  on_done = ReplyWith(refused);
  on_done(absl::FailedPreconditionError("experiment in incompatible state STATE_COMPLETED"));
  EXPECT_EQ(refused->response.status, 400);
  EXPECT_EQ(refused->response.body,
            R"({"error":{"code":9,"error":"experiment in incompatible state STATE_COMPLETED","reason":"FailedPrecondition"}})");

  // A StatusOr callback: `then` gets the value; it may return json or a StatusOr<json>.
  auto preempt = std::make_shared<RecordingResponder>();
  std::function<void(absl::StatusOr<bool>)> on_preempt =
      ReplyWith(preempt, [](bool p) { return json{{"preempt", p}}; });
  on_preempt(true);
  EXPECT_EQ(preempt->response.body, R"({"preempt":true})");

  auto lookup = std::make_shared<RecordingResponder>();
  std::function<void(absl::StatusOr<int64_t>)> on_id =
      ReplyWith(lookup, [](int64_t id) -> absl::StatusOr<json> { return absl::NotFoundError(absl::StrCat(id)); });
  on_id(int64_t{12});
  EXPECT_EQ(lookup->response.status, 404);
  EXPECT_EQ(lookup->sends, 1);

  auto failed = std::make_shared<RecordingResponder>();
  bool called = false;
  on_id = ReplyWith(failed, [&](int64_t) { called = true; return json::object(); });
  on_id(absl::UnavailableError("the cluster is shutting down"));
  EXPECT_FALSE(called);
  EXPECT_EQ(failed->response.status, 503);

  // A `then` that returns nothing answers itself later.
  auto later = std::make_shared<RecordingResponder>();
  std::function<void()> next;
  on_done = ReplyWith(later, [&, later] { next = [later] { Reply(later, json{{"later", true}}); }; });
  on_done(absl::OkStatus());
  EXPECT_EQ(later->sends, 0);
  next();
  EXPECT_EQ(later->response.body, R"({"later":true})");
}

TEST(HandlerUtilTest, ReplyWithOnDoesItsWorkOnTheGivenLoop) {
  ManualLoop handlers;
  auto r = std::make_shared<RecordingResponder>();
  bool ran = false;
  std::function<void(absl::StatusOr<int>)> on_done = ReplyWithOn(handlers, r, [&](int n) {
    ran = true;
    return nlohmann::json{{"n", n}};
  });
  on_done(7);  // where the cluster calls it: on its own loop
  EXPECT_FALSE(ran) << "not on the caller's thread";
  EXPECT_EQ(r->sends, 0);
  handlers.RunPending();
  EXPECT_TRUE(ran);
  EXPECT_EQ(r->response.body, R"({"n":7})");

  auto failed = std::make_shared<RecordingResponder>();
  on_done = ReplyWithOn(handlers, failed, [](int) { return nlohmann::json::object(); });
  on_done(absl::NotFoundError("task t not found"));
  handlers.RunPending();
  EXPECT_EQ(failed->response.status, 404);
}

TEST(HandlerUtilTest, ReplyResponseKeepsTheResponsesOwnShape) {
  auto r = std::make_shared<RecordingResponder>();
  HttpResponse gz{.status = 200, .content_type = "application/gzip", .body = "tgz"};
  gz.headers.emplace_back("Set-Cookie", "auth=x");
  ReplyResponse(r, gz);
  EXPECT_EQ(r->response.content_type, "application/gzip");
  EXPECT_EQ(r->response.body, "tgz");
  ASSERT_EQ(r->response.headers.size(), 1u);

  auto failed = std::make_shared<RecordingResponder>();
  ReplyResponse(failed, absl::FailedPreconditionError("checkpoint x is deleted: its files are gone"));
  EXPECT_EQ(failed->response.status, 400);
  EXPECT_EQ(failed->response.content_type, "application/json");
}

TEST(HandlerUtilTest, AStreamEndsWithTheSameErrorBodyAsAReply) {
  absl::Status st = absl::InternalError("database is locked");
  auto reply = std::make_shared<RecordingResponder>();
  ReplyError(reply, st);
  json reply_body = json::parse(reply->response.body);

  auto stream = std::make_shared<RecordingResponder>();
  stream->BeginStream(200, "application/json");
  EndStreamWithError(stream, st);
  ASSERT_EQ(stream->chunks.size(), 1u);
  EXPECT_TRUE(stream->ended);
  const std::string& line = stream->chunks[0];
  ASSERT_EQ(line.back(), '\n');
  json error = json::parse(line)["error"];
  for (const auto& [key, value] : reply_body["error"].items()) EXPECT_EQ(error[key], value) << key;
  // Upstream's client (runtimeStreamError) reads these.
  EXPECT_EQ(error["grpcCode"], 13);
  EXPECT_EQ(error["httpCode"], 500);
  EXPECT_EQ(error["httpStatus"], "Internal Server Error");
  EXPECT_EQ(error["message"], "database is locked");
  EXPECT_EQ(error["details"], json::array());
}

// Runs what is posted at once; records delays.
class ImmediateLoop : public EventLoop {
 public:
  void Post(std::function<void()> fn) override { posted.push_back(std::move(fn)); }
  void PostAfter(std::chrono::milliseconds delay, std::function<void()> fn) override {
    delays.push_back(delay);
    posted.push_back(std::move(fn));
  }
  std::vector<std::function<void()>> posted;
  std::vector<std::chrono::milliseconds> delays;
};

TEST(HandlerUtilTest, EveryStreamStepsThroughContinueStreamAndAFailedStepEndsWithTheErrorLine) {
  ImmediateLoop loop;
  auto stream = std::make_shared<RecordingResponder>();
  stream->BeginStream(200, "application/json");
  int pumps = 0;
  auto pump = [&pumps] { ++pumps; };

  ContinueStream(loop, stream, StreamStep{.chunk = "{\"result\":1}\n"}, std::chrono::milliseconds(200), pump);
  ASSERT_EQ(stream->chunks.size(), 1u);
  ASSERT_EQ(loop.delays.size(), 1u) << "nothing more yet: polled again later";
  ContinueStream(loop, stream, StreamStep{.full_batch = true}, std::chrono::milliseconds(200), pump);
  EXPECT_EQ(loop.posted.size(), 2u);
  EXPECT_EQ(loop.delays.size(), 1u) << "a full batch: pumped again at once";
  EXPECT_EQ(stream->chunks.size(), 1u) << "an empty step writes nothing";
  EXPECT_FALSE(stream->ended);

  ContinueStream(loop, stream, absl::NotFoundError("experiment 4 not found"), std::chrono::milliseconds(200), pump);
  ASSERT_EQ(stream->chunks.size(), 2u);
  EXPECT_TRUE(stream->ended);
  EXPECT_EQ(loop.posted.size(), 2u) << "a failed stream is not pumped again";
  json error = json::parse(stream->chunks[1])["error"];
  EXPECT_EQ(error["code"], 5);
  EXPECT_EQ(error["reason"], "NotFound");
  EXPECT_EQ(error["error"], "experiment 4 not found");
  EXPECT_EQ(error["httpCode"], 404);
  EXPECT_EQ(error["message"], "experiment 4 not found");

  auto done = std::make_shared<RecordingResponder>();
  ContinueStream(loop, done, StreamStep{.chunk = "{}\n", .done = true}, std::chrono::milliseconds(200), pump);
  EXPECT_TRUE(done->ended);
  EXPECT_EQ(pumps, 0);
}

}  // namespace
}  // namespace det::master
