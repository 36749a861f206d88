#include "agent/line_splitter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace det::agent {
namespace {

using ::testing::ElementsAre;

struct Collected {
  std::vector<std::string> lines;
  LineSplitter::LineCallback callback() {
    return [this](std::string line) { lines.push_back(std::move(line)); };
  }
};

TEST(LineSplitterTest, SplitsOnNewlineCarriageReturnAndCrlf) {
  Collected c;
  LineSplitter s(c.callback());
  s.Feed("a\nb\rc\r\nd\n\ne");
  s.Finish();
  EXPECT_THAT(c.lines, ElementsAre("a", "b", "c", "d", "", "e"));
}

TEST(LineSplitterTest, JoinsLinesAcrossChunks) {
  Collected c;
  LineSplitter s(c.callback());
  s.Feed("hel");
  s.Feed("lo\r");
  s.Feed("\nwor");
  s.Feed("ld\n");
  EXPECT_THAT(c.lines, ElementsAre("hello", "world"));
  s.Finish();
  EXPECT_THAT(c.lines, ElementsAre("hello", "world"));
}

TEST(LineSplitterTest, CrThenCrIsAnEmptyLine) {
  Collected c;
  LineSplitter s(c.callback());
  s.Feed("x\r\ry\n");
  EXPECT_THAT(c.lines, ElementsAre("x", "", "y"));
}

TEST(LineSplitterTest, CutsOverlongLines) {
  Collected c;
  LineSplitter s(c.callback(), 4);
  s.Feed("abcdefghij\n");
  s.Finish();
  EXPECT_THAT(c.lines, ElementsAre("abcd", "efgh", "ij"));
}

TEST(LineSplitterTest, ConsumedCountsTheBytesThroughEachLine) {
  std::vector<uint64_t> ends;
  LineSplitter* self = nullptr;
  LineSplitter s([&](std::string) { ends.push_back(self->consumed()); });
  self = &s;
  s.Feed("ab\ncd");
  s.Feed("\r\nef");
  s.Finish();
  // "ab\n" ends at 3, "cd\r" at 6 (its '\n' follows in the stream), the unterminated "ef" at 9.
  EXPECT_THAT(ends, ElementsAre(3, 6, 9));
}

TEST(LineSplitterTest, ContinuingAfterACarriageReturnSkipsItsNewline) {
  // A stream re-read from offset 6 of "ab\ncd\r\nef": it starts with the '\n' of "\r\n".
  Collected c;
  LineSplitter s(c.callback());
  s.ContinueAfterCarriageReturn();
  s.Feed("\nef\n");
  EXPECT_THAT(c.lines, ElementsAre("ef"));
}

}  // namespace
}  // namespace det::agent
