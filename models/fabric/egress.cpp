#include "models/fabric/egress.h"

#include "sim/errors.h"

namespace t3sim::fabric {

Egress::Egress(Simulator& sim, FlowTable& flows, const std::vector<InPort<Packet>*>& inputs,
               uint32_t capacity)
    : sim_(sim),
      flows_(flows),
      inputs_(inputs),
      ring_(capacity == 0 ? 1 : capacity),
      wake_ev_(this) {}

void Egress::push(uint32_t slot) {
  if (count_ == ring_.size())
    throw ModelError("fabric", "egress queue overflow (slot counting bug)");
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
  if (s.ready > 0) push(slot);  // round robin: back of the queue
  const Tick end = out_->send(p, Bytes(p.bytes));
  busy_ += end - now;
  if (count_ > 0) sim_.schedule(wake_ev_, end);
  // Last: returning the credit may make the upstream egress send at once (re-entrantly).
  if (s.upstream != kNone) inputs_[s.upstream]->release();
}

}  // namespace t3sim::fabric
