#pragma once
// The few NVML types NvmlReader uses, as NVIDIA's nvml.h declares them (the header is not needed to
// build; the library is loaded at run time). The test stand-in (testdata/fake_nvml.cc) defines its
// functions with these very types, so calls through NvmlReader's pointers have the functions' own
// types.
namespace det::harness::nvml {

using nvmlReturn_t = int;  // 0 = NVML_SUCCESS
using nvmlDevice_t = void*;
struct nvmlUtilization_t {
  unsigned int gpu;     // percent of the last sample period a kernel ran
  unsigned int memory;  // percent of it memory was read or written
};
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr unsigned int kUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

}  // namespace det::harness::nvml
