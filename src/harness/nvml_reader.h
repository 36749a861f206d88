#pragma once
// Reads each GPU's utilisation and free memory through NVML, which is loaded at run time
// (libnvidia-ml.so.1, from the driver): nothing is linked, so a build or a machine without NVIDIA's
// driver simply has no reader (Open says why) and reports no GPU figure.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::harness {

struct GpuReading {
  std::string uuid;              // "GPU-..." as nvidia-smi shows it
  double gpu_util = 0;           // percent of the last sample period the GPU was busy
  uint64_t gpu_free_memory = 0;  // bytes
};

class NvmlReader {
 public:
  // Loads `library` and initialises NVML. NotFound when the library cannot be loaded (no driver);
  // Internal when it lacks a function or nvmlInit fails, with NVML's error code.
  static absl::StatusOr<std::unique_ptr<NvmlReader>> Open(
      const std::string& library = "libnvidia-ml.so.1");
  ~NvmlReader();  // nvmlShutdown, then unloads the library
  NvmlReader(const NvmlReader&) = delete;
  NvmlReader& operator=(const NvmlReader&) = delete;

  // One reading of every GPU NVML shows. Thread-compatible: one caller at a time.
  absl::StatusOr<std::vector<GpuReading>> Read();

  struct Functions;

 private:
  NvmlReader(void* handle, std::unique_ptr<Functions> fns);
  void* handle_;
  std::unique_ptr<Functions> fns_;
};

}  // namespace det::harness
