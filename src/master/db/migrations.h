#pragma once
#include <string>
#include <vector>

namespace det::master {

struct Migration {
  int version;
  std::string name;
  std::string sql;
};

// The numbered SQL files of migrations/sqlite/, embedded at build time, in version order.
const std::vector<Migration>& SqliteMigrations();

}  // namespace det::master
