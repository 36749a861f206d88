#include "master/rm/slurm/sbatch_args.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace det::master::slurm {

namespace {

// A long option Determined controls and, when it has one, its short form.
struct Controlled {
  std::string_view long_name;  // without "--"
  char short_name;             // '\0' = none
};

// Upstream's list (dispatcher_verification.go), then this master's additions (see the header).
constexpr Controlled kControlled[] = {
    {"gpus", 'G'},        {"nodes", 'N'},         {"ntasks", 'n'},         {"ntasks-per-node", '\0'},
    {"chdir", 'D'},       {"error", 'e'},         {"output", 'o'},         {"partition", 'p'},
    {"requeue", '\0'},    {"gpus-per-node", '\0'}, {"gpus-per-task", '\0'}, {"gpus-per-socket", '\0'},
    {"job-name", 'J'},    {"wckey", '\0'},        {"export", '\0'},        {"array", 'a'},
    {"wrap", '\0'},       {"wait", 'W'},          {"test-only", '\0'},
};

// sbatch's short options that take a value (the rest of the word, or the next word).
constexpr std::string_view kShortWithValue = "AaBbCcDdeFGiJLMmNnopqStwx";

// sbatch's long options that a controlled name is a prefix of but which Determined leaves alone:
// an exact match wins over an abbreviation in getopt, so these are not abbreviations of ours.
constexpr std::string_view kAllowedLongNames[] = {"gres-flags", "ntasks-per-core", "ntasks-per-gpu",
                                                  "ntasks-per-socket", "nodefile", "nodelist"};

// (absl::string_view is not std::string_view on this system, so absl's string helpers are avoided.)
std::string_view Trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n") - first + 1);
}

std::string Refusal(std::string_view element, std::string_view option) {
  return absl::StrCat("slurm.sbatch_args \"", std::string(element), "\": slurm option ",
                      std::string(option), " is not configurable");
}

std::string GresRefusal(std::string_view element) {
  return absl::StrCat("slurm.sbatch_args \"", std::string(element),
                      "\": slurm option --gres may not be used to configure GPU resources");
}

// The controlled long option `name` ("part", "gpus") abbreviates or names, or nullptr.
const Controlled* ControlledLong(std::string_view name) {
  if (name.empty()) return nullptr;
  for (std::string_view allowed : kAllowedLongNames) {
    if (name == allowed) return nullptr;
  }
  for (const Controlled& c : kControlled) {
    if (c.long_name == name) return &c;
  }
  // An abbreviation sbatch would read as one of ours (or reject as ambiguous).
  for (const Controlled& c : kControlled) {
    if (c.long_name.substr(0, name.size()) == name) return &c;
  }
  return nullptr;
}

