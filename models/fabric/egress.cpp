#include "models/fabric/egress.h"

#include <utility>

namespace t3sim::fabric {

Egress::Egress(Simulator& sim, FlowTable& flows, const std::vector<InPort<Packet>*>& inputs)
    : sim_(sim), flows_(flows), inputs_(inputs), ring_(1), wake_ev_(this) {}

void Egress::push(uint32_t slot) {
  if (count_ == ring_.size()) {  // grow, keeping the round-robin order
    std::vector<uint32_t> bigger(ring_.size() * 2);
    for (uint32_t i = 0; i < count_; ++i) {
      bigger[i] = ring_[(head_ + i) % ring_.size()];
    }
    ring_ = std::move(bigger);
    head_ = 0;
  }
  uint32_t tail = head_ + count_;
  if (tail >= ring_.size()) tail -= static_cast<uint32_t>(ring_.size());
  ring_[tail] = slot;
  ++count_;
}

uint32_t Egress::pop() {
  const uint32_t slot = ring_[head_];
  if (++head_ == ring_.size()) head_ = 0;
  --count_;
  return slot;
}

void Egress::try_send() {
  if (count_ == 0 || wake_ev_.scheduled()) return;
  const Tick now = sim_.now();
  if (link_->busy_until() > now) {
    sim_.schedule(wake_ev_, link_->busy_until());
    return;
  }
  if (!link_->can_send()) return;  // credit_available() resumes
  const uint32_t slot = pop();
  const Packet p = flows_.take(slot);
  const Slot& s = flows_.slot(slot);
  const uint32_t upstream = s.upstream;  // copied: a send may add flows (and move the slots)
  if (s.ready > 0) push(slot);           // round robin: back of the queue
  const Tick end = out_->send(p, Bytes(p.bytes));
  busy_ += end - now;
  if (trace_counter_ != UINT32_MAX) sim_.timeline()->bytes(trace_counter_, now, end, p.bytes);
  if (count_ > 0) sim_.schedule(wake_ev_, end);
  // Last: returning the credit may make the upstream egress send at once (re-entrantly).
  if (upstream != kNone) inputs_[upstream]->release();
}

}  // namespace t3sim::fabric
