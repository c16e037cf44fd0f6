// Events of the engine: intrusive, owned by the component that schedules them (gem5-style member
// events), plus pooled one-shot callbacks (a function pointer, a context pointer and one integer)
// for fire-and-forget work. No std::function and no heap allocation per scheduled event.
// Invariants: an Event is in the queue at most once; re-scheduling a pending event replaces the old
// entry (the old entry becomes stale and is skipped on pop: only the entry whose (band, sequence)
// matches the event's is live).
#pragma once

#include <cstdint>

#include "sim/units.h"

namespace t3sim {

// Priority bands: events at the same tick run in band order, then in insertion order.
enum class Priority : uint8_t {
  kFirst = 0,       // state updates that others at the same tick must see
  kDefault = 50,    // ordinary model work
  kArbitrate = 70,  // arbiters that pick among requests arrived at this tick
  kStats = 90,      // sampling
  kLast = 100,
};

class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  virtual ~Event() = default;

  virtual void process() = 0;
  bool scheduled() const { return order_ != 0; }
  Tick when() const { return when_; }

 private:
  friend class EventQueue;
  Tick when_{};
  uint64_t order_ = 0;  // (band << 56) | sequence of the live queue entry; 0: not scheduled
};

// Calls obj->*Method() when it fires. Declare as a member of the owning component.
template <class T, void (T::*Method)()>
class MemberEvent final : public Event {
 public:
  explicit MemberEvent(T* obj) : obj_(obj) {}
  void process() override { (obj_->*Method)(); }

 private:
  T* obj_;
};

// Signature of pooled one-shot callbacks.
using OneShotFn = void (*)(void* ctx, uint64_t arg);

}  // namespace t3sim
