#include "searcher/single.h"

#include <gtest/gtest.h>

namespace det::searcher {
namespace {

TEST(SingleSearchTest, CreatesOneTrialAndShutsDownWhenItExits) {
  SingleSearch s(R"({"lr":0.1})", 7);
  auto first = s.InitialActions();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].kind, Action::Kind::kCreateTrial);
  EXPECT_EQ(first[0].hparams_json, R"({"lr":0.1})");
  EXPECT_EQ(first[0].seed, 7u);
  EXPECT_TRUE(s.InitialActions().empty());
  EXPECT_TRUE(s.ValidationCompleted(first[0].request_id, 0.5).empty());
  EXPECT_EQ(s.Progress(), 0.0);
  auto end = s.TrialExited(first[0].request_id, /*errored=*/true);
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0].kind, Action::Kind::kShutdown);
  EXPECT_TRUE(end[0].failure);
  EXPECT_EQ(s.Progress(), 1.0);
  EXPECT_TRUE(s.TrialExited(first[0].request_id, false).empty());
}

}  // namespace
}  // namespace det::searcher
