#include "models/gpu/l2_residency.h"

#include <algorithm>

namespace t3sim::gpu {

void L2Residency::attach(SliceCache* cache) {
  if (std::find(caches_.begin(), caches_.end(), cache) == caches_.end()) caches_.push_back(cache);
}

void L2Residency::detach(SliceCache* cache) {
  caches_.erase(std::remove(caches_.begin(), caches_.end(), cache), caches_.end());
}

void L2Residency::passed(const common::MemRequest& req) {
  using common::TrafficClass;
  if (req.l2_hit || req.cmd == common::MemCmd::kUpdate) return;
  if (req.cls == TrafficClass::kGemmRead || req.cls == TrafficClass::kGemmWrite ||
      req.cls == TrafficClass::kGemmUpdate) {
    return;
  }
  const common::L2Policy p = req.l2 == common::L2Policy::kDefault ? comm_policy_ : req.l2;
  if (p == common::L2Policy::kNoAllocate) return;
  const bool evict_first = p == common::L2Policy::kEvictFirst;
  (evict_first ? evict_first_ : allocated_) += req.bytes;
  for (SliceCache* c : caches_) c->foreign(req.bytes, evict_first);
}

}  // namespace t3sim::gpu
