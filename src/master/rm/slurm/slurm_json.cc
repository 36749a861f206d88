#include "master/rm/slurm/slurm_json.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace det::master::slurm {

namespace {

using nlohmann::json;

// Job states in which the batch script has not ended yet, so exit_code means nothing.
const std::set<std::string> kActiveStates = {"PENDING",   "RUNNING",     "SUSPENDED", "COMPLETING",
                                             "CONFIGURING", "REQUEUED", "RESIZING",  "SIGNALING",
                                             "STAGE_OUT", "STOPPED",     "REQUEUE_HOLD", "REQUEUE_FED"};

absl::StatusOr<json> ParseOutput(std::string_view output, std::string_view command) {
  json doc = json::parse(output.begin(), output.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InternalError(absl::StrCat(std::string(command), ": output is not a JSON object: ",
                                            std::string(output.substr(0, 200))));
  }
  // "errors": [{"error": "...", "errno": N}] (strings in some versions).
  if (auto it = doc.find("errors"); it != doc.end() && it->is_array() && !it->empty()) {
    std::vector<std::string> texts;
    for (const json& e : *it) {
      if (e.is_object() && e.contains("error")) {
        texts.push_back(e["error"].is_string() ? e["error"].get<std::string>() : e["error"].dump());
      } else {
        texts.push_back(e.is_string() ? e.get<std::string>() : e.dump());
      }
    }
    return absl::UnavailableError(absl::StrCat(std::string(command), ": ", absl::StrJoin(texts, "; ")));
  }
  return doc;
}

// A string field; "" when absent or null.
absl::StatusOr<std::string> StringField(const json& object, const char* field, std::string_view where) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return absl::InternalError(absl::StrCat(std::string(where), ".", field, ": expected a string, got ",
                                            it->dump()));
  }
  return it->get<std::string>();
}

// A number: a plain integer (22.05) or {"set": bool, "infinite": bool, "number": N} (23.02 and
// later); nullopt when absent, null, unset or infinite.
absl::StatusOr<std::optional<long long>> NumberValue(const json& value, std::string_view where) {
  if (value.is_null()) return std::optional<long long>();
  if (value.is_number_integer()) return std::optional<long long>(value.get<long long>());
  if (value.is_object() && value.contains("number")) {
    if (!value.value("set", true) || value.value("infinite", false)) return std::optional<long long>();
    return NumberValue(value["number"], where);
  }
  return absl::InternalError(absl::StrCat(std::string(where), ": expected a number, got ", value.dump()));
}

absl::StatusOr<std::optional<long long>> NumberField(const json& object, const char* field,
                                                     std::string_view where) {
  auto it = object.find(field);
  if (it == object.end()) return std::optional<long long>();
  return NumberValue(*it, absl::StrCat(std::string(where), ".", field));
}

// A state: a string (22.05: "RUNNING", "idle") or a list of flags whose first is the base state
// (23.02 and later: ["RUNNING"], ["IDLE", "DRAIN"]).
absl::StatusOr<std::string> StateField(const json& object, const char* field, std::string_view where) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return std::string();
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array()) {
    if (it->empty()) return std::string();
    if ((*it)[0].is_string()) return (*it)[0].get<std::string>();
  }
  return absl::InternalError(
      absl::StrCat(std::string(where), ".", field, ": expected a string or a list of strings, got ", it->dump()));
}

