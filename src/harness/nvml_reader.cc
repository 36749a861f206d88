#include "harness/nvml_reader.h"

#include <dlfcn.h>

#include <type_traits>

#include "absl/strings/str_cat.h"
#include "harness/nvml_api.h"

namespace det::harness {

using namespace nvml;

struct NvmlReader::Functions {
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  nvmlReturn_t (*device_count)(unsigned int*);
  nvmlReturn_t (*handle_by_index)(unsigned int, nvmlDevice_t*);
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned int);
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*);
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*);
};

absl::StatusOr<std::unique_ptr<NvmlReader>> NvmlReader::Open(const std::string& library) {
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return absl::NotFoundError(
        absl::StrCat("cannot load ", library, ": ", why ? why : "unknown error"));
  }
  auto fns = std::make_unique<Functions>();
  std::string missing;
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
    if (fn == nullptr) absl::StrAppend(&missing, missing.empty() ? "" : ", ", name);
  };
  bind(fns->init, "nvmlInit_v2");
  bind(fns->shutdown, "nvmlShutdown");
  bind(fns->device_count, "nvmlDeviceGetCount_v2");
  bind(fns->handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(fns->uuid, "nvmlDeviceGetUUID");
  bind(fns->utilization, "nvmlDeviceGetUtilizationRates");
  bind(fns->memory, "nvmlDeviceGetMemoryInfo");
  if (!missing.empty()) {
    ::dlclose(handle);
    return absl::InternalError(absl::StrCat(library, " lacks ", missing));
  }
  if (nvmlReturn_t rc = fns->init(); rc != 0) {
    ::dlclose(handle);
    return absl::InternalError(absl::StrCat("nvmlInit_v2 failed with NVML error ", rc));
  }
  return std::unique_ptr<NvmlReader>(new NvmlReader(handle, std::move(fns)));
}

NvmlReader::NvmlReader(void* handle, std::unique_ptr<Functions> fns)
    : handle_(handle), fns_(std::move(fns)) {}

NvmlReader::~NvmlReader() {
  fns_->shutdown();
  ::dlclose(handle_);
}

absl::StatusOr<std::vector<GpuReading>> NvmlReader::Read() {
  unsigned int count = 0;
  if (nvmlReturn_t rc = fns_->device_count(&count); rc != 0) {
    return absl::InternalError(absl::StrCat("nvmlDeviceGetCount_v2 failed with NVML error ", rc));
  }
  std::vector<GpuReading> out;
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    char uuid[kUuidBufferSize] = {};
    nvmlUtilization_t util{};
    nvmlMemory_t memory{};
    const char* failed = nullptr;
    nvmlReturn_t rc = 0;
    if ((rc = fns_->handle_by_index(i, &device)) != 0) {
      failed = "nvmlDeviceGetHandleByIndex_v2";
    } else if ((rc = fns_->uuid(device, uuid, sizeof uuid)) != 0) {
      failed = "nvmlDeviceGetUUID";
    } else if ((rc = fns_->utilization(device, &util)) != 0) {
      failed = "nvmlDeviceGetUtilizationRates";
    } else if ((rc = fns_->memory(device, &memory)) != 0) {
      failed = "nvmlDeviceGetMemoryInfo";
    }
    if (failed != nullptr) {
      return absl::InternalError(
          absl::StrCat(failed, " of GPU ", i, " failed with NVML error ", rc));
    }
    out.push_back(
        {.uuid = uuid, .gpu_util = static_cast<double>(util.gpu), .gpu_free_memory = memory.free});
  }
  return out;
}

}  // namespace det::harness
