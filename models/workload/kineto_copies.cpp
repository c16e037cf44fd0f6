#include "models/workload/kineto_copies.h"

#include <string>

namespace t3sim::workload {
namespace {

constexpr std::int64_t kMaxCopyBytes = std::int64_t{1}
                                       << 50;  // the trace format's bound (exclusive)

bool name_contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

CopyKind direction(std::string_view text) {
  if (name_contains(text, "DtoD")) return CopyKind::kDeviceToDevice;
  if (name_contains(text, "PtoP")) return CopyKind::kPeer;
  if (name_contains(text, "HtoD") || name_contains(text, "DtoH") || name_contains(text, "HtoH") ||
      name_contains(text, "HtoA") || name_contains(text, "AtoH")) {
    return CopyKind::kHost;
  }
  return CopyKind::kUnknown;
}

}  // namespace

KinetoCopy kineto_copy(std::string_view name, std::string_view cat, const nlohmann::json* args) {
  KinetoCopy copy;
  if (name_contains(cat, "memset")) {
    // "Memset (Device)"; "(Pinned)", "(Pageable)", "(Unknown)" are not known to be device memory.
    copy.kind = name_contains(name, "(Device)") ? CopyKind::kDeviceSet : CopyKind::kHost;
  } else {
    copy.kind = direction(name);
    if (copy.kind == CopyKind::kUnknown && args != nullptr) {
      const auto kind = args->find("kind");
      if (kind != args->end() && kind->is_string()) copy.kind = direction(kind->get<std::string>());
    }
  }
  if (args != nullptr) {
    const auto bytes = args->find("bytes");
    if (bytes != args->end() && bytes->is_number_integer() && bytes->get<std::int64_t>() >= 1 &&
        bytes->get<std::int64_t>() < kMaxCopyBytes) {
      copy.bytes = bytes->get<std::int64_t>();
    }
  }
  return copy;
}

std::optional<std::int64_t> copy_memory_bytes(const KinetoCopy& copy) {
  if (!copy.bytes) return std::nullopt;
  if (copy.kind == CopyKind::kDeviceSet) return *copy.bytes;
  if (copy.kind == CopyKind::kDeviceToDevice && *copy.bytes < kMaxCopyBytes / 2) {
    return 2 * *copy.bytes;
  }
  return std::nullopt;
}

}  // namespace t3sim::workload
