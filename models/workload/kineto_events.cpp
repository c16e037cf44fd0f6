#include "models/workload/kineto_events.h"

#include <algorithm>

namespace t3sim::workload {
namespace {

constexpr std::uint64_t kOffsetMask = 0xffffffffu;

}  // namespace

KinetoEvents KinetoEvents::of_array(const nlohmann::json& events) {
  KinetoEvents out;
  out.offsets_.reserve(events.size());
  for (const nlohmann::json& e : events) out.push_back(e);
  return out;
}

void KinetoEvents::push_back(const nlohmann::json& event) {
  scratch_.clear();
  nlohmann::json::to_cbor(event, scratch_);
  if (chunks_.empty() || chunks_.back().size() + scratch_.size() > chunks_.back().capacity()) {
    chunks_.emplace_back().reserve(std::max(kChunkBytes, scratch_.size()));
  }
  std::vector<std::uint8_t>& chunk = chunks_.back();
  offsets_.push_back((std::uint64_t{chunks_.size() - 1} << 32) | chunk.size());
  chunk.insert(chunk.end(), scratch_.begin(), scratch_.end());
  arena_bytes_ += scratch_.size();
}

nlohmann::json KinetoEvents::operator[](std::size_t i) const {
  const std::uint64_t chunk = offsets_[i] >> 32;
  const std::uint64_t begin = offsets_[i] & kOffsetMask;
  const std::vector<std::uint8_t>& bytes = chunks_[chunk];
  const bool next_here = i + 1 < offsets_.size() && offsets_[i + 1] >> 32 == chunk;
  const std::uint64_t end = next_here ? offsets_[i + 1] & kOffsetMask : bytes.size();
  return nlohmann::json::from_cbor(bytes.data() + begin, bytes.data() + end);
}

}  // namespace t3sim::workload
