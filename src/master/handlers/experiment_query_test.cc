#include "master/handlers/experiment_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "master/handlers/experiment_access.h"
#include "master/handlers/query_request_test_util.h"

namespace det::master {
namespace {

using nlohmann::json;

TEST(ExperimentListQueryTest, ParsesUpstreamParameters) {
  auto q = ParseExperimentListQuery(WithQuery({{"states", "STATE_ACTIVE"},
                                               {"states", "2"},
                                               {"states", "STATE_RUNNING"},  // display-only: ACTIVE
                                               {"users", "alice"},
                                               {"userIds", "7"},
                                               {"labels", "x"},
                                               {"labels", "y"},
                                               {"name", "mnist"},
                                               {"archived", "false"},
                                               {"sortBy", "SORT_BY_START_TIME"},
                                               {"orderBy", "ORDER_BY_DESC"},
                                               {"offset", "-2"},
                                               {"limit", "5"}}));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->filter.states,
            (std::vector<api::ExperimentState>{api::ExperimentState::kActive, api::ExperimentState::kPaused}));
  EXPECT_EQ(q->filter.usernames, (std::vector<std::string>{"alice"}));
  EXPECT_EQ(q->filter.user_ids, (std::vector<int64_t>{7}));
  EXPECT_EQ(q->filter.labels, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(q->filter.name_contains, "mnist");
  EXPECT_EQ(q->filter.archived, std::optional<bool>(false));
  EXPECT_EQ(q->filter.sort, ExperimentSort::kStartTime);
  EXPECT_TRUE(q->filter.descending);
  EXPECT_EQ(q->offset, -2);
  EXPECT_EQ(q->filter.limit, 5);
}

TEST(ExperimentListQueryTest, ReadsTheExperimentIdFilterAndTheProject) {
  auto q = ParseExperimentListQuery(WithQuery({{"experimentIdFilter.gt", "3"},
                                               {"experiment_id_filter.lte", "9"},
                                               {"experimentIdFilter.incl", "4"},
                                               {"experimentIdFilter.incl", "5"},
                                               {"experimentIdFilter.notIn", "5"},
                                               {"projectId", "1"}}));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->filter.ids.gt, std::optional<int64_t>(3));
  EXPECT_EQ(q->filter.ids.lte, std::optional<int64_t>(9));
  EXPECT_FALSE(q->filter.ids.lt.has_value());
  EXPECT_EQ(q->filter.ids.incl, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(q->filter.ids.not_in, (std::vector<int64_t>{5}));
  EXPECT_EQ(q->filter.project_id, std::optional<int64_t>(1));
  auto bad = ParseExperimentListQuery(WithQuery({{"experimentIdFilter.gte", "x"}}));
  EXPECT_NE(bad.status().message().find("experimentIdFilter.gte"), std::string::npos) << bad.status();
}

TEST(ExperimentListQueryTest, AcceptsSnakeCaseAndEnumNumbers) {
  auto q = ParseExperimentListQuery(
      WithQuery({{"sort_by", "11"}, {"order_by", "1"}, {"user_ids", "3"}}));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->filter.sort, ExperimentSort::kName);
  EXPECT_FALSE(q->filter.descending);
  EXPECT_EQ(q->filter.user_ids, (std::vector<int64_t>{3}));
  EXPECT_FALSE(q->filter.archived.has_value());
}

TEST(ExperimentListQueryTest, RejectsBadValuesNamingTheParameter) {
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"states", "STATE_BOGUS"},
                                                        {"sortBy", "SORT_BY_COLOR"},
                                                        {"orderBy", "sideways"},
                                                        {"archived", "maybe"},
                                                        {"offset", "x"},
                                                        {"limit", "-1"},
                                                        {"userIds", "bob"}}) {
    auto q = ParseExperimentListQuery(WithQuery({{key, value}}));
    ASSERT_FALSE(q.ok()) << key;
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument) << key;
    EXPECT_NE(q.status().message().find(key == "userIds" ? "userIds" : key.substr(0, 4)),
              std::string::npos)
        << q.status();
  }
}

