#include "models/hbm/channel.h"

#include <algorithm>
#include <string>

#include "sim/errors.h"

namespace t3sim::hbm {
namespace {

size_t waiter_index(BusDir d) { return d == BusDir::kRead ? 0 : 1; }
BusDir dir_of(int q) { return (bit(q) & kReadMask) != 0 ? BusDir::kRead : BusDir::kWrite; }

}  // namespace

Duration ChannelTiming::service(common::MemCmd cmd, uint64_t bytes) const {
  const Duration t = transfer_time(Bytes(bytes), bus);
  if (cmd != common::MemCmd::kUpdate) return t;
  return t + (update == UpdateMode::kBusRmw ? t : transfer_time(Bytes(bytes), nmc));
}

Channel::Channel(ChannelEnv& env, std::unique_ptr<ArbitrationPolicy> policy)
    : env_(env), policy_(std::move(policy)) {
  if (env.timing.bank != nullptr) {
    banks_ = std::make_unique<BankSet>(*env.timing.bank, env.timing.channels, env.timing.interleave,
                                       env.timing.pim);
    lookahead_banks_.assign((banks_->banks() + 63) / 64, 0);
  }
  // The rings grow on first use: a sub-queue or pipeline a run never uses (the in-bank pipeline
  // without bank fidelity, the classes a collective does not send) allocates nothing, which
  // spares start-up page faults over a GPU's 80 channels.
}

bool Channel::try_accept(const common::MemRequest& req) {
  const BusDir dir = direction(req.cmd);
  const Tick now = env_.sim.now();
  refused_by_policy_ = false;
  refused_bytes_ = req.bytes;
  if (!fits(dir, req.bytes)) return false;
  if (!policy_->admit(req, queued_bytes(), now)) {
    refused_by_policy_ = true;  // retry when the queue drains (see add_waiter) or at readmit_at()
    const Tick t = policy_->readmit_at();
    if (t != Tick::max() && (!readmit_event_.scheduled() || readmit_event_.when() > t)) {
      env_.sim.schedule(readmit_event_, max(t, now), Priority::kArbitrate);
    }
    return false;
  }
  const auto q = static_cast<int>(sub_queue_of(req));
  Queued e{req, seq_++, req.bytes};
  e.req.enqueued = now;
  queues_[static_cast<size_t>(q)].push(e);
  bytes_[static_cast<size_t>(q)] += req.bytes;
  ++entries_;
  ++env_.outstanding;
  env_.stats.queue_depth.add(now, 1);
  on_arrival(q);
  return true;
}

void Channel::add_waiter(BusDir dir, common::MemClient* c) {
  RingBuffer<common::MemClient*>& w = waiters_[waiter_index(dir)];
  if (!w.contains(c)) w.push(c);  // one place per client (MemTarget::wait_for_space)
  if (!refused_by_policy_ && fits(dir, refused_bytes_)) {
    env_.sim.call_at<Channel, &Channel::wake_later>(env_.sim.now(), this,
                                                    static_cast<uint64_t>(dir));
  }
}

void Channel::set_policy(std::unique_ptr<ArbitrationPolicy> p) {
  policy_ = std::move(p);
  if (serving_ < 0 && entries_ > 0) {
    env_.sim.schedule(bus_event_, env_.sim.now(), Priority::kArbitrate);
  } else if (serving_ >= 0 && next_boundary(env_.sim.now()) < seg_end_) {
    env_.sim.schedule(bus_event_, next_boundary(env_.sim.now()), Priority::kArbitrate);
  }
  wake_waiters(BusDir::kRead);  // a new policy may admit what the old one refused
  wake_waiters(BusDir::kWrite);
}

ChannelView Channel::view() const {
  ChannelView v;
  v.now = env_.sim.now();
  v.last_dir = last_dir_;
  v.read_capacity = env_.timing.read_capacity.count();
  v.write_capacity = env_.timing.write_capacity.count();
  for (size_t q = 0; q < kNumSubQueues; ++q) {
    v.bytes[q] = bytes_[q];
    v.head[q] = queues_[q].empty() ? nullptr : &queues_[q].front();
    if (banks_ && v.head[q] != nullptr) {
      const Queued& h = *v.head[q];
      if (banks_->row_hit(h.req.addr + (h.req.bytes - h.remaining)))
        v.hit_mask |= bit(static_cast<int>(q));
    }
  }
  return v;
}

// First burst boundary of the current segment at or after `now` (the segment start while the bus
// still waits for its turnaround).
Tick Channel::next_boundary(Tick now) const {
  if (now <= seg_start_) return seg_start_;
  const uint64_t tb = std::max<uint64_t>(1, burst_time_.count_ps());
  const uint64_t k = ((now - seg_start_).count_ps() + tb - 1) / tb;
  return seg_start_ + Duration::ps(k * tb);
}

void Channel::on_arrival(int q) {
  if (arbitrating_) {  // on_bus_free arbitrates after waking its waiters
    arrived_mask_ |= bit(q);
    return;
  }
  const Tick now = env_.sim.now();
  if (serving_ < 0) {
    if (!bus_event_.scheduled() || bus_event_.when() > now) {
      env_.sim.schedule(bus_event_, now, Priority::kArbitrate);
    }
    return;
  }
  if (!policy_->preempts(view(), serving_, q)) return;
  const Tick b = next_boundary(now);
  if (b < seg_end_ && bus_event_.when() > b) env_.sim.schedule(bus_event_, b, Priority::kArbitrate);
}

void Channel::on_bus_free() {
  arbitrating_ = true;
  if (serving_ >= 0) settle(env_.sim.now());
  if (entries_ > 0) arbitrate();
  // Occupancy fell: waiters of either direction may now fit or pass the policy's admission.
  wake_waiters(BusDir::kRead);
  wake_waiters(BusDir::kWrite);
  arbitrating_ = false;
  const uint8_t arrived = arrived_mask_;
  arrived_mask_ = 0;
  if (serving_ < 0) {
    if (entries_ > 0 && !bus_event_.scheduled()) arbitrate();
    return;
  }
  for (int q = 0; q < static_cast<int>(kNumSubQueues); ++q) {
    if ((arrived & bit(q)) != 0) on_arrival(q);
  }
}

void Channel::arbitrate() {
  const ChannelView v = view();
  const Decision d = policy_->pick(v);
  if (!d.issues()) {
    if (d.wake <= v.now) {
      throw ModelError(env_.path,
                       std::string(policy_->name()) + " idled until a time not in the future");
    }
    if (d.wake != Tick::max()) env_.sim.schedule(bus_event_, d.wake, Priority::kArbitrate);
    return;
  }
  if (d.pick >= static_cast<int>(kNumSubQueues) || v.head[static_cast<size_t>(d.pick)] == nullptr) {
    throw ModelError(env_.path, std::string(policy_->name()) + " picked an empty sub-queue " +
                                    std::to_string(d.pick));
  }
  start_segment(d.pick, d.grant);
}

void Channel::start_segment(int q, uint64_t grant) {
  const Queued& h = queues_[static_cast<size_t>(q)].front();
  seg_bytes_ = grant == 0 ? h.remaining : std::min<uint64_t>(h.remaining, grant);
  const BusDir dir = dir_of(q);
  const Tick now = env_.sim.now();
  const ChannelTiming& t = env_.timing;
  Tick start = now;
  if (last_dir_ != BusDir::kNone && last_dir_ != dir) {
    // The bus needs a turnaround after the last transfer of the other direction.
    Duration turn = t.turnaround;
    if (t.bank != nullptr) turn = last_dir_ == BusDir::kRead ? t.bank->tRTW : t.bank->tWTR;
    start = max(now, last_end_ + turn);
    env_.stats.turnarounds.inc();
    env_.stats.turnaround_ps.inc((start - now).count_ps());
  }
  last_dir_ = dir;
  serving_ = q;
  if (banks_) {
    plan_banks(h, start);
  } else {
    seg_start_ = start;
    burst_time_ = burst_service(h.req.cmd);
    seg_end_ = start + segment_time(h.req.cmd, seg_bytes_);
  }
  env_.sim.schedule(bus_event_, seg_end_, Priority::kArbitrate);
}

// Bank fidelity: the banks decide when the data starts and how fast it moves; bursts are spread
// evenly over the planned segment (for preemption).
void Channel::plan_banks(const Queued& h, Tick start) {
  const ChannelTiming& t = env_.timing;
  const bool nmc = t.update == UpdateMode::kNmc;
  const BankPlan p =
      banks_->plan(h.req, h.req.bytes - h.remaining, seg_bytes_, start, t.bus, t.nmc_bank, nmc);
  env_.stats.activations.inc(p.activations);
  if (p.first_hit) env_.stats.row_hits.inc();
  seg_start_ = p.data_start;
  seg_end_ = p.data_end;
  if (h.req.cmd == common::MemCmd::kUpdate && t.update == UpdateMode::kBusRmw) {
    seg_end_ += transfer_time(Bytes(seg_bytes_), t.bus);  // the read-back pass
  }
  nmc_done_ = h.req.cmd == common::MemCmd::kUpdate && nmc ? p.nmc_done : seg_end_;
  look_ahead(h, start);
  const uint64_t span = (seg_end_ - seg_start_).count_ps();
  burst_time_ = Duration::ps(std::max<uint64_t>(1, span * t.burst.count() / seg_bytes_));
}

// Opens ahead the rows the next queued requests need: per sub-queue the next kLookahead entries,
// the first request per bank only (a later one to the same bank must not close its row).
void Channel::look_ahead(const Queued& serving, Tick start) {
  std::fill(lookahead_banks_.begin(), lookahead_banks_.end(), uint64_t{0});
  const auto claim = [&](uint64_t addr) {
    const uint32_t b = banks_->bank_of(addr);
    uint64_t& word = lookahead_banks_[b / 64];
    const uint64_t m = uint64_t{1} << (b % 64);
    const bool first = (word & m) == 0;
    word |= m;
    return first;
  };
  claim(serving.req.addr + (serving.req.bytes - serving.remaining));
  for (const auto& queue : queues_) {
    for (size_t i = 0; i < queue.size() && i < kLookahead; ++i) {
      const Queued& e = queue[i];
      if (&e == &serving) continue;
      const uint64_t addr = e.req.addr + (e.req.bytes - e.remaining);
      if (claim(addr) && banks_->prepare(addr, start)) env_.stats.activations.inc();
    }
  }
}

// Accounts the bytes the current segment moved up to `now` (a burst boundary or its end).
void Channel::settle(Tick now) {
  const auto qi = static_cast<size_t>(serving_);
  Queued& h = queues_[qi].front();
  uint64_t served = seg_bytes_;
  if (now < seg_end_) {
    const uint64_t tb = std::max<uint64_t>(1, burst_time_.count_ps());
    const uint64_t k = now <= seg_start_ ? 0 : (now - seg_start_).count_ps() / tb;
    served = std::min<uint64_t>(seg_bytes_, k * env_.timing.burst.count());
  }
  const Tick end = max(seg_start_, std::min(now, seg_end_));
  if (served > 0) {
    const Duration busy = end - seg_start_;
    env_.stats.bus_busy_ps.inc(busy.count_ps());
    if (h.req.cmd == common::MemCmd::kUpdate && env_.timing.update == UpdateMode::kNmc && !banks_) {
      env_.stats.nmc_busy_ps.inc(transfer_time(Bytes(served), env_.timing.nmc).count_ps());
    }
    env_.stats.on_service(seg_start_, h.req, served);
    if (!env_.trace_counters.empty()) trace_service(h.req.cls, end, served);
    policy_->on_service(h.req, served, seg_start_, end);
    last_end_ = end;
  }
  if (banks_ && served < seg_bytes_) banks_->truncate(served);
  h.remaining -= static_cast<uint32_t>(served);
  bytes_[qi] -= served;
  serving_ = -1;
  if (h.remaining == 0) finish_transfer(static_cast<int>(qi));
}

// Timeline: the bytes served, by traffic class and by stack (bandwidth counters).
void Channel::trace_service(common::TrafficClass cls, Tick end, uint64_t served) {
  Timeline& tl = *env_.sim.timeline();
  const auto& ids = env_.trace_counters;
  tl.bytes(ids[static_cast<size_t>(cls)], seg_start_, end, served);
  tl.bytes(ids[common::kNumTrafficClasses + index_ / env_.channels_per_stack], seg_start_, end,
           served);
}

void Channel::finish_transfer(int q) {
  const Queued e = queues_[static_cast<size_t>(q)].pop();
  --entries_;
  const Tick now = env_.sim.now();
  env_.stats.queue_depth.add(now, -1);
  // Bank fidelity: an NMC UPDATE completes after its in-bank RMW, in its own ordered pipeline,
  // so reads and writes behind it are not held up.
  const bool in_bank = banks_ && e.req.cmd == common::MemCmd::kUpdate && nmc_done_ > now;
  const size_t p = in_bank ? 1 : 0;
  last_done_[p] = max(last_done_[p], (in_bank ? nmc_done_ : now) + env_.timing.latency);
  pipelines_[p].push(InFlight{last_done_[p], e.req});
  schedule_completion();
}

void Channel::schedule_completion() {
  Tick next = Tick::max();
  for (const auto& pl : pipelines_) {
    if (!pl.empty()) next = std::min(next, pl.front().done);
  }
  if (next == Tick::max()) return;
  if (!done_event_.scheduled() || done_event_.when() > next) env_.sim.schedule(done_event_, next);
}

void Channel::on_complete() {
  const Tick now = env_.sim.now();
  for (auto& pl : pipelines_) {
    while (!pl.empty() && pl.front().done <= now) {
      const common::MemRequest req = pl.pop().req;
      --env_.outstanding;
      env_.stats.on_complete(now, req);
      if (req.cmd != common::MemCmd::kRead && req.tile != common::kNoTile && env_.observer) {
        env_.observer->update_done(req);
      }
      if (req.client != nullptr) req.client->mem_done(req);
    }
  }
  schedule_completion();
}

// The policy's readmission time passed: re-offer every present waiter once, whatever the
// occupancy (one refused by capacity waits again as usual).
void Channel::on_readmit() {
  for (auto& w : waiters_) {
    for (size_t n = w.size(); n > 0 && !w.empty(); --n) {
      common::MemClient* c = w.pop();
      env_.stats.retries.inc();
      c->mem_retry();
    }
  }
}

void Channel::wake_waiters(BusDir d) {
  RingBuffer<common::MemClient*>& w = waiters_[waiter_index(d)];
  // Only the waiters present now: one refused again re-queues itself for later.
  for (size_t n = w.size(); n > 0 && !w.empty() && queued_bytes(d) < capacity(d); --n) {
    common::MemClient* c = w.pop();
    env_.stats.retries.inc();
    c->mem_retry();
  }
}

}  // namespace t3sim::hbm
