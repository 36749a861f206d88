#pragma once
// Test-only: a GET request carrying just a query, for the handlers' query parsers.
#include <map>
#include <string>

#include "master/http/http_types.h"

namespace det::master {

inline HttpRequest WithQuery(std::multimap<std::string, std::string> query) {
  HttpRequest r;
  r.method = "GET";
  r.query = std::move(query);
  return r;
}

}  // namespace det::master
