#include "models/gpu/remote_memory.h"

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::gpu {
namespace {

// Fabric tags: a slot, with one of these for the in-switch reduction's two deliveries.
constexpr uint64_t kCopyInBit = 1ULL << 62;   // a sender's copy is in the switch
constexpr uint64_t kReducedBit = 1ULL << 63;  // the reduced copy reached its destination
constexpr uint64_t kSlotMask = (1ULL << 32) - 1;

}  // namespace

RemoteMemory::RemoteMemory(Simulator& sim, Component* parent, std::string name,
                           common::FabricApi& fabric, std::vector<common::MemTarget*> targets,
                           uint32_t txn_bytes, uint32_t ingress_in_flight)
    : Component(sim, parent, std::move(name)),
      fabric_(fabric),
      gates_(targets.size(), nullptr),
      parked_(targets.size()),
      posted_(targets.size(), 0),
      landed_(targets.size(), 0) {
  for (size_t g = 0; g < targets.size(); ++g) {  // none for a GPU a folded run leaves out
    ingress_.push_back(targets[g] == nullptr
                           ? nullptr
                           : std::make_unique<MemStream>(*targets[g], txn_bytes, ingress_in_flight,
                                                         static_cast<uint16_t>(g)));
  }
  stats().add("messages", messages_, "count", "remote accesses posted");
  stats().add("bytes", bytes_, "B", "bytes posted to other GPUs' memory");
  stats().add("parked", parked_count_, "count", "arrivals parked until the tracker admitted them");
}

void RemoteMemory::post(const RemoteAccess& a) {
  const uint32_t s = slots_.acquire(a);
  ++live_;
  posted_[static_cast<size_t>(a.src)] += a.bytes;
  if (a.switch_copies > 0) {
    post_copy(s);
  } else if (a.src != a.dst) {
    messages_.inc();
    bytes_.inc(a.bytes);
    fabric_.send(a.src, a.dst, Bytes(a.bytes), this, s);
  } else {
    delivered(s);
  }
}

// One GPU's copy joins the reduction of its destination address; the first copy makes the
// access that lands the reduced data, and each adds its contributions to it.
void RemoteMemory::post_copy(uint32_t s) {
  const RemoteAccess a = slots_[s];
  if (folded_) throw ModelError(path(), "in-switch reductions do not fold");
  auto [it, opened] = reducing_.try_emplace({a.dst, a.addr}, 0);
  if (opened) {
    RemoteAccess reduced = a;
    reduced.contrib = 0;
    reduced.done = nullptr;
    reduced.tag = 0;
    it->second = slots_.acquire(reduced);
    ++live_;
  }
  RemoteAccess& reduced = slots_[it->second];
  if (reduced.bytes != a.bytes || reduced.switch_copies != a.switch_copies ||
      reduced.tile != a.tile || reduced.cmd != a.cmd) {
    throw ModelError(path(), "copies for one in-switch reduction at GPU " + std::to_string(a.dst) +
                                 " disagree on size, count, tile or command");
  }
  reduced.contrib = static_cast<uint16_t>(reduced.contrib + a.contrib);
  messages_.inc();
  bytes_.inc(a.bytes);
  common::SwitchReduction r;
  r.dst = a.dst;
  r.contributions = a.switch_copies;
  r.bytes = Bytes(a.bytes);
  r.rx = this;
  r.tag = kReducedBit | it->second;
  fabric_.reduce_in_switch(a.src, -1, r, this, kCopyInBit | s);
}

void RemoteMemory::delivered(uint64_t tag) {
  if ((tag & kCopyInBit) != 0) {  // the switch took the copy: done for its sender
    const auto s = static_cast<uint32_t>(tag & kSlotMask);
    const RemoteAccess a = slots_[s];
    slots_.release(s);
    --live_;
    if (a.done) a.done->access_done(a.tag);
    return;
  }
  if ((tag & kReducedBit) != 0) {
    tag &= kSlotMask;
    const RemoteAccess& a = slots_[tag];
    reducing_.erase({a.dst, a.addr});
  }
  gate(static_cast<uint32_t>(tag));
}

// The access reached its destination: it lands unless the destination's gate parks it.
void RemoteMemory::gate(uint32_t tag) {
  RemoteAccess& a = slots_[tag];
  if (folded_ && a.dst >= rot_.reps()) {
    const int rep = rot_.rep(a.dst);
    if (mirror_ != nullptr) mirror_->to_rep(a.dst, rep, a.addr, a.tile);
    a.dst = rep;
  }
  IngressGate* gate = gates_[static_cast<size_t>(a.dst)];
  if (gate != nullptr && a.tile != common::kNoTile) {
    Parked& p = parked_[static_cast<size_t>(a.dst)];
    auto it = p.by_tile.find(a.tile);
    if (it != p.by_tile.end()) {  // the tile already waits: queue behind it
      it->second.push_back(static_cast<uint32_t>(tag));
      parked_count_.inc();
      return;
    }
    if (!gate->admit_remote(a.tile)) {
      p.by_tile[a.tile].push_back(static_cast<uint32_t>(tag));
      p.order.push_back(a.tile);
      parked_count_.inc();
      return;
    }
  }
  land(static_cast<uint32_t>(tag));
}

void RemoteMemory::unpark_tile(int dst, uint32_t tile) {
  Parked& p = parked_[static_cast<size_t>(dst)];
  auto it = p.by_tile.find(tile);
  if (it == p.by_tile.end()) return;
  const std::vector<uint32_t> slots = std::move(it->second);
  p.by_tile.erase(it);  // its place in `order` becomes stale and is skipped
  for (uint32_t s : slots) land(s);
}

void RemoteMemory::unpark(int dst) {
  Parked& p = parked_[static_cast<size_t>(dst)];
  IngressGate* gate = gates_[static_cast<size_t>(dst)];
  while (!p.order.empty()) {
    const uint32_t tile = p.order.front();
    if (p.by_tile.count(tile) != 0 && !gate->admit_remote(tile)) return;
    p.order.pop_front();
    unpark_tile(dst, tile);
  }
}

void RemoteMemory::land(uint32_t tag) {
  RemoteAccess& a = slots_[tag];
  a.landing = now();
  Access acc;
  acc.addr = a.addr;
  acc.bytes = a.bytes;
  acc.cmd = a.cmd;
  acc.cls = a.cls;
  acc.tile = a.tile;
  acc.contrib = a.contrib;
  acc.done = this;
  acc.tag = tag;
  ingress_[static_cast<size_t>(a.dst)]->submit(acc);
}

void RemoteMemory::access_done(uint64_t tag) {
  const RemoteAccess a = slots_[tag];
  if (Timeline* tl = sim().timeline(); tl != nullptr && (a.src != a.dst || a.switch_copies > 0)) {
    const std::string from = a.switch_copies > 0
                                 ? "reduced in the switch (x" + std::to_string(a.contrib) + ")"
                                 : "from GPU " + std::to_string(a.src);
    tl->async(tl->track(a.dst, "remote updates"),
              from + " " + std::string(common::to_string(a.cls)), a.landing, now(), a.flow,
              FlowRole::kIn);
  }
  landed_[static_cast<size_t>(a.dst)] += a.bytes;
  slots_.release(static_cast<uint32_t>(tag));
  --live_;
  if (a.done) a.done->access_done(a.tag);
}

void RemoteMemory::finish() {
  if (live_ != 0) {
    throw ModelError(path(), std::to_string(live_) + " remote accesses never completed");
  }
}

}  // namespace t3sim::gpu
