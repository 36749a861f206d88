#include "master/rm/kubernetes/line_splitter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace det::master::kube {
namespace {

using ::testing::ElementsAre;

class LineSplitterTest : public ::testing::Test {
 protected:
  LineSplitter::OnLine Collect() {
    return [this](std::string_view line) {
      lines_.emplace_back(line);
      return true;
    };
  }
  std::vector<std::string> lines_;
};

TEST_F(LineSplitterTest, PiecesHoldingSeveralLinesOrPartOfOne) {
  LineSplitter s;
  EXPECT_TRUE(s.Feed("a\nbb\nc", Collect()));
  EXPECT_TRUE(s.Feed("c", Collect()));
  EXPECT_TRUE(s.Feed("c\n\nd", Collect()));
  EXPECT_THAT(lines_, ElementsAre("a", "bb", "ccc", ""));
  EXPECT_TRUE(s.Finish(Collect()));
  EXPECT_THAT(lines_, ElementsAre("a", "bb", "ccc", "", "d"));
  EXPECT_TRUE(s.Finish(Collect()));  // nothing left
  EXPECT_EQ(lines_.size(), 5u);
}

TEST_F(LineSplitterTest, FalseFromTheReceiverStopsAtOnce) {
  LineSplitter s;
  int calls = 0;
  EXPECT_FALSE(s.Feed("a\nb\nc\n", [&](std::string_view) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2);
}

TEST_F(LineSplitterTest, LongLinesGoInPartsOfTheLimit) {
  LineSplitter s(4);
  EXPECT_TRUE(s.Feed("abcd\nabcdefghij", Collect()));
  EXPECT_TRUE(s.Feed("k\nxy", Collect()));
  EXPECT_TRUE(s.Feed("zw", Collect()));
  EXPECT_TRUE(s.Feed("\n", Collect()));
  EXPECT_THAT(lines_, ElementsAre("abcd", "abcd", "efgh", "ijk", "xyzw"));
}

}  // namespace
}  // namespace det::master::kube
