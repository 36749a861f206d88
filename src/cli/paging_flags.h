#pragma once
// upstream's pagination flags (--limit, --offset, --pages all|1) on a CLI11 command, read into
// PageArgs. Only *_cmd.cc files include this (it includes CLI11).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/paging.h"

namespace det::cli {

struct PagingFlags {
  PageArgs args;
  std::string pages = "all";
  // The flags as parsed; call from the command's action.
  PageArgs Get() const {
    PageArgs out = args;
    out.all_pages = pages == "all";
    return out;
  }
};

inline std::shared_ptr<PagingFlags> AddPagingFlags(CLI::App* cmd) {
  auto flags = std::make_shared<PagingFlags>();
  cmd->add_option("--limit", flags->args.limit, "how many items one page holds")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--offset", flags->args.offset, "how many items to skip before the first page")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--pages", flags->pages, "all: every page from the offset on; 1: only the first")
      ->check(CLI::IsMember({"all", "1"}))
      ->capture_default_str();
  return flags;
}

}  // namespace det::cli
