// The events a Kineto import reads, held compactly: each event is encoded as CBOR
// (nlohmann::json::to_cbor, RFC 8949) into a byte arena of 16 MiB chunks (so it never copies
// itself to grow) and decoded back to a JSON value when read. A trimmed kernel, runtime launch or
// cpu_op takes about 150-400 bytes of CBOR plus an 8-byte offset, against ~2 KB as a parsed
// nlohmann::json object (a map node, a key string and a value per member), so the kept events
// take less memory than their text in the file. Readers index the store (`events[i]`) and get a
// value: keep the value or the index, never a pointer into it. Decoding is exact: numbers keep
// their type (signed, unsigned, double) and objects their keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace t3sim::workload {

class KinetoEvents {
 public:
  KinetoEvents() = default;
  // Every element of the JSON array `events`, in order (the whole-document import).
  static KinetoEvents of_array(const nlohmann::json& events);

  // Appends `event` (any JSON value) as the last event.
  void push_back(const nlohmann::json& event);
  // Event `i` (i < size()), decoded.
  nlohmann::json operator[](std::size_t i) const;
  std::size_t size() const { return offsets_.size(); }
  bool empty() const { return offsets_.empty(); }
  // Bytes held: the events' CBOR and their places (not counting spare capacity).
  std::size_t bytes() const { return arena_bytes_ + offsets_.size() * sizeof(std::uint64_t); }

 private:
  static constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
  // The events' CBOR, back to back; an event longer than a chunk gets a chunk of its own.
  std::vector<std::vector<std::uint8_t>> chunks_;
  // Event i's chunk (high 32 bits) and start in it; it ends where i + 1 starts in the same chunk,
  // else at the chunk's end.
  std::vector<std::uint64_t> offsets_;
  std::size_t arena_bytes_ = 0;
  std::vector<std::uint8_t> scratch_;  // the event being pushed
};

}  // namespace t3sim::workload
