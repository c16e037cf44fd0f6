#include "models/fabric/flow_table.h"

#include "sim/errors.h"

namespace t3sim::fabric {

FlowTable::FlowTable(const RouteTable& routes, Bytes packet_size)
    : routes_(routes), packet_size_(packet_size) {
  if (packet_size.count() == 0 || packet_size.count() > std::numeric_limits<uint32_t>::max()) {
    throw ModelError("fabric", "packet_size must be between 1 B and 4 GiB");
  }
}

// Whole paths use the route's flow id (src x n + dst); a segment sets one of the two top bits.
uint32_t FlowTable::key(int src, int dst, Segment seg) const {
  const uint32_t id = routes_.flow(src, dst);
  if (seg == Segment::kWhole) return id;
  if (id >= (1u << 30)) throw ModelError("fabric", "too many GPUs for in-switch segments");
  return id | (seg == Segment::kToSwitch ? 1u << 30 : 1u << 31);
}

uint32_t FlowTable::flow(int src, int dst, Segment seg) {
  const uint32_t k = key(src, dst, seg);
  CacheLine& line = cache_[(k ^ (k >> 30)) % kCacheLines];  // the segment bits spread too
  if (line.key == k) return line.flow;
  if (const auto it = index_.find(k); it != index_.end()) {
    line = CacheLine{k, it->second};
    return it->second;
  }
  std::vector<uint32_t> path = routes_.path(src, dst);
  if (seg != Segment::kWhole) {
    if (path.size() < 2) {
      throw ModelError("fabric", "GPU " + std::to_string(src) + " -> " + std::to_string(dst) +
                                     " crosses no switch: no in-switch segment");
    }
    path = {seg == Segment::kToSwitch ? path.front() : path.back()};
  }
  if (slots_.size() + path.size() > std::numeric_limits<uint32_t>::max()) {
    throw ModelError("fabric", "too many active routes (more than 2^32 hops in use)");
  }
  Flow f;
  f.first = static_cast<uint32_t>(slots_.size());
  f.hops = static_cast<uint32_t>(path.size());
  flows_.push_back(f);
  for (size_t h = 0; h < path.size(); ++h) {
    Slot s;
    s.edge = path[h];
    s.upstream = h == 0 ? kNone : path[h - 1];
    s.last_hop = h + 1 == path.size();
    slots_.push_back(s);
  }
  index_.emplace(k, static_cast<uint32_t>(flows_.size() - 1));
  return static_cast<uint32_t>(flows_.size() - 1);
}

uint32_t FlowTable::first_slot(int src, int dst, Segment seg) {
  return flows_[flow(src, dst, seg)].first;
}

uint32_t FlowTable::allocate() {
  if (free_.empty()) {
    msgs_.emplace_back();
    return static_cast<uint32_t>(msgs_.size() - 1);
  }
  const uint32_t m = free_.back();
  free_.pop_back();
  return m;
}

uint32_t FlowTable::add(int src, int dst, Bytes bytes, common::FabricReceiver* rx, uint64_t tag,
                        Segment seg) {
  const uint32_t id = allocate();
  const uint64_t ps = packet_size_.count();
  const uint64_t packets = bytes.count() == 0 ? 1 : (bytes.count() + ps - 1) / ps;
  if (packets > std::numeric_limits<uint32_t>::max() / 2) {
    throw ModelError("fabric", "message of " + std::to_string(bytes.count()) +
                                   " B has too many packets (raise packet_size)");
  }
  msgs_[id] = Message{src, dst, 0, bytes, static_cast<uint32_t>(packets), kNone, rx, tag};
  if (src == dst) return id;
  msgs_[id].flow = flow(src, dst, seg);
  Flow& f = flows_[msgs_[id].flow];
  if (f.tail != kNone) {
    msgs_[f.tail].next = id;
  } else {
    f.head = id;
  }
  f.tail = id;
  const uint32_t first = f.first;
  const uint32_t end = first + f.hops;
  for (uint32_t s = first; s < end; ++s) {
    if (slots_[s].cur_msg == kNone) {  // this hop has finished every earlier message
      slots_[s].cur_msg = id;
      slots_[s].cur_pkt = 0;
    }
  }
  slots_[first].ready += static_cast<uint32_t>(packets);
  return id;
}

Packet FlowTable::take(uint32_t slot) {
  Slot& s = slots_[slot];
  const Message& m = msgs_[s.cur_msg];
  const uint64_t ps = packet_size_.count();
  const bool last = s.cur_pkt + 1 == m.packets;
  const uint64_t bytes = last ? m.bytes.count() - uint64_t{s.cur_pkt} * ps : ps;
  const Packet p{slot, s.cur_msg, static_cast<uint32_t>(bytes), last ? 1u : 0u};
  --s.ready;
  if (last) {
    s.cur_msg = m.next;
    s.cur_pkt = 0;
  } else {
    ++s.cur_pkt;
  }
  return p;
}

Message FlowTable::complete(uint32_t msg) {
  const Message m = msgs_[msg];
  if (m.src != m.dst) {
    Flow& f = flows_[m.flow];
    if (f.head != msg) throw ModelError("fabric", "message completed out of flow order");
    f.head = m.next;
    if (f.head == kNone) f.tail = kNone;
  }
  free_.push_back(msg);
  return m;
}

}  // namespace t3sim::fabric
