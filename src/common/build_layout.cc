#include "common/build_layout.h"

namespace det {

std::filesystem::path HarnessPythonDir(const std::filesystem::path& bin_dir) {
  std::filesystem::path python = bin_dir / ".." / "python";
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(python, ec);
  return ec ? python.lexically_normal() : canonical;
}

}  // namespace det
