#pragma once
// Reading paginated list endpoints (`offset`/`limit` in, `pagination` out; reference §1).
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

// "a?x=1" + ("b", "2") -> "a?x=1&b=2" (the value is percent-encoded).
std::string AddQuery(const std::string& path, const std::string& key, const std::string& value);

// GETs `path` page by page (offset/limit appended), concatenating each page's `field` array.
// `max_pages` 0 means all. Stops early when the master reports the end (pagination.endIndex >=
// pagination.total), returns a short page, or ignores the limit.
absl::StatusOr<nlohmann::json> GetAllPages(Session& session, const std::string& path,
                                           const std::string& field, int offset = 0,
                                           int page_size = 1000, int max_pages = 0);

// upstream's --limit, --offset and --pages (all: every page from `offset` on; 1: one page).
struct PageArgs {
  int64_t limit = 200;
  int64_t offset = 0;
  bool all_pages = true;
};

// POSTs `body` with offset and limit from `pages` to a search endpoint (groups/search,
// roles/search, ...), page after page while all_pages and the master has more. Returns the last
// reply with its `field` array holding every page's items.
absl::StatusOr<nlohmann::json> PostPages(Session& session, const std::string& path,
                                         nlohmann::json body, const std::string& field,
                                         const PageArgs& pages);

}  // namespace det::cli
