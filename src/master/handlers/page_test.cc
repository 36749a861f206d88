#include "master/handlers/page.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::master {
namespace {

TEST(PageTest, OffsetAndLimit) {
  EXPECT_EQ(PageOf(10, 0, 0).begin, 0);
  EXPECT_EQ(PageOf(10, 0, 0).end, 10);  // limit 0: all
  EXPECT_EQ(PageOf(10, 2, 3).begin, 2);
  EXPECT_EQ(PageOf(10, 2, 3).end, 5);
  EXPECT_EQ(PageOf(10, 8, 5).end, 10);
  EXPECT_EQ(PageOf(10, 20, 5).begin, 10);  // past the end: empty
  EXPECT_EQ(PageOf(10, 20, 5).end, 10);
  EXPECT_EQ(PageOf(10, -3, 0).begin, 7);  // negative: from the end
  EXPECT_EQ(PageOf(10, -30, 2).begin, 0);
  EXPECT_EQ(PageOf(10, -30, 2).end, 2);
}

TEST(PageTest, PaginationJson) {
  EXPECT_EQ(
      PagePagination(-3, 0, PageOf(10, -3, 0), 10),
      nlohmann::json::parse(R"({"offset":-3,"limit":0,"startIndex":7,"endIndex":10,"total":10})"));
}

}  // namespace
}  // namespace det::master
