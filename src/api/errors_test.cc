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

}  // namespace
}  // namespace det::api
