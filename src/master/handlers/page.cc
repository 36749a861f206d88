#include "master/handlers/page.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace det::master {

PageRange PageOf(int64_t total, int64_t offset, int64_t limit) {
  PageRange r;
  r.begin = offset < 0 ? std::max<int64_t>(0, total + offset) : std::min(offset, total);
  r.end = limit <= 0 ? total : std::min(total, r.begin + limit);
  return r;
}

nlohmann::json PagePagination(int64_t offset, int64_t limit, PageRange range, int64_t total) {
  return {{"offset", offset},
          {"limit", limit},
          {"startIndex", range.begin},
          {"endIndex", range.end},
          {"total", total}};
}

}  // namespace det::master
