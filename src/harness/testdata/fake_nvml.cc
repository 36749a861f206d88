// A stand-in for NVIDIA's libnvidia-ml.so.1 on machines without a GPU: the NVML functions
// NvmlReader calls, answering with what NVML read on a real NVIDIA H200
// (shared/fixtures/gpu-h200/nvml.json, idle: uuid, 150109880320 bytes free). DET_FAKE_GPUS=N shows
// N such GPUs (GPU i's uuid ends in i, as the fake nvidia-smi's), DET_FAKE_GPU_UTIL=P says each is
// P % busy (default 0, as idle).
#include <cstdlib>
#include <cstring>

#include "harness/nvml_api.h"

namespace {

using det::harness::nvml::nvmlDevice_t;
using det::harness::nvml::nvmlMemory_t;
using det::harness::nvml::nvmlReturn_t;
using det::harness::nvml::nvmlUtilization_t;

constexpr char kUuid[] = "GPU-703306b3-2fac-7329-2445-8eeb1fd75108";
constexpr int kNotFound = 6;  // NVML_ERROR_NOT_FOUND

unsigned int Count() {
  const char* n = std::getenv("DET_FAKE_GPUS");
  return n ? static_cast<unsigned int>(std::atoi(n)) : 1;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() { return 0; }
nvmlReturn_t nvmlShutdown() { return 0; }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = Count();
  return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (index >= Count()) return kNotFound;
  *device = reinterpret_cast<void*>(static_cast<unsigned long>(index) + 1);
  return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  const unsigned long index = reinterpret_cast<unsigned long>(device) - 1;
  char text[sizeof kUuid];
  std::memcpy(text, kUuid, sizeof kUuid);
  if (index != 0) {
    const unsigned int i = static_cast<unsigned int>(index % 100);
    text[sizeof kUuid - 3] = static_cast<char>('0' + i / 10);
    text[sizeof kUuid - 2] = static_cast<char>('0' + i % 10);
  }
  if (length < sizeof text) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::memcpy(uuid, text, sizeof text);
  return 0;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t* util) {
  const char* p = std::getenv("DET_FAKE_GPU_UTIL");
  util->gpu = p ? static_cast<unsigned int>(std::atoi(p)) : 0;
  util->memory = 0;
  return 0;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t* memory) {
  memory->total = 150754820096ULL;
  memory->used = 644939776ULL;
  memory->free = 150109880320ULL;
  return 0;
}

}  // extern "C"
