#include "master/observability/process_stats.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace det::master {
namespace {

absl::StatusOr<std::string> Slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::UnavailableError(absl::StrCat("cannot read ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Field `n` (1-based, as proc(5) numbers them) of a stat line, from the fields after the command
// name (field 2, which may hold spaces and parentheses, so the line is split after its last ')').
absl::StatusOr<double> StatField(const std::vector<absl::string_view>& after_comm, size_t n) {
  double value = 0;
  if (n < 3 || n - 3 >= after_comm.size() || !absl::SimpleAtod(after_comm[n - 3], &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("/proc/self/stat: field ", n, " missing or not a number"));
  }
  return value;
}

}  // namespace

absl::StatusOr<ProcessStats> ParseProcessStats(absl::string_view stat,
                                               absl::string_view system_stat,
                                               absl::string_view limits, long ticks_per_second,
                                               long page_size) {
  const size_t comm_end = stat.rfind(')');
  if (comm_end == absl::string_view::npos) {
    return absl::InvalidArgumentError("/proc/self/stat: no command name in parentheses");
  }
  std::vector<absl::string_view> fields =
      absl::StrSplit(stat.substr(comm_end + 1), absl::ByAnyChar(" \n"), absl::SkipEmpty());
  ProcessStats out;
  const double ticks = static_cast<double>(ticks_per_second);
  absl::StatusOr<double> utime = StatField(fields, 14);
  absl::StatusOr<double> stime = StatField(fields, 15);
  absl::StatusOr<double> threads = StatField(fields, 20);
  absl::StatusOr<double> start = StatField(fields, 22);
  absl::StatusOr<double> vsize = StatField(fields, 23);
  absl::StatusOr<double> rss = StatField(fields, 24);
  for (const auto* field : {&utime, &stime, &threads, &start, &vsize, &rss}) {
    if (!field->ok()) return field->status();
  }
  out.cpu_seconds = (*utime + *stime) / ticks;
  out.threads = *threads;
  out.virtual_bytes = *vsize;
  out.resident_bytes = *rss * static_cast<double>(page_size);

  double boot_time = -1;
  for (absl::string_view line : absl::StrSplit(system_stat, '\n')) {
    if (absl::ConsumePrefix(&line, "btime ") && absl::SimpleAtod(line, &boot_time)) break;
  }
  if (boot_time < 0) return absl::InvalidArgumentError("/proc/stat: no btime line");
  out.start_time_seconds = boot_time + *start / ticks;

  for (absl::string_view line : absl::StrSplit(limits, '\n')) {
    if (!absl::ConsumePrefix(&line, "Max open files")) continue;
    std::vector<absl::string_view> values = absl::StrSplit(line, ' ', absl::SkipEmpty());
    double soft = 0;
    if (!values.empty() && absl::SimpleAtod(values[0], &soft))
      out.max_fds = soft;  // "unlimited": 0
  }
  return out;
}

absl::StatusOr<ProcessStats> ReadProcessStats() {
  absl::StatusOr<std::string> stat = Slurp("/proc/self/stat");
  if (!stat.ok()) return stat.status();
  absl::StatusOr<std::string> system_stat = Slurp("/proc/stat");
  if (!system_stat.ok()) return system_stat.status();
  absl::StatusOr<std::string> limits = Slurp("/proc/self/limits");
  if (!limits.ok()) return limits.status();
  absl::StatusOr<ProcessStats> out = ParseProcessStats(
      *stat, *system_stat, *limits, ::sysconf(_SC_CLK_TCK), ::sysconf(_SC_PAGESIZE));
  if (!out.ok()) return out;
  std::error_code ec;
  double fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  if (ec) return absl::UnavailableError(absl::StrCat("cannot list /proc/self/fd: ", ec.message()));
  out->open_fds = fds - 1;  // less the descriptor the listing itself held open
  return out;
}

}  // namespace det::master
