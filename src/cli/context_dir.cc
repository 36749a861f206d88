#include "cli/context_dir.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/detignore.h"
#include "cli/format.h"
#include "common/base64.h"
#include "common/file_util.h"

namespace det::cli {
namespace fs = std::filesystem;
namespace {

// A planned entry: what to send, and where to read its bytes from.
struct Planned {
  ContextFile file;
  fs::path source;
  int64_t size = 0;
};

absl::StatusOr<struct stat> Stat(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot stat ", p.string(), ": ", std::strerror(errno)));
  }
  return st;
}

std::string JoinRel(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "/" + name;
}

class Planner {
 public:
  explicit Planner(ContextResult* result) : result_(result) {}

  void AddDir(const std::string& entry_path, const struct stat& st) {
    Planned p;
    p.file.path = entry_path;
    p.file.is_dir = true;
    p.file.mode = st.st_mode;
    p.file.mtime = st.st_mtime;
    planned_.push_back(std::move(p));
  }

  void AddFile(const std::string& entry_path, const fs::path& source, const struct stat& st) {
    Planned p;
    p.file.path = entry_path;
    p.file.mode = st.st_mode;
    p.file.mtime = st.st_mtime;
    p.source = source;
    p.size = st.st_size;
    total_ += st.st_size;
    planned_.push_back(std::move(p));
  }

  // Walks `root` (a directory), naming entries `prefix/rel`.
  absl::Status Walk(const fs::path& root, const std::string& prefix) {
    absl::StatusOr<DetIgnore> ignore = DetIgnore::ForRoot(root);
    if (!ignore.ok()) return ignore.status();
    return WalkDir(root, "", prefix, *ignore);
  }

  int64_t total() const { return total_; }
  std::vector<Planned>& planned() { return planned_; }

 private:
  absl::Status WalkDir(const fs::path& dir, const std::string& rel_dir, const std::string& prefix,
                       const DetIgnore& ignore) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec)
      return absl::PermissionDeniedError(
          absl::StrCat("cannot list ", dir.string(), ": ", ec.message()));
    std::vector<fs::directory_entry> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      entries.push_back(*it);
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a.path().filename() < b.path().filename();
    });
    std::vector<std::pair<fs::path, std::string>> subdirs;
    for (const fs::directory_entry& e : entries) {
      std::string name = e.path().filename().string();
      std::string rel = JoinRel(rel_dir, name);
      std::error_code type_ec;
      bool is_symlink = e.is_symlink(type_ec);
      bool is_dir = e.is_directory(type_ec);  // follows symlinks, like os.walk's listing
      if (is_dir) {
        if (ignore.Ignores(rel, /*is_dir=*/true)) continue;
        absl::StatusOr<struct stat> st = Stat(e.path());
        if (!st.ok()) {
          result_->warnings.push_back(
              absl::StrCat("Error reading '", JoinRel(prefix, rel), "', skipping it."));
          continue;
        }
        AddDir(JoinRel(prefix, rel), *st);
        if (!is_symlink) subdirs.emplace_back(e.path(), rel);  // os.walk does not follow links
        continue;
      }
      if (name == ".detignore") continue;
      if (ignore.Ignores(rel, /*is_dir=*/false)) continue;
      absl::StatusOr<struct stat> st = Stat(e.path());
      if (!st.ok() || !S_ISREG(st->st_mode)) {
        result_->warnings.push_back(
            absl::StrCat("Error reading '", JoinRel(prefix, rel), "', skipping it."));
        continue;
      }
      AddFile(JoinRel(prefix, rel), e.path(), *st);
    }
    for (const auto& [path, rel] : subdirs) {
      absl::Status s = WalkDir(path, rel, prefix, ignore);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  ContextResult* result_;
  std::vector<Planned> planned_;
  int64_t total_ = 0;
};

}  // namespace

absl::StatusOr<ContextResult> ReadContext(const std::optional<fs::path>& root,
                                          const std::vector<fs::path>& includes, int64_t limit) {
  ContextResult result;
  Planner planner(&result);
  if (root.has_value()) {
    std::error_code ec;
    if (!fs::exists(*root, ec)) {
      return absl::NotFoundError(
          absl::StrCat("context directory '", root->string(), "' doesn't exist"));
    }
    if (!fs::is_directory(*root, ec)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "context path '", root->string(), "' must be a directory, maybe use --include instead?"));
    }
    absl::Status s = planner.Walk(fs::canonical(*root, ec), "");
    if (!s.ok()) return s;
  }
  for (const fs::path& inc : includes) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(inc, ec);
    if (ec || !fs::exists(resolved, ec)) {
      return absl::NotFoundError(absl::StrCat("include path '", inc.string(), "' doesn't exist"));
    }
    std::string name = resolved.filename().string();
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unable to determine the name of include '", inc.string(), "'"));
    }
    absl::StatusOr<struct stat> st = Stat(resolved);
    if (!st.ok()) return st.status();
    if (S_ISDIR(st->st_mode)) {
      planner.AddDir(name, *st);
      absl::Status s = planner.Walk(resolved, name);
      if (!s.ok()) return s;
    } else {
      planner.AddFile(name, resolved, *st);
    }
  }

  // Two roots (the context and an include, or two includes) may not claim the same top-level name.
  std::map<std::string, int> roots;
  for (const Planned& p : planner.planned()) {
    if (p.file.path.find('/') == std::string::npos) ++roots[p.file.path];
  }
  for (const auto& [name, n] : roots) {
    if (n > 1)
      return absl::InvalidArgumentError(absl::StrCat("duplicate path detected: '", name, "'"));
  }

  if (planner.total() > limit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the context directory and included files total ", FormatBytes(planner.total()), " (",
        planner.total(), " bytes), more than the maximum allowed size of ", FormatBytes(limit),
        " (", limit, " bytes). List files or subdirectories to leave out in a .detignore file."));
  }

  result.total_bytes = 0;
  for (Planned& p : planner.planned()) {
    if (!p.file.is_dir) {
      absl::StatusOr<std::string> bytes = ReadFile(p.source);
      if (!bytes.ok()) {
        result.warnings.push_back(absl::StrCat("Error reading '", p.file.path, "', skipping it."));
        continue;
      }
      p.file.content = std::move(*bytes);
      result.total_bytes += static_cast<int64_t>(p.file.content.size());
    }
    result.files.push_back(std::move(p.file));
  }
  if (result.total_bytes > limit) {  // a file grew while we read it
    return absl::InvalidArgumentError(absl::StrCat(
        "the context directory and included files total ", FormatBytes(result.total_bytes),
        ", more than the maximum allowed size of ", FormatBytes(limit), "."));
  }
  return result;
}

nlohmann::json ContextToJson(const std::vector<ContextFile>& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const ContextFile& f : files) {
    out.push_back({{"path", f.path},
                   {"type", f.is_dir ? kFileTypeDirectory : kFileTypeRegular},
                   {"content", f.is_dir ? std::string() : Base64Encode(f.content)},
                   {"mtime", std::to_string(f.mtime)},
                   {"mode", f.mode},
                   {"uid", 0},
                   {"gid", 0}});
  }
  return out;
}

}  // namespace det::cli
