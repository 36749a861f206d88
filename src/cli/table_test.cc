#include "cli/table.h"

#include <gtest/gtest.h>

namespace det::cli {
namespace {

TEST(TableTest, AlignsColumnsPrestoStyle) {
  Table t({"ID", "Name", "State"});
  t.AddRow({"1", "mnist", "COMPLETED"});
  t.AddRow({"12", "a", "ACTIVE"});
  EXPECT_EQ(t.Render(),
            " ID | Name  | State\n"
            "----+-------+-----------\n"
            "  1 | mnist | COMPLETED\n"
            " 12 | a     | ACTIVE\n");
}

TEST(TableTest, EmptyTableHasHeaderAndSeparator) {
  Table t({"A", "Bee"});
  EXPECT_EQ(t.Render(), " A | Bee\n---+-----\n");
  EXPECT_EQ(t.num_rows(), 0u);
}

TEST(TableTest, MultiLineCellsSpanLines) {
  Table t({"K", "V"});
  t.AddRow({"x", "line1\nline2"});
  EXPECT_EQ(t.Render(),
            " K | V\n"
            "---+-------\n"
            " x | line1\n"
            "   | line2\n");
}

TEST(TableTest, ShortRowsArePaddedAndNumbersRightAligned) {
  Table t({"N", "S"});
  t.AddRow({"1.5"});
  t.AddRow({"100", "x"});
  EXPECT_EQ(t.Render(),
            "   N | S\n"
            "-----+---\n"
            " 1.5 |\n"
            " 100 | x\n");
}

TEST(TableTest, WidthCountsUtf8CodePoints) {
  Table t({"Name"});
  t.AddRow({"h\xC3\xA9llo"});  // "héllo": 5 code points, 6 bytes
  EXPECT_EQ(t.Render(), " Name\n-------\n h\xC3\xA9llo\n");
}

TEST(TableTest, CsvQuotesWhenNeeded) {
  Table t({"a", "b"});
  t.AddRow({"x,y", "say \"hi\""});
  t.AddRow({"plain", "two\nlines"});
  EXPECT_EQ(t.ToCsv(), "a,b\n\"x,y\",\"say \"\"hi\"\"\"\nplain,\"two\nlines\"\n");
}

}  // namespace
}  // namespace det::cli
