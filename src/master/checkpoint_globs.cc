#include "master/checkpoint_globs.h"

#include <fnmatch.h>

#include <algorithm>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace det::master {
namespace {

using Components = std::vector<std::string>;

Components Split(const std::string& path) { return absl::StrSplit(path, '/', absl::SkipEmpty()); }

// Whether `glob` matches a leading run of `path`'s components (the file itself or a directory above it).
bool MatchesAPrefix(std::span<const std::string> glob, std::span<const std::string> path) {
  if (glob.empty()) return true;
  if (glob.front() == "**") {
    // `**` takes none of the components, or one more and stays.
    return MatchesAPrefix(glob.subspan(1), path) || (!path.empty() && MatchesAPrefix(glob, path.subspan(1)));
  }
  if (path.empty()) return false;
  return fnmatch(glob.front().c_str(), path.front().c_str(), 0) == 0 &&
         MatchesAPrefix(glob.subspan(1), path.subspan(1));
}

}  // namespace

absl::Status ValidateCheckpointGlob(const std::string& glob) {
  auto bad = [&glob](const char* why) {
    return absl::InvalidArgumentError(absl::StrCat("checkpointGlobs: \"", glob, "\" ", why));
  };
  if (glob.empty()) return bad("is empty; name files relative to the checkpoint's directory, e.g. \"optimizer/**\"");
  if (glob.front() == '/') return bad("is absolute; globs are relative to the checkpoint's directory");
  Components parts = Split(glob);
  if (parts.empty()) return bad("names no file");
  if (std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p == "." || p == ".."; })) {
    return bad("has a \".\" or \"..\" component; globs stay inside the checkpoint's directory");
  }
  return absl::OkStatus();
}

bool GlobNamesFile(const std::string& glob, const std::string& path) {
  const Components g = Split(glob);
  return !g.empty() && MatchesAPrefix(g, Split(path));
}

bool AnyGlobNamesFile(const std::vector<std::string>& globs, const std::string& path) {
  return std::any_of(globs.begin(), globs.end(), [&path](const std::string& g) { return GlobNamesFile(g, path); });
}

}  // namespace det::master
