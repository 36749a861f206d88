#include "api/errors.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::api {
namespace {

TEST(ErrorsTest, MapsCodesLikeTheGateway) {
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kFailedPrecondition), 400);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kAlreadyExists), 409);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kUnknown), 500);
}

TEST(ErrorsTest, ErrorBodyRoundTrips) {
  nlohmann::json body = ErrorBody(absl::NotFoundError("experiment 7 not found"));
  EXPECT_EQ(body["error"]["code"], 5);
  EXPECT_EQ(body["error"]["reason"], "NotFound");
  EXPECT_EQ(body["error"]["error"], "experiment 7 not found");
  absl::Status back = StatusFromErrorResponse(404, body.dump());
  EXPECT_EQ(back.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(back.message(), "experiment 7 not found");
  EXPECT_EQ(StatusFromErrorResponse(503, "oops").code(), absl::StatusCode::kUnavailable);
}

TEST(ErrorsTest, AStreamsErrorLineIsTheReplysBodyPlusTheGatewaysStreamFields) {
  absl::Status st = absl::NotFoundError("trial 9 not found");
  nlohmann::json reply = ErrorBody(st);
  EXPECT_EQ(reply.dump(), R"({"error":{"code":5,"error":"trial 9 not found","reason":"NotFound"}})");
  nlohmann::json line = ErrorBody(st, ErrorIn::kStream);
  for (const auto& [key, value] : reply["error"].items()) EXPECT_EQ(line["error"][key], value) << key;
  EXPECT_EQ(line["error"]["grpcCode"], 5);
  EXPECT_EQ(line["error"]["httpCode"], 404);
  EXPECT_EQ(line["error"]["httpStatus"], "Not Found");
  EXPECT_EQ(line["error"]["message"], "trial 9 not found");
  EXPECT_EQ(line["error"]["details"], nlohmann::json::array());
  // What the clients read back from either is the status itself.
  EXPECT_EQ(StatusFromErrorResponse(404, line.dump()), st);

  nlohmann::json unknown = ErrorBody(absl::UnknownError("disk"), ErrorIn::kStream);
  EXPECT_EQ(unknown["error"]["code"], 13);
  EXPECT_EQ(unknown["error"]["grpcCode"], 13);
  EXPECT_EQ(unknown["error"]["httpCode"], 500);
  EXPECT_EQ(unknown["error"]["httpStatus"], "Internal Server Error");
}

TEST(ErrorsTest, EveryGatewayStatusHasItsText) {
  for (int code = 1; code <= 16; ++code) {
    int http = HttpStatusFromCode(static_cast<absl::StatusCode>(code));
    EXPECT_NE(HttpStatusText(http), "") << http;
  }
}

}  // namespace
}  // namespace det::api
