#include "cli/format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::cli {
namespace {

using nlohmann::json;

TEST(FormatTest, Time) {
  EXPECT_EQ(FormatTime(json("2024-01-02T03:04:05.123456Z")), "2024-01-02 03:04:05+0000");
  EXPECT_EQ(FormatTime(json(nullptr)), "");
  EXPECT_EQ(FormatTime(json("")), "");
  EXPECT_EQ(FormatTime(json("0001-01-01T00:00:00Z")), "");
  EXPECT_EQ(FormatTime(json("not a time")), "not a time");
}

TEST(FormatTest, Percent) {
  EXPECT_EQ(FormatPercent(json(0.456)), "45.6%");
  EXPECT_EQ(FormatPercent(json(1)), "100.0%");
  EXPECT_EQ(FormatPercent(json(nullptr)), "N/A");
}

TEST(FormatTest, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0.0B");
  EXPECT_EQ(FormatBytes(1023), "1023.0B");
  EXPECT_EQ(FormatBytes(1536), "1.5KB");
  EXPECT_EQ(FormatBytes(95LL * 1024 * 1024), "95.0MB");
}

TEST(FormatTest, StatesCellsAndMetrics) {
  EXPECT_EQ(StripStatePrefix("STATE_COMPLETED"), "COMPLETED");
  EXPECT_EQ(StripStatePrefix("ACTIVE"), "ACTIVE");
  EXPECT_EQ(Cell(json("x")), "x");
  EXPECT_EQ(Cell(json(nullptr)), "");
  EXPECT_EQ(Cell(json(3)), "3");
  EXPECT_EQ(Cell(json(true)), "true");
  EXPECT_EQ(FormatMetrics(json{{"loss", 0.123456789}, {"acc", 0.9}, {"n", 5}}),
            "acc=0.9, loss=0.123457, n=5");
  EXPECT_EQ(FormatMetrics(json(nullptr)), "");
  EXPECT_EQ(Str(json{{"a", "b"}, {"n", 1}}, "a"), "b");
  EXPECT_EQ(Str(json{{"n", 1}}, "n"), "");
}

TEST(FormatTest, PyCellPrintsAsUpstreamsTables) {
  EXPECT_EQ(PyCell(json(nullptr)), "N/A");
  EXPECT_EQ(PyCell(json(true)), "True");
  EXPECT_EQ(PyCell(json(false)), "False");
  EXPECT_EQ(PyCell(json("ws-a")), "ws-a");
  EXPECT_EQ(PyCell(json(7)), "7");
  EXPECT_EQ(PyCell(json::parse(R"({"workspace": null, "cluster": true})")),
            "{'cluster': True, 'workspace': None}");
  EXPECT_EQ(PyCell(json::parse(R"([1, "it's", "a'b\"c", {}])")), R"([1, "it's", 'a\'b"c', {}])");
}

}  // namespace
}  // namespace det::cli
