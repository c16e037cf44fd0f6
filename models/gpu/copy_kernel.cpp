#include "models/gpu/copy_kernel.h"

#include <algorithm>

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::gpu {

CopyKernel::CopyKernel(Simulator& sim, Component* parent, std::string name, MemStream& stream,
                       const CopyPattern& pattern, std::vector<uint64_t> bases)
    : Component(sim, parent, std::move(name)),
      stream_(stream),
      p_(pattern),
      bases_(std::move(bases)) {
  if (p_.lanes == 0 || p_.chunk == 0 || p_.inputs == 0 || p_.array_bytes < p_.chunk) {
    throw ModelError(path(), "copy kernel needs lanes, a chunk, inputs and arrays of a chunk");
  }
  if (bases_.size() != p_.inputs + (p_.writes ? 1u : 0u)) {
    throw ModelError(path(), "copy kernel needs one address per input array and the output");
  }
  per_lane_ = std::max<uint64_t>(p_.chunk, p_.array_bytes / p_.lanes / p_.chunk * p_.chunk);
  if (p_.total_bytes != 0) {
    const uint64_t chunks = (p_.total_bytes + p_.chunk - 1) / p_.chunk;
    lane_steps_ = std::max<uint64_t>(1, (chunks + p_.lanes - 1) / p_.lanes);
  }
  stats().add("bytes", moved_, "B", "bytes read and written");
}

void CopyKernel::start() {
  started_ = true;
  started_at_ = now();
  lanes_.assign(p_.lanes, Lane{});
  lanes_left_ = p_.lanes;
  for (uint32_t l = 0; l < p_.lanes; ++l) next_chunk(l);
}

uint64_t CopyKernel::chunk_offset(uint32_t lane, uint64_t step) const {
  return static_cast<uint64_t>(lane) * per_lane_ + (step * p_.chunk) % per_lane_;
}

void CopyKernel::issue(uint32_t lane, uint64_t addr, common::MemCmd cmd) {
  Access a;
  a.addr = addr;
  a.bytes = p_.chunk;
  a.cmd = cmd;
  a.cls =
      cmd == common::MemCmd::kRead ? common::TrafficClass::kRsRead : common::TrafficClass::kRsWrite;
  a.l2 = p_.evict_first ? common::L2Policy::kEvictFirst : common::L2Policy::kDefault;
  a.done = this;
  a.tag = lane;
  ++lanes_[lane].outstanding;
  moved_.inc(p_.chunk);
  stream_.submit(a);
}

void CopyKernel::next_chunk(uint64_t lane64) {
  const auto lane = static_cast<uint32_t>(lane64);
  Lane& l = lanes_[lane];
  if (stopping_ || (lane_steps_ != 0 && l.step >= lane_steps_)) {
    if (--lanes_left_ == 0) {
      finished_at_ = now();
      if (on_done_) on_done_();
    }
    return;
  }
  const uint64_t off = chunk_offset(lane, l.step++);
  l.writing = false;
  for (uint32_t i = 0; i < p_.inputs; ++i) issue(lane, bases_[i] + off, common::MemCmd::kRead);
}

void CopyKernel::access_done(uint64_t tag) {
  const auto lane = static_cast<uint32_t>(tag);
  Lane& l = lanes_[lane];
  if (--l.outstanding > 0) return;
  if (!l.writing && p_.writes) {
    l.writing = true;
    issue(lane, bases_[p_.inputs] + chunk_offset(lane, l.step - 1), common::MemCmd::kWrite);
    return;
  }
  if (p_.pause == Duration{}) {
    next_chunk(lane);
  } else {
    sim().call_at<CopyKernel, &CopyKernel::next_chunk>(now() + p_.pause, this, lane);
  }
}

}  // namespace t3sim::gpu
