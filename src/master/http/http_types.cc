#include "master/http/http_types.h"

#include "api/wire.h"

namespace det::master {

std::optional<std::string> HttpRequest::Query(const std::string& snake_name) const {
  for (const std::string& key : {snake_name, api::ToLowerCamel(snake_name)}) {
    auto it = query.find(key);
    if (it != query.end()) return it->second;
  }
  return std::nullopt;
}

std::vector<std::string> HttpRequest::QueryAll(const std::string& snake_name) const {
  std::vector<std::string> out;
  std::string camel = api::ToLowerCamel(snake_name);
  for (const auto& [k, v] : query) {
    if (k == snake_name || k == camel) out.push_back(v);
  }
  return out;
}

std::string HttpRequest::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

}  // namespace det::master
