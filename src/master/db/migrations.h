#pragma once
#include <string>
#include <vector>

namespace det::master {

struct Migration {
  int version;
  std::string name;
  std::string sql;
};

// The numbered SQL files of migrations/<dialect>/, embedded at build time, in version order. The
// same version number means the same schema on both: PostgreSQL's first file is 0009, the schema
// SQLite had reached by its ninth, and every later change is a file of the same number in each.
const std::vector<Migration>& SqliteMigrations();
const std::vector<Migration>& PostgresMigrations();

}  // namespace det::master
