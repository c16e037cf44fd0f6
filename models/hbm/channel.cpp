#include "models/hbm/channel.h"

#include <string>

#include "sim/errors.h"

namespace t3sim::hbm {
namespace {

size_t waiter_index(BusDir d) { return d == BusDir::kRead ? 0 : 1; }

}  // namespace

Channel::Channel(ChannelEnv& env, std::unique_ptr<ArbitrationPolicy> policy)
    : env_(env), policy_(std::move(policy)) {
  const uint32_t rc = env.timing.read_capacity;
  const uint32_t wc = env.timing.write_capacity;
  queues_[static_cast<size_t>(SubQueue::kComputeRead)].reserve(rc);
  queues_[static_cast<size_t>(SubQueue::kCommRead)].reserve(rc);
  queues_[static_cast<size_t>(SubQueue::kComputeWrite)].reserve(wc);
  queues_[static_cast<size_t>(SubQueue::kCommWrite)].reserve(wc);
  pipeline_.reserve(rc + wc);
  waiters_[0].reserve(16);
  waiters_[1].reserve(16);
}

bool Channel::try_accept(const common::MemRequest& req) {
  const BusDir dir = direction(req.cmd);
  uint32_t& n = count(dir);
  refused_by_policy_ = false;
  if (n >= capacity(dir)) return false;
  if (!policy_->admit(req, queued())) {
    refused_by_policy_ = true;  // retry when the queue drains (see add_waiter)
    return false;
  }
  const Tick now = env_.sim.now();
  Queued e{req, seq_++};
  e.req.enqueued = now;
  queues_[static_cast<size_t>(sub_queue_of(req))].push(e);
  ++n;
  ++env_.outstanding;
  env_.stats.queue_depth.add(now, 1);
  kick();
  return true;
}

void Channel::add_waiter(BusDir dir, common::MemClient* c) {
  waiters_[waiter_index(dir)].push(c);
  if (!refused_by_policy_ && count(dir) < capacity(dir)) {
    env_.sim.call_at<Channel, &Channel::wake_later>(env_.sim.now(), this,
                                                    static_cast<uint64_t>(dir));
  }
}

void Channel::set_policy(std::unique_ptr<ArbitrationPolicy> p) {
  policy_ = std::move(p);
  if (queued() > 0) kick();
  wake_waiters(BusDir::kRead);  // a new policy may admit what the old one refused
  wake_waiters(BusDir::kWrite);
}

ChannelView Channel::view() const {
  ChannelView v;
  v.now = env_.sim.now();
  v.last_dir = last_dir_;
  v.read_capacity = env_.timing.read_capacity;
  v.write_capacity = env_.timing.write_capacity;
  for (size_t q = 0; q < kNumSubQueues; ++q) {
    v.count[q] = static_cast<uint32_t>(queues_[q].size());
    v.head[q] = queues_[q].empty() ? nullptr : &queues_[q].front();
  }
  return v;
}

// Arbitrate as soon as the bus is free (never earlier than a pending arbitration).
void Channel::kick() {
  const Tick t = max(env_.sim.now(), busy_until_);
  if (!bus_event_.scheduled() || bus_event_.when() > t) {
    env_.sim.schedule(bus_event_, t, Priority::kArbitrate);
  }
}

void Channel::on_bus_free() {
  if (queued() == 0) return;
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
  start_service(static_cast<SubQueue>(d.pick));
  if (queued() > 0) env_.sim.schedule(bus_event_, busy_until_, Priority::kArbitrate);
  // Occupancy fell: waiters of either direction may now fit or pass the policy's admission.
  wake_waiters(BusDir::kRead);
  wake_waiters(BusDir::kWrite);
}

BusDir Channel::start_service(SubQueue q) {
  const Queued e = queues_[static_cast<size_t>(q)].pop();
  const common::MemRequest& r = e.req;
  const BusDir dir = direction(r.cmd);
  --count(dir);
  const Tick now = env_.sim.now();
  const ChannelTiming& t = env_.timing;
  Tick start = now;
  if (last_dir_ != BusDir::kNone && last_dir_ != dir) {
    // The bus needs `turnaround` after the last transfer of the other direction.
    start = max(now, busy_until_ + t.turnaround);
    env_.stats.turnarounds.inc();
    env_.stats.turnaround_ps.inc((start - now).count_ps());
  }
  Duration occupancy = transfer_time(Bytes(r.bytes), t.bus);
  if (r.cmd == common::MemCmd::kUpdate) {
    const Duration nmc = transfer_time(Bytes(r.bytes), t.nmc);
    env_.stats.nmc_busy_ps.inc(nmc.count_ps());
    occupancy += nmc;
  }
  busy_until_ = start + occupancy;
  last_dir_ = dir;
  env_.stats.bus_busy_ps.inc(occupancy.count_ps());
  env_.stats.queue_depth.add(now, -1);
  env_.stats.on_service(start, r);
  policy_->on_service(r, start, busy_until_);
  pipeline_.push(InFlight{busy_until_ + t.latency, r});
  if (!done_event_.scheduled()) env_.sim.schedule(done_event_, pipeline_.front().done);
  return dir;
}

void Channel::on_complete() {
  const Tick now = env_.sim.now();
  while (!pipeline_.empty() && pipeline_.front().done <= now) {
    const common::MemRequest req = pipeline_.pop().req;
    --env_.outstanding;
    env_.stats.on_complete(now, req);
    if (req.cmd == common::MemCmd::kUpdate && req.tile != common::kNoTile && env_.observer) {
      env_.observer->update_done(req);
    }
    if (req.client != nullptr) req.client->mem_done(req);
  }
  if (!pipeline_.empty()) env_.sim.schedule(done_event_, pipeline_.front().done);
}

void Channel::wake_waiters(BusDir d) {
  RingBuffer<common::MemClient*>& w = waiters_[waiter_index(d)];
  // Only the waiters present now: one refused again by admission re-queues itself for later.
  for (size_t n = w.size(); n > 0 && !w.empty() && count(d) < capacity(d); --n) {
    common::MemClient* c = w.pop();
    env_.stats.retries.inc();
    c->mem_retry();
  }
}

}  // namespace t3sim::hbm
