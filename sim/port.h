// Typed ports and links. A Link<Msg> joins one OutPort<Msg> to one InPort<Msg>; it serialises each
// message at the link bandwidth (FIFO, ceil rounding), adds a fixed latency, and optionally limits
// messages in flight with credits (the receiver returns a credit by calling InPort::release()).
// Fidelity: store-and-forward per message; no corruption or reordering. Delivery order = send
// order. Contract: send() may only be called when can_send(); a sender that found no credit is
// woken by CreditListener::credit_available(). Unconnected ports are reported by
// Simulator::elaborate().
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "sim/component.h"
#include "sim/errors.h"
#include "sim/event.h"
#include "sim/units.h"

namespace t3sim {

class PortBase {
 public:
  PortBase(Component& owner, std::string name, bool optional = false)
      : owner_(owner), name_(std::move(name)), optional_(optional) {}
  virtual ~PortBase() = default;
  const std::string& name() const { return name_; }
  Component& owner() const { return owner_; }
  bool connected() const { return connected_; }
  bool optional() const { return optional_; }
  std::string path() const { return owner_.path() + "." + name_; }

 protected:
  void mark_connected(const char* what) {
    if (connected_) throw ModelError(path(), std::string("port connected twice (") + what + ")");
    connected_ = true;
  }

 private:
  Component& owner_;
  std::string name_;
  bool optional_;
  bool connected_ = false;
};

template <class Msg>
class Receiver {
 public:
  virtual ~Receiver() = default;
  virtual void receive(Msg& msg) = 0;
};

class CreditListener {
 public:
  virtual ~CreditListener() = default;
  virtual void credit_available() = 0;
};

template <class Msg>
class Link;

template <class Msg>
class InPort : public PortBase {
 public:
  InPort(Component& owner, std::string name, Receiver<Msg>& rx, bool optional = false)
      : PortBase(owner, std::move(name), optional), rx_(rx) {}
  void deliver(Msg& m) { rx_.receive(m); }
  void release();  // returns one credit to the link (no-op without credits)

 private:
  friend class Link<Msg>;
  Receiver<Msg>& rx_;
  Link<Msg>* link_ = nullptr;
};

template <class Msg>
class OutPort : public PortBase {
 public:
  OutPort(Component& owner, std::string name, CreditListener* listener = nullptr,
          bool optional = false)
      : PortBase(owner, std::move(name), optional), listener_(listener) {}
  bool can_send() const { return link_ && link_->can_send(); }
  // Returns the tick at which the last byte leaves the sender.
  Tick send(const Msg& m, Bytes size) { return link_->send(m, size); }
  Link<Msg>* link() const { return link_; }

 private:
  friend class Link<Msg>;
  CreditListener* listener_;
  Link<Msg>* link_ = nullptr;
};

template <class Msg>
class Link : public Component {
 public:
  // credits == 0 means unlimited.
  Link(Simulator& sim, Component* parent, std::string name, Duration latency, Bandwidth bw,
       uint32_t credits = 0)
      : Component(sim, parent, std::move(name)),
        latency_(latency),
        bw_(bw),
        credits_(credits),
        max_credits_(credits),
        limited_(credits != 0),
        deliver_ev_(this) {
    if (bw.bytes_per_second() == 0) throw ModelError(path(), "link bandwidth must be positive");
    stats().add("bytes", bytes_, "B", "payload bytes carried");
    stats().add("messages", messages_, "count", "messages carried");
    stats().add("busy_ps", busy_ps_, "ps", "time spent serialising");
  }
  void connect(OutPort<Msg>& src, InPort<Msg>& dst) {
    connect_src(src);
    connect_dst(dst);
  }
  void connect_src(OutPort<Msg>& src) {
    src.mark_connected("link source");
    src.link_ = this;
    src_ = &src;
  }
  void connect_dst(InPort<Msg>& dst) {
    dst.mark_connected("link destination");
    dst.link_ = this;
    dst_ = &dst;
  }
  std::string wiring_problem() const override {
    if (src_ == nullptr) return "dangling link: no source port connected";
    if (dst_ == nullptr) return "dangling link: no destination port connected";
    return {};
  }
  bool can_send() const { return !limited_ || credits_ > 0; }
  Bandwidth bandwidth() const { return bw_; }
  Duration latency() const { return latency_; }
  Tick busy_until() const { return busy_until_; }
  uint64_t bytes_carried() const { return bytes_.value(); }

  Tick send(const Msg& m, Bytes size) {
    if (!can_send()) throw ModelError(path(), "send without credit");
    if (limited_) --credits_;
    const Tick start = max(now(), busy_until_);
    if (size.count() != ser_memo_bytes_) {  // packets repeat their sizes: keep the last division
      ser_memo_bytes_ = size.count();
      ser_memo_ = transfer_time(size, bw_);
    }
    const Duration ser = ser_memo_;
    busy_until_ = start + ser;
    busy_ps_.inc(ser.count_ps());
    bytes_.inc(size.count());
    messages_.inc();
    in_flight_.push_back({busy_until_ + latency_, m});
    if (!deliver_ev_.scheduled()) schedule_at(deliver_ev_, in_flight_.front().arrive);
    return busy_until_;
  }
  void return_credit() {
    if (!limited_) return;
    if (credits_ == max_credits_) {
      throw ModelError(path(), "credit returned with none outstanding (all " +
                                   std::to_string(max_credits_) + " already free)");
    }
    ++credits_;
    if (src_ && src_->listener_) src_->listener_->credit_available();
  }
  void finish() override {
    if (!in_flight_.empty()) {
      throw ModelError(path(), std::to_string(in_flight_.size()) + " messages still in flight");
    }
  }

 private:
  struct InFlight {
    Tick arrive;
    Msg msg;
  };
  void deliver() {
    InFlight f = std::move(in_flight_.front());
    in_flight_.pop_front();
    if (!in_flight_.empty()) schedule_at(deliver_ev_, in_flight_.front().arrive);
    dst_->deliver(f.msg);
  }

  Duration latency_;
  Bandwidth bw_;
  uint32_t credits_;
  uint32_t max_credits_;
  bool limited_;
  Tick busy_until_{};
  uint64_t ser_memo_bytes_ = 0;  // send()'s last size and its serialisation time
  Duration ser_memo_{};
  std::deque<InFlight> in_flight_;
  OutPort<Msg>* src_ = nullptr;
  InPort<Msg>* dst_ = nullptr;
  MemberEvent<Link, &Link::deliver> deliver_ev_;
  Counter bytes_;
  Counter messages_;
  Counter busy_ps_;
};

template <class Msg>
void InPort<Msg>::release() {
  if (link_) link_->return_credit();
}

}  // namespace t3sim
