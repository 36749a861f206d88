#include "master/model_rules.h"

#include <gtest/gtest.h>

#include "master/db/temp_sqlite_store.h"
#include "master/experiment_rules.h"

namespace det::master {
namespace {

class ModelRulesTest : public ::testing::Test {
 protected:
  ModelRulesTest() : store_("model_rules") {}

  // A finished experiment with one checkpoint in `state`; returns the experiment's id.
  int64_t AddExperimentWithCheckpoint(const std::string& uuid, const std::string& state = "COMPLETED") {
    api::Experiment e{.name = "e", .state = api::ExperimentState::kCompleted, .config_json = "{}", .owner_id = 1};
    int64_t id = *store_->InsertExperiment(e, "");
    api::Trial t{.experiment_id = id, .request_id = "r", .task_id = absl::StrCat(id, ".1")};
    int64_t trial_id = *store_->InsertTrial(t);
    api::Checkpoint c{.uuid = uuid, .task_id = t.task_id, .trial_id = trial_id, .experiment_id = id, .state = state};
    EXPECT_TRUE(store_->AddCheckpoint(c, 10).ok());
    return id;
  }

  TempSqliteStore store_;
};

TEST_F(ModelRulesTest, NamesAreNotBlankSlashedDoubleSpacedOrOnlyDigits) {
  EXPECT_TRUE(CheckModelName("mnist cnn 2").ok());
  for (const char* bad : {"", "  ", "a/b", "a\\b", "a  b", "123"}) {
    EXPECT_EQ(CheckModelName(bad).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(CheckModelName("42").message(),
            "name: \"42\" is only digits, which paths read as a model id; add a letter");
}

TEST_F(ModelRulesTest, AModelIsFoundByNameOrIdAndItsNameIsUnique) {
  absl::StatusOr<Model> m = CreateModelChecked(*store_, {.name = "mnist", .labels = {"a", "b", "a"}, .user_id = 1});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(FindModel(*store_, "mnist")->id, m->id);
  EXPECT_EQ(FindModel(*store_, std::to_string(m->id))->name, "mnist");
  EXPECT_EQ(FindModel(*store_, "nope").status().message(), "model \"nope\" not found");
  EXPECT_EQ(CreateModelChecked(*store_, {.name = "mnist", .user_id = 1}).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(CreateModelChecked(*store_, {.name = "x", .workspace_id = 99, .user_id = 1}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ModelRulesTest, AnArchivedModelTakesNoChangesAndNoVersions) {
  AddExperimentWithCheckpoint("c1");
  Model m = *CreateModelChecked(*store_, {.name = "mnist", .user_id = 1});
  ASSERT_TRUE(store_->SetModelArchived(m.id, true).ok());
  m = *store_->GetModel(m.id);
  EXPECT_EQ(PatchModelChecked(*store_, m, {.description = "d"}).status().message(),
            "model \"mnist\" is archived: it cannot be changed; unarchive it first");
  EXPECT_EQ(RegisterVersionChecked(*store_, m, {.checkpoint_uuid = "c1", .user_id = 1}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(store_->SetModelArchived(m.id, false).ok());
  m = *store_->GetModel(m.id);
  EXPECT_EQ(PatchModelChecked(*store_, m, {.name = "a/b"}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PatchModelChecked(*store_, m, {.description = "d"})->description, "d");
}

TEST_F(ModelRulesTest, OnlyACompletedCheckpointIsRegisteredAndThenNeverDeleted) {
  int64_t exp_id = AddExperimentWithCheckpoint("c1");
  int64_t other_id = AddExperimentWithCheckpoint("c2", "DELETED");
  Model m = *CreateModelChecked(*store_, {.name = "mnist", .user_id = 1});
  EXPECT_EQ(RegisterVersionChecked(*store_, m, {.checkpoint_uuid = "c2", .user_id = 1}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(RegisterVersionChecked(*store_, m, {.checkpoint_uuid = "nope", .user_id = 1}).status().message(),
            "checkpoint nope not found");
  absl::StatusOr<ModelVersion> v1 = RegisterVersionChecked(*store_, m, {.checkpoint_uuid = "c1", .user_id = 1});
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(v1->version, 1);
  EXPECT_EQ(RegisterVersionChecked(*store_, m, {.checkpoint_uuid = "c1", .user_id = 1})->version, 2);

  absl::Status refused = RefuseRegisteredCheckpoints(*store_, {"c1"}, 0);
  EXPECT_EQ(refused.message(),
            "checkpoint c1 is registered in model \"mnist\" version 1 (and 1 more registrations): delete the version "
            "first");
  EXPECT_TRUE(RefuseRegisteredCheckpoints(*store_, {"c2"}, 0).ok());
  EXPECT_EQ(StartDeletingExperiment(*store_, exp_id).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(StartDeletingExperiment(*store_, other_id).ok());

  ASSERT_TRUE(store_->DeleteModelVersion(m.id, 1).ok());
  ASSERT_TRUE(store_->DeleteModelVersion(m.id, 2).ok());
  EXPECT_TRUE(RefuseRegisteredCheckpoints(*store_, {}, exp_id).ok());
  EXPECT_EQ(RegisterVersionChecked(*store_, m, {.checkpoint_uuid = "c1", .user_id = 1})->version, 3)
      << "numbers are never given twice";
}

TEST_F(ModelRulesTest, ATrialIsLinkedOnlyToACheckpointThatExistsAndTheVersionHoldingIt) {
  int64_t exp = AddExperimentWithCheckpoint("ck");
  AddExperimentWithCheckpoint("other");
  int64_t trial = store_->ListTrials(exp)->at(0).id;
  Model m = *CreateModelChecked(*store_, {.name = "digits", .user_id = 1});
  ASSERT_TRUE(RegisterVersionChecked(*store_, m, {.checkpoint_uuid = "ck", .user_id = 1}).ok());
  constexpr char kInference[] = "TRIAL_SOURCE_INFO_TYPE_INFERENCE";

  EXPECT_EQ(AddTrialSourceInfoChecked(*store_, {.trial_id = trial, .checkpoint_uuid = "gone", .type = kInference})
                .message(),
            "checkpoint gone not found");
  absl::Status wrong = AddTrialSourceInfoChecked(
      *store_, {.trial_id = trial, .checkpoint_uuid = "other", .model_id = m.id, .model_version = 1, .type = kInference});
  EXPECT_EQ(wrong.message(), absl::StrCat("model ", m.id, " version 1 holds checkpoint ck, not other"));
  EXPECT_EQ(AddTrialSourceInfoChecked(*store_, {.trial_id = trial, .checkpoint_uuid = "ck", .model_id = m.id,
                                                .model_version = 2, .type = kInference})
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(store_->ListTrialSourceInfos({.checkpoint_uuid = "ck"})->empty()) << "nothing refused was stored";

  ASSERT_TRUE(AddTrialSourceInfoChecked(*store_, {.trial_id = trial, .checkpoint_uuid = "ck", .model_id = m.id,
                                                  .model_version = 1, .type = kInference})
                  .ok());
  EXPECT_EQ(store_->ListTrialSourceInfos({.model_id = m.id, .model_version = 1})->size(), 1u);
}

}  // namespace
}  // namespace det::master
