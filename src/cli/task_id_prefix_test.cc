#include "cli/task_id_prefix.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/fake_master_test_fixture.h"

namespace det::cli {
namespace {

using nlohmann::json;

const std::vector<std::string> kIds = {"3f2a0000-0000-4000-8000-000000000001",
                                       "3f2b0000-0000-4000-8000-000000000002",
                                       "9c000000-0000-4000-8000-000000000003"};

TEST(MatchIdPrefixTest, AUniquePrefixOrAnExactIdPicksOne) {
  EXPECT_EQ(MatchIdPrefix(kIds, "9", "command").value_or(""), kIds[2]);
  EXPECT_EQ(MatchIdPrefix(kIds, "3f2a", "command").value_or(""), kIds[0]);
  EXPECT_EQ(MatchIdPrefix(kIds, kIds[1], "command").value_or(""), kIds[1]);
  // An exact id wins over a longer id it is a prefix of.
  EXPECT_EQ(MatchIdPrefix({"ab", "abc"}, "ab", "shell").value_or(""), "ab");
}

TEST(MatchIdPrefixTest, NoMatchAmbiguousAndEmptyAreErrors) {
  absl::StatusOr<std::string> none = MatchIdPrefix(kIds, "zz", "command");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(), "no command with id starting with \"zz\"");

  absl::StatusOr<std::string> two = MatchIdPrefix({kIds[1], kIds[0], kIds[2]}, "3f2", "command");
  EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(two.status().message(),
            "command id prefix \"3f2\" is ambiguous: matches " + kIds[0] + ", " + kIds[1]);

  absl::StatusOr<std::string> empty = MatchIdPrefix(kIds, "", "notebook");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().message(), "give a notebook id (or a prefix of one)");
}

TEST(IsFullTaskIdTest, OnlyCanonicalUuids) {
  EXPECT_TRUE(IsFullTaskId(kIds[0]));
  EXPECT_TRUE(IsFullTaskId("ABCDEF00-0000-4000-8000-000000000001"));
  EXPECT_FALSE(IsFullTaskId("3f2a"));
  EXPECT_FALSE(IsFullTaskId("3f2a0000-0000-4000-8000-00000000000g"));
  EXPECT_FALSE(IsFullTaskId("3f2a0000_0000-4000-8000-000000000001"));
  EXPECT_FALSE(IsFullTaskId("1.3f2a0000-0000-4000-8000-000000000001"));  // a trial's task id
}

// A master that lists three shells (another task kind, to show the resolver is not tied to
// commands).
class ResolveTaskIdTest : public FakeMasterTest {
 protected:
  FakeResponse Serve(const FakeRequest& r) override {
    if (r.target == "/api/v1/auth/login") {
      return {200, R"({"token":"t","user":{"username":"alice"}})"};
    }
    if (r.target.rfind("/api/v1/shells?", 0) == 0) {
      json shells = json::array();
      for (const std::string& id : kIds) shells.push_back({{"id", id}, {"state", "STATE_RUNNING"}});
      return {200, json{{"shells", shells},
                        {"pagination", {{"startIndex", 0}, {"endIndex", 3}, {"total", 3}}}}
                       .dump()};
    }
    return {404, R"({"error":{"code":5,"error":"no route"}})"};
  }

  std::vector<std::string> Targets() {
    std::vector<std::string> out;
    for (const FakeRequest& r : server_->requests()) {
      if (r.target != "/api/v1/auth/login") out.push_back(r.method + " " + r.target);
    }
    return out;
  }

  const TaskListing shells_{"/api/v1/shells", "shells", "shell"};
};

TEST_F(ResolveTaskIdTest, APrefixIsResolvedAgainstEveryUsersTasks) {
  EXPECT_EQ(ResolveTaskId(*session_, shells_, "9c").value_or(""), kIds[2]);
  EXPECT_EQ(Targets(), std::vector<std::string>{"GET /api/v1/shells?offset=0&limit=1000"});
  absl::StatusOr<std::string> ambiguous = ResolveTaskId(*session_, shells_, "3f");
  EXPECT_EQ(ambiguous.status().message(),
            "shell id prefix \"3f\" is ambiguous: matches " + kIds[0] + ", " + kIds[1]);
  EXPECT_EQ(ResolveTaskId(*session_, shells_, "0").status().message(),
            "no shell with id starting with \"0\"");
}

TEST_F(ResolveTaskIdTest, AFullIdNeedsNoListing) {
  const std::string unlisted = "00000000-0000-4000-8000-00000000000f";
  EXPECT_EQ(ResolveTaskId(*session_, shells_, unlisted).value_or(""), unlisted);
  EXPECT_TRUE(Targets().empty());
}

TEST_F(ResolveTaskIdTest, AListingErrorIsReturned) {
  TaskListing missing{"/api/v1/nothing", "nothing", "thing"};
  absl::StatusOr<std::string> r = ResolveTaskId(*session_, missing, "ab");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "no route");
}

}  // namespace
}  // namespace det::cli