TEST(ExperimentPatchTest, ParsesFieldsAndNullMeansUnchanged) {
  auto p = ParseExperimentPatch(
      json{{"name", "n"}, {"description", nullptr}, {"notes", "md"}, {"labels", {"a", "a", "b"}}},
      4);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "n");
  EXPECT_FALSE(p->description.has_value());
  EXPECT_EQ(p->notes, "md");
  EXPECT_EQ(p->labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(ParseExperimentPatch(json{{"name", "  "}}, 4).ok());
  EXPECT_FALSE(ParseExperimentPatch(json{{"labels", {1}}}, 4).ok());
  EXPECT_FALSE(ParseExperimentPatch(json{{"id", 5}}, 4).ok());
  EXPECT_TRUE(ParseExperimentPatch(json{{"id", 4}}, 4).ok());
  // resources and checkpointStorage have parsers of their own.
  EXPECT_TRUE(ParseExperimentPatch(json{{"resources", {{"maxSlots", 2}}}}, 4).ok());
  EXPECT_TRUE(ParseExperimentPatch(json{{"checkpointStorage", {{"saveTrialBest", 2}}}}, 4).ok());
}

TEST(CheckpointStoragePatchTest, ReadsTheThreeCountsAbsentOnesZero) {
  EXPECT_EQ(*ParseCheckpointStoragePatch(json::object()), std::nullopt);
  EXPECT_EQ(*ParseCheckpointStoragePatch(json{{"checkpointStorage", nullptr}}), std::nullopt);
  CheckpointGcPolicy read =
      ParseCheckpointStoragePatch(json{{"checkpointStorage", {{"saveTrialBest", 2}, {"save_trial_latest", 3}}}})
          ->value();
  EXPECT_EQ(read.save_experiment_best, 0) << "absent: 0, not the config default";
  EXPECT_EQ(read.save_trial_best, 2);
  EXPECT_EQ(read.save_trial_latest, 3);
  absl::StatusOr<std::optional<CheckpointGcPolicy>> negative =
      ParseCheckpointStoragePatch(json{{"checkpointStorage", {{"saveExperimentBest", -1}}}});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(negative.status().message()), ::testing::HasSubstr("save_experiment_best"));
  EXPECT_FALSE(ParseCheckpointStoragePatch(json{{"checkpointStorage", "shared_fs"}}).ok());
  EXPECT_FALSE(ParseCheckpointStoragePatch(json{{"checkpointStorage", {{"saveTrialBest", "two"}}}}).ok());
}

TEST(ExperimentPatchTest, WithLabelAddsOnceAndRemoves) {
  EXPECT_EQ(WithLabel({"a"}, "b", true), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(WithLabel({"a", "b"}, "b", true), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(WithLabel({"a", "b"}, "a", false), (std::vector<std::string>{"b"}));
  EXPECT_EQ(WithLabel({"a"}, "z", false), (std::vector<std::string>{"a"}));
}

TEST(ExperimentAccessTest, OwnerAndAdminsMayChangeOthersMayNot) {
  api::Experiment e;
  e.id = 9;
  e.owner_id = 1;
  Principal owner{
      .user_id = 1, .username = "admin", .admin = true, .allocation_id = "", .token = ""};
  Principal other{
      .user_id = 3, .username = "bob", .admin = false, .allocation_id = "", .token = ""};
  Principal other_admin{
      .user_id = 4, .username = "root", .admin = true, .allocation_id = "", .token = ""};
  Principal task{.user_id = 0, .username = "", .admin = false, .allocation_id = "a.1", .token = ""};
  EXPECT_TRUE(CheckExperimentAccess(owner, rbac::Permission::kUpdateExperiment, e).ok());
  EXPECT_TRUE(CheckExperimentAccess(other_admin, rbac::Permission::kUpdateExperiment, e).ok());
  absl::Status st = CheckExperimentAccess(other, rbac::Permission::kUpdateExperiment, e);
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(st.message(), "user bob is not the owner of experiment 9 and is not an admin");
  EXPECT_EQ(CheckExperimentAccess(task, rbac::Permission::kUpdateExperiment, e).code(), absl::StatusCode::kPermissionDenied);
  e.owner_id = 3;
  EXPECT_TRUE(CheckExperimentAccess(other, rbac::Permission::kUpdateExperiment, e).ok());
}

}  // namespace
}  // namespace det::master
