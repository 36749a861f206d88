#include "agent/harness_libraries.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/subprocess.h"

namespace det::agent {

std::vector<std::filesystem::path> LibrariesFromLdd(const std::string& ldd_output) {
  static const char* kSystem[] = {"libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "ld-linux",
                                  "linux-vdso", "libresolv.so"};
  std::vector<std::filesystem::path> out;
  std::istringstream lines(ldd_output);
  std::string line;
  while (std::getline(lines, line)) {
    // "\tlibfoo.so.1 => /usr/lib/x86_64-linux-gnu/libfoo.so.1 (0x00007f...)"
    const size_t arrow = line.find(" => ");
    if (arrow == std::string::npos) continue;
    const size_t start = arrow + 4;
    const size_t end = line.find(" (", start);
    std::string path = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (path.empty() || path[0] != '/') continue;
    const std::string name = std::filesystem::path(path).filename().string();
    bool system = false;
    for (const char* s : kSystem) system = system || name.rfind(s, 0) == 0;
    if (!system) out.emplace_back(path);
  }
  return out;
}

absl::StatusOr<std::filesystem::path> CollectHarnessLibraries(const std::filesystem::path& python_dir,
                                                              const std::filesystem::path& dest) {
  std::error_code ec;
  std::filesystem::path module;
  for (const auto& entry : std::filesystem::directory_iterator(python_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("_determined", 0) == 0 && entry.path().extension() == ".so") module = entry.path();
  }
  if (module.empty()) {
    return absl::NotFoundError(absl::StrCat("no _determined*.so in ", python_dir.string(), " to find the libraries of"));
  }
  absl::StatusOr<CommandResult> ldd = RunCommand({"ldd", module.string()}, "", {}, std::chrono::seconds(30));
  if (!ldd.ok()) return ldd.status();
  if (ldd->exit_status != 0) return absl::InternalError(absl::StrCat("ldd ", module.string(), ": ", ldd->err));
  std::filesystem::create_directories(dest, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dest.string(), ": ", ec.message()));
  for (const std::filesystem::path& lib : LibrariesFromLdd(ldd->out)) {
    const std::filesystem::path target = dest / lib.filename();
    std::error_code size_ec;
    if (std::filesystem::file_size(target, size_ec) == std::filesystem::file_size(lib, ec) && !size_ec && !ec) continue;
    std::filesystem::copy_file(lib, target, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return absl::InternalError(absl::StrCat("copying ", lib.string(), " to ", dest.string(), ": ", ec.message()));
  }
  return dest;
}

}  // namespace det::agent