// Upstream refuses --gres=gpu..., leaving other GRES (licenses, nics) to the user.
bool GresNamesGpu(std::string_view list) {
  while (true) {
    const size_t comma = list.find(',');
    std::string_view entry = list.substr(0, comma);
    if (Trim(entry.substr(0, entry.find(':'))) == "gpu") return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

absl::Status CheckUserSbatchArgs(const std::vector<std::string>& args) {
  std::vector<std::string> refusals;
  bool next_is_value = false;     // the previous word was an option waiting for its value
  bool next_is_gres = false;      // ... and that option was --gres
  for (const std::string& element : args) {
    std::string_view word = Trim(element);
    if (next_is_value) {
      next_is_value = false;
      if (next_is_gres && GresNamesGpu(word)) {
        refusals.push_back(GresRefusal(element));
      }
      next_is_gres = false;
      continue;
    }
    // "--nodes 2" written as one word: the option is its first part.
    std::string_view value_after_space;
    if (size_t space = word.find_first_of(" \t"); space != std::string_view::npos && word.size() > 1 &&
                                                 word[0] == '-') {
      value_after_space = Trim(word.substr(space));
      word = word.substr(0, space);
    }
    if (word.starts_with("--")) {
      std::string_view body = word.substr(2);
      size_t eq = body.find('=');
      std::string_view name = body.substr(0, eq);
      if (const Controlled* c = ControlledLong(name)) {
        refusals.push_back(Refusal(element, absl::StrCat("--", std::string(c->long_name))));
        continue;
      }
      if (!name.empty() && std::string_view("gres").substr(0, name.size()) == name && name.size() >= 3) {
        if (eq != std::string_view::npos) {
          if (GresNamesGpu(body.substr(eq + 1))) {
            refusals.push_back(GresRefusal(element));
          }
        } else if (!value_after_space.empty()) {
          if (GresNamesGpu(value_after_space)) {
            refusals.push_back(GresRefusal(element));
          }
        } else {
          next_is_value = next_is_gres = true;
        }
      }
      // Other options: whether their value is the next word is unknown here; a value that looks like
      // an option ("--comment", "-N") is then read as one and refused, which errs on the safe side.
      continue;
    }
    if (word.size() >= 2 && word[0] == '-') {
      // A group of short options; the first that takes a value takes the rest of the word.
      for (size_t i = 1; i < word.size(); ++i) {
        const char opt = word[i];
        bool refused = false;
        for (const Controlled& c : kControlled) {
          if (c.short_name != '\0' && c.short_name == opt) {
            refusals.push_back(Refusal(element, std::string("-") + opt));
            refused = true;
            break;
          }
        }
        if (refused) break;
        if (kShortWithValue.find(opt) != std::string_view::npos) {
          if (i + 1 == word.size() && value_after_space.empty()) next_is_value = true;
          break;
        }
      }
    }
  }
  if (refusals.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(refusals, "; "));
}

absl::StatusOr<std::vector<std::string>> SbatchArgs(const SubmitRequest& request) {
  if (request.nodes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("slurm: nodes must be >= 1, got ", request.nodes));
  }
  if (request.ntasks_per_node < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("slurm: ntasks_per_node must be >= 1, got ", request.ntasks_per_node));
  }
  if (request.gpus_per_node < 0 || request.gpus_per_task < 0 || request.cpus_per_task < 0 || request.ntasks < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slurm: ntasks, gpus_per_node, gpus_per_task and cpus_per_task must be >= 0, got ", request.ntasks, ", ",
        request.gpus_per_node, ", ", request.gpus_per_task, " and ", request.cpus_per_task));
  }
  if (request.gpus_per_task > 0 && (request.ntasks == 0 || request.gres)) {
    return absl::InvalidArgumentError("slurm: gpus_per_task needs ntasks and TRES (GRES counts GPUs per node)");
  }
  if (request.gpu_type.find_first_of(":,= ") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("slurm: gpu_type \"", request.gpu_type, "\" must not contain ':', ',', '=' or spaces"));
  }
  if (absl::Status s = CheckUserSbatchArgs(request.user_sbatch_args); !s.ok()) return s;

  std::vector<std::string> args = {"--parsable"};
  if (!request.partition.empty()) args.push_back(absl::StrCat("--partition=", request.partition));
  if (!request.job_name.empty()) args.push_back(absl::StrCat("--job-name=", request.job_name));
  if (!request.wckey.empty()) args.push_back(absl::StrCat("--wckey=", request.wckey));
  if (request.ntasks > 0) {
    args.push_back(absl::StrCat("--ntasks=", request.ntasks));
  } else {
    args.push_back(absl::StrCat("--nodes=", request.nodes));
    args.push_back(absl::StrCat("--ntasks-per-node=", request.ntasks_per_node));
  }
  if (request.cpus_per_task > 0) args.push_back(absl::StrCat("--cpus-per-task=", request.cpus_per_task));
  const std::string typed = request.gpu_type.empty() ? "" : absl::StrCat(request.gpu_type, ":");
  if (request.gpus_per_task > 0) {
    args.push_back(absl::StrCat("--gpus-per-task=", typed, request.gpus_per_task));
  } else if (request.gpus_per_node > 0) {
    args.push_back(request.gres
                       ? absl::StrCat("--gres=gpu:", typed, request.gpus_per_node)
                       : absl::StrCat("--gpus-per-node=", typed, request.gpus_per_node));
  }
  if (!request.output_path.empty()) args.push_back(absl::StrCat("--output=", request.output_path));
  // --export=ALL,K=V: sbatch splits the list at commas, so a value with one cannot travel this way.
  std::string exports = "ALL";
  for (const auto& [name, value] : request.env) {
    if (name.empty() || name.find_first_of("=, ") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("slurm: environment variable name \"", name,
                                                     "\" must not be empty or contain '=', ',' or spaces"));
    }
    if (value.find(',') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("slurm: environment variable ", name, "=\"", value,
                                                     "\" contains ',', which --export cannot carry; "
                                                     "set it in the batch script instead"));
    }
    absl::StrAppend(&exports, ",", name, "=", value);
  }
  args.push_back(absl::StrCat("--export=", exports));
  args.insert(args.end(), request.user_sbatch_args.begin(), request.user_sbatch_args.end());
  return args;
}

}  // namespace det::master::slurm
