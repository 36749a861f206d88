#pragma once
// Paging of lists the master holds in memory (agents, jobs, resource pools), with upstream's
// api.Paginate rules: a negative offset counts from the end, a limit <= 0 means "all the rest".
#include <cstdint>
#include <nlohmann/json_fwd.hpp>

namespace det::master {

struct PageRange {
  int64_t begin = 0;  // index of the first item of the page
  int64_t end = 0;    // one past the last
};

PageRange PageOf(int64_t total, int64_t offset, int64_t limit);

// {"offset","limit","startIndex","endIndex","total"} for `range` of `total` items.
nlohmann::json PagePagination(int64_t offset, int64_t limit, PageRange range, int64_t total);

}  // namespace det::master
