#include "cli/paging.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "cli/session.h"
#include "client/rest_client.h"

namespace det::cli {
namespace {

// Whether a reply's pagination says nothing follows it.
bool LastPage(const nlohmann::json& reply) {
  auto p = reply.find("pagination");
  if (p == reply.end() || !p->is_object()) return false;
  auto end = p->find("endIndex");
  auto total = p->find("total");
  if (end == p->end() || total == p->end()) return false;
  absl::StatusOr<int64_t> e = api::ReadInt64(*end, "pagination.endIndex");
  absl::StatusOr<int64_t> t = api::ReadInt64(*total, "pagination.total");
  return e.ok() && t.ok() && *e >= *t;
}

}  // namespace

std::string AddQuery(const std::string& path, const std::string& key, const std::string& value) {
  return absl::StrCat(path, path.find('?') == std::string::npos ? "?" : "&", key, "=",
                      client::UrlEncode(value));
}

absl::StatusOr<nlohmann::json> GetAllPages(Session& session, const std::string& path,
                                           const std::string& field, int offset, int page_size,
                                           int max_pages) {
  nlohmann::json all = nlohmann::json::array();
  for (int page = 0; max_pages == 0 || page < max_pages; ++page) {
    std::string url = AddQuery(AddQuery(path, "offset", std::to_string(offset)), "limit",
                               std::to_string(page_size));
    absl::StatusOr<nlohmann::json> resp = session.Get(url);
    if (!resp.ok()) return resp.status();
    size_t n = 0;
    if (auto it = resp->find(field); it != resp->end() && it->is_array()) {
      n = it->size();
      for (auto& item : *it) all.push_back(std::move(item));
    }
    if (n == 0 || static_cast<int>(n) != page_size) break;  // short page, or the limit was ignored
    if (LastPage(*resp)) break;
    offset += static_cast<int>(n);
  }
  return all;
}

absl::StatusOr<nlohmann::json> PostPages(Session& session, const std::string& path,
                                         nlohmann::json body, const std::string& field,
                                         const PageArgs& pages) {
  nlohmann::json items = nlohmann::json::array();
  nlohmann::json reply = nlohmann::json::object();
  for (int64_t offset = pages.offset;;) {
    body["offset"] = offset;
    body["limit"] = pages.limit;
    absl::StatusOr<nlohmann::json> resp = session.Post(path, body);
    if (!resp.ok()) return resp.status();
    reply = std::move(*resp);
    size_t n = 0;
    if (auto it = reply.find(field); it != reply.end() && it->is_array()) {
      n = it->size();
      for (auto& item : *it) items.push_back(std::move(item));
    }
    // A short page, or one that ignored the limit, is the last.
    if (!pages.all_pages || n == 0 || static_cast<int64_t>(n) != pages.limit || LastPage(reply))
      break;
    offset += static_cast<int64_t>(n);
  }
  reply[field] = std::move(items);
  return reply;
}

}  // namespace det::cli
