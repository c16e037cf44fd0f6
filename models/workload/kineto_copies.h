// The copies and sets of a PyTorch profiler (Kineto) trace ("gpu_memcpy" / "gpu_memset" events):
// their direction, from the CUPTI name ("Memcpy HtoD (Pinned -> Device)", "Memset (Device)") or
// the ROCm "kind" arg ("HtoD"), and their "bytes". A device-to-device copy reads and writes its
// bytes through HBM, a memset of device memory writes them: both are memory ops. Host copies
// (HtoD, DtoH, HtoH, a memset of host memory) cross PCIe and peer copies (PtoP) cross the GPU
// link, which t3sim's systems do not model for copies: they stay fixed ops with their own reason.
// Source: CUPTI CUpti_ActivityMemcpyKind / CUpti_ActivityMemoryKind names as libkineto writes
// them (pytorch/kineto libkineto/src/output_json.cpp, memcpy and memset events).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace t3sim::workload {

enum class CopyKind {
  kDeviceToDevice,
  kDeviceSet,  // a memset of device memory
  kHost,       // HtoD, DtoH, HtoH, or a memset of host (pinned, pageable) memory
  kPeer,       // PtoP: between two GPUs
  kUnknown,    // a copy whose direction neither its name nor its args say
};

struct KinetoCopy {
  CopyKind kind = CopyKind::kUnknown;
  std::optional<std::int64_t> bytes;  // args "bytes", when a size in [1, 2^50)
};

// `name` and lower-case `cat` of a memcpy or memset event, `args` its args (nullptr: none).
KinetoCopy kineto_copy(std::string_view name, std::string_view cat, const nlohmann::json* args);

// The bytes of the memory op a copy becomes (a device copy: read + written, twice its size; a
// device memset: its size, written), or nullopt when it stays fixed (host or peer copies, unknown
// direction, no byte count).
std::optional<std::int64_t> copy_memory_bytes(const KinetoCopy& copy);

}  // namespace t3sim::workload