// The batch script's exit: 22.05 gives the wait status (768 = exited 3; 9 = killed by SIGKILL);
// 23.02 and later {"status": [...], "return_code": N|{number}, "signal": {"signal_id": N|{number}}}.
absl::StatusOr<std::optional<int>> ExitCode(const json& value, std::string_view where) {
  if (value.is_object()) {
    if (auto it = value.find("signal"); it != value.end() && it->is_object() && it->contains("signal_id")) {
      auto signal = NumberValue((*it)["signal_id"], absl::StrCat(std::string(where), ".signal.signal_id"));
      if (!signal.ok()) return signal.status();
      if (signal->has_value() && **signal > 0) return std::optional<int>(128 + static_cast<int>(**signal));
    }
    if (!value.contains("return_code")) return std::optional<int>();
    auto code = NumberValue(value["return_code"], absl::StrCat(std::string(where), ".return_code"));
    if (!code.ok()) return code.status();
    if (!code->has_value()) return std::optional<int>();
    return std::optional<int>(static_cast<int>(**code));
  }
  auto status = NumberValue(value, where);
  if (!status.ok()) return status.status();
  if (!status->has_value()) return std::optional<int>();
  const int wait_status = static_cast<int>(**status);
  const int signal = wait_status & 0x7f;
  if (signal != 0) return std::optional<int>(128 + signal);
  return std::optional<int>((wait_status >> 8) & 0xff);
}

absl::StatusOr<SlurmJob> ParseJob(const json& j, size_t index) {
  const std::string where = absl::StrCat("squeue --json: jobs[", index, "]");
  if (!j.is_object()) return absl::InternalError(absl::StrCat(where, ": expected an object, got ", j.dump()));
  SlurmJob job;
  auto id = NumberField(j, "job_id", where);
  if (!id.ok()) return id.status();
  if (!id->has_value()) return absl::InternalError(absl::StrCat(where, ": no job_id"));
  job.id = std::to_string(**id);
  auto name = StringField(j, "name", where);
  if (!name.ok()) return name.status();
  job.name = *std::move(name);
  auto state = StateField(j, "job_state", where);
  if (!state.ok()) return state.status();
  job.state = *std::move(state);
  auto reason = StringField(j, "state_reason", where);
  if (!reason.ok()) return reason.status();
  job.reason = *reason == "None" ? "" : *std::move(reason);
  auto partition = StringField(j, "partition", where);
  if (!partition.ok()) return partition.status();
  job.partition = *std::move(partition);
  auto nodes = StringField(j, "nodes", where);
  if (!nodes.ok()) return nodes.status();
  auto hosts = ExpandHostList(*nodes);
  if (!hosts.ok()) return absl::InternalError(absl::StrCat(where, ".nodes: ", hosts.status().message()));
  job.nodes = *std::move(hosts);
  if (auto it = j.find("exit_code"); it != j.end() && kActiveStates.count(job.state) == 0) {
    auto code = ExitCode(*it, absl::StrCat(where, ".exit_code"));
    if (!code.ok()) return code.status();
    job.exit_code = *code;
  }
  return job;
}

absl::StatusOr<SlurmNode> ParseNode(const json& n, size_t index) {
  const std::string where = absl::StrCat("sinfo --json: nodes[", index, "]");
  if (!n.is_object()) return absl::InternalError(absl::StrCat(where, ": expected an object, got ", n.dump()));
  SlurmNode node;
  auto name = StringField(n, "name", where);
  if (!name.ok()) return name.status();
  if (name->empty()) return absl::InternalError(absl::StrCat(where, ": no name"));
  node.name = *std::move(name);
  auto state = StateField(n, "state", where);
  if (!state.ok()) return state.status();
  node.state = *std::move(state);
  std::transform(node.state.begin(), node.state.end(), node.state.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  auto cpus = NumberField(n, "cpus", where);
  if (!cpus.ok()) return cpus.status();
  node.cpus = static_cast<int>(cpus->value_or(0));
  auto gres = StringField(n, "gres", where);
  if (!gres.ok()) return gres.status();
  node.gpus = GpusInGres(*gres, &node.gpu_type);
  if (auto it = n.find("partitions"); it != n.end() && !it->is_null()) {
    if (!it->is_array()) {
      return absl::InternalError(absl::StrCat(where, ".partitions: expected a list, got ", it->dump()));
    }
    for (const json& p : *it) {
      if (!p.is_string()) {
        return absl::InternalError(absl::StrCat(where, ".partitions: expected strings, got ", p.dump()));
      }
      node.partitions.push_back(p.get<std::string>());
    }
  }
  return node;
}

// "Key=Value Key=Value ..." of one scontrol line. Values hold no spaces in --oneliner output except
// after the last key we read (Reason=...), so splitting at spaces is enough for the keys used here.
std::map<std::string, std::string> KeyValues(std::string_view line) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view word = line.substr(pos, end - pos);
    if (size_t eq = word.find('='); eq != std::string_view::npos) {
      out.emplace(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
    }
    pos = end + 1;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandHostList(std::string_view hostlist) {
  std::vector<std::string> hosts;
  size_t pos = 0;
  while (pos < hostlist.size()) {
    // One entry: a prefix, then optionally [ranges], then a suffix; entries end at a ',' outside [].
    size_t end = pos;
    int depth = 0;
    while (end < hostlist.size() && (depth > 0 || hostlist[end] != ',')) {
      if (hostlist[end] == '[') ++depth;
      if (hostlist[end] == ']') --depth;
      ++end;
    }
    std::string_view entry = hostlist.substr(pos, end - pos);
    pos = end + 1;
    if (entry.empty()) continue;
    const size_t open = entry.find('[');
    if (open == std::string_view::npos) {
      if (entry.find(']') != std::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat("host list \"", std::string(hostlist), "\": stray ']'"));
      }
      hosts.emplace_back(entry);
      continue;
    }
    const size_t close = entry.find(']', open);
    if (close == std::string_view::npos || entry.find('[', open + 1) < close) {
      return absl::InvalidArgumentError(
          absl::StrCat("host list \"", std::string(hostlist), "\": unbalanced '[' in \"", std::string(entry), "\""));
    }
    const std::string prefix(entry.substr(0, open));
    const std::string suffix(entry.substr(close + 1));
    std::string_view ranges = entry.substr(open + 1, close - open - 1);
    while (!ranges.empty()) {
      const size_t comma = ranges.find(',');
      std::string_view range = ranges.substr(0, comma);
      ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
      const size_t dash = range.find('-');
      std::string_view lo = range.substr(0, dash);
      std::string_view hi = dash == std::string_view::npos ? lo : range.substr(dash + 1);
      auto digits = [](std::string_view s) {
        return !s.empty() && s.size() < 10 &&
               std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
      };
      if (!digits(lo) || !digits(hi)) {
        return absl::InvalidArgumentError(
            absl::StrCat("host list \"", std::string(hostlist), "\": bad range \"", std::string(range), "\""));
      }
      const long first = std::stol(std::string(lo)), last = std::stol(std::string(hi));
      if (last < first || last - first > 100000) {
        return absl::InvalidArgumentError(
            absl::StrCat("host list \"", std::string(hostlist), "\": bad range \"", std::string(range), "\""));
      }
      for (long i = first; i <= last; ++i) {
        std::string number = std::to_string(i);
        // "n[01-10]": the width of the lower bound is kept with leading zeros.
        if (number.size() < lo.size()) number.insert(0, lo.size() - number.size(), '0');
        hosts.push_back(prefix + number + suffix);
      }
    }
  }
  return hosts;
}

int GpusInGres(std::string_view gres, std::string* gpu_type) {
  int total = 0;
  while (!gres.empty()) {
    // Entries are "name[:type][:count][(S:0-1)|(IDX:0-1)]", separated by ',' outside parentheses.
    size_t end = 0;
    int depth = 0;
    while (end < gres.size() && (depth > 0 || gres[end] != ',')) {
      if (gres[end] == '(') ++depth;
      if (gres[end] == ')') --depth;
      ++end;
    }
    std::string_view entry = gres.substr(0, end);
    gres = end < gres.size() ? gres.substr(end + 1) : std::string_view();
    entry = entry.substr(0, entry.find('('));
    std::vector<std::string_view> parts;
    while (true) {
      const size_t colon = entry.find(':');
      parts.push_back(entry.substr(0, colon));
      if (colon == std::string_view::npos) break;
      entry.remove_prefix(colon + 1);
    }
    if (parts[0] != "gpu") continue;
    int count = 1;
    std::string_view last = parts.back();
    const bool numeric = parts.size() > 1 && !last.empty() &&
                         std::all_of(last.begin(), last.end(), [](unsigned char c) { return std::isdigit(c); });
    if (numeric) count = std::stoi(std::string(last.substr(0, 9)));
    const size_t type_parts = parts.size() - 1 - (numeric ? 1 : 0);
    if (gpu_type != nullptr && type_parts >= 1 && gpu_type->empty()) *gpu_type = std::string(parts[1]);
    total += count;
  }
  return total;
}

absl::StatusOr<std::vector<SlurmJob>> ParseSqueueJson(std::string_view output) {
  auto doc = ParseOutput(output, "squeue --json");
  if (!doc.ok()) return doc.status();
  auto it = doc->find("jobs");
  if (it == doc->end()) return std::vector<SlurmJob>();
  if (!it->is_array()) {
    return absl::InternalError(absl::StrCat("squeue --json: jobs: expected a list, got ", it->dump().substr(0, 200)));
  }
  std::vector<SlurmJob> jobs;
  for (size_t i = 0; i < it->size(); ++i) {
    auto job = ParseJob((*it)[i], i);
    if (!job.ok()) return job.status();
    jobs.push_back(*std::move(job));
  }
  return jobs;
}

absl::StatusOr<std::vector<SlurmNode>> ParseSinfoJson(std::string_view output) {
  auto doc = ParseOutput(output, "sinfo --json");
  if (!doc.ok()) return doc.status();
  // 22.05: {"nodes": [...]}; 23.02 and later: {"sinfo": [{"node": ..., ...}]} is a different report, so
  // only "nodes" is read.
  auto it = doc->find("nodes");
  if (it == doc->end()) return std::vector<SlurmNode>();
  if (!it->is_array()) {
    return absl::InternalError(absl::StrCat("sinfo --json: nodes: expected a list, got ", it->dump().substr(0, 200)));
  }
  std::vector<SlurmNode> nodes;
  for (size_t i = 0; i < it->size(); ++i) {
    auto node = ParseNode((*it)[i], i);
    if (!node.ok()) return node.status();
    nodes.push_back(*std::move(node));
  }
  return nodes;
}

absl::StatusOr<std::vector<SlurmPartition>> ParseScontrolPartitions(std::string_view output,
                                                                    const std::vector<SlurmNode>& nodes) {
  std::map<std::string, int> gpus_of_node;
  for (const SlurmNode& n : nodes) gpus_of_node[n.name] = n.gpus;
  std::vector<SlurmPartition> partitions;
  size_t line_number = 0;
  while (!output.empty()) {
    const size_t newline = output.find('\n');
    std::string_view line = output.substr(0, newline);
    output = newline == std::string_view::npos ? std::string_view() : output.substr(newline + 1);
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::map<std::string, std::string> kv = KeyValues(line);
    auto name = kv.find("PartitionName");
    if (name == kv.end() || name->second.empty()) {
      return absl::InternalError(absl::StrCat("scontrol show partition: line ", line_number,
                                              " has no PartitionName: ", std::string(line.substr(0, 200))));
    }
    SlurmPartition p;
    p.name = name->second;
    p.is_default = kv["Default"] == "YES";
    p.state = kv["State"];
    const std::string cpus = kv["TotalCPUs"];
    if (!cpus.empty() && std::all_of(cpus.begin(), cpus.end(), [](unsigned char c) { return std::isdigit(c); })) {
      p.total_cpus = std::stoi(cpus.substr(0, 9));
    }
    if (const std::string& list = kv["Nodes"]; !list.empty() && list != "(null)") {
      auto hosts = ExpandHostList(list);
      if (!hosts.ok()) {
        return absl::InternalError(absl::StrCat("scontrol show partition ", p.name, ": Nodes: ",
                                                hosts.status().message()));
      }
      p.nodes = *std::move(hosts);
    }
    for (const std::string& host : p.nodes) p.total_gpus += gpus_of_node[host];
    partitions.push_back(std::move(p));
  }
  return partitions;
}

}  // namespace det::master::slurm
