#include "models/gpu/dma_engine.h"

#include <algorithm>

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::gpu {
namespace {
// Tags: (descriptor slot << 32) | (chunk index << 1) | phase, phase 0 = local read, 1 = landed.
constexpr uint64_t kLanded = 1;
}  // namespace

Params dma_params() {
  Params p;
  p.required("engines", ParamKind::kInt, "number of DMA engines per GPU").range(1, 64);
  p.required("bandwidth", ParamKind::kBandwidth, "peak bandwidth of one engine").at_least(1);
  p.required("setup", ParamKind::kDuration, "latency from descriptor ready to first read");
  p.optional("chunk", ParamKind::kBytes, "64 KiB", "transfer granularity of an engine (knob)")
      .at_least(256);
  p.optional("window", ParamKind::kBytes, "256 KiB", "bytes in flight per engine").at_least(256);
  return p;
}

DmaSpec bind_dma(const ConfigNode& node) {
  const BoundParams b = bind(dma_params(), node);
  return DmaSpec{static_cast<uint32_t>(b.integer("engines")), b.bandwidth("bandwidth"),
                 b.duration("setup"), b.bytes("chunk"), b.bytes("window")};
}

DmaEngines::DmaEngines(Simulator& sim, Component* parent, std::string name, int gpu,
                       const DmaSpec& spec, MemStream& local_reads, RemoteMemory& remote)
    : Component(sim, parent, std::move(name)),
      gpu_(gpu),
      spec_(spec),
      reads_(local_reads),
      remote_(remote),
      engines_(spec.engines) {
  stats().add("descriptors", descriptors_, "count", "DMA descriptors executed");
  stats().add("bytes", bytes_, "B", "bytes moved by DMA");
  stats().add("queue_wait_ns", queue_wait_ns_, "ns", "descriptor wait before its engine starts");
}

uint32_t DmaEngines::alloc() {
  if (free_.empty()) {
    descs_.emplace_back();
    return static_cast<uint32_t>(descs_.size() - 1);
  }
  const uint32_t s = free_.back();
  free_.pop_back();
  return s;
}

void DmaEngines::submit(const DmaDescriptor& d) {
  const uint32_t s = alloc();
  const uint32_t e = next_engine_;
  next_engine_ = (next_engine_ + 1) % spec_.engines;
  descs_[s] = Desc{d, 0, 0, e, now() + spec_.setup};
  ++live_;
  descriptors_.inc();
  engines_[e].queue.push_back(s);
  pump(e);
}

// Starts chunks of the engine's head descriptor while the window and pacing allow: a chunk starts
// when its bytes fit in the window beside those in flight, or when nothing is in flight.
void DmaEngines::pump(uint64_t e) {
  Engine& eng = engines_[e];
  while (!eng.queue.empty()) {
    Desc& ds = descs_[eng.queue.front()];
    const uint64_t chunk = std::min<uint64_t>(spec_.chunk.count(), ds.d.bytes - ds.started);
    if (eng.in_flight_bytes > 0 && eng.in_flight_bytes + chunk > spec_.window.count()) return;
    const Tick start = max(max(ds.ready, eng.next_start), now());
    if (start > now()) {
      if (!eng.wake_pending) {
        eng.wake_pending = true;
        sim().call_at<DmaEngines, &DmaEngines::pump_at>(start, this, e);
      }
      return;
    }
    if (ds.started == 0) {
      queue_wait_ns_.sample((now() - ds.ready).to_ns());
      ds.first = now();
    }
    Access a;
    a.addr = ds.d.src_addr + ds.started;
    a.bytes = chunk;
    a.cmd = common::MemCmd::kRead;
    a.cls = ds.d.read_cls;
    a.l2 = ds.d.l2;
    a.done = this;
    a.tag = (static_cast<uint64_t>(eng.queue.front()) << 32) |
            ((ds.started / spec_.chunk.count()) << 1);
    ds.started += chunk;
    eng.in_flight_bytes += chunk;
    eng.next_start = now() + transfer_time(Bytes(chunk), spec_.bandwidth);
    if (ds.started == ds.d.bytes) eng.queue.pop_front();
    reads_.submit(a);
  }
}

void DmaEngines::access_done(uint64_t tag) {
  const auto s = static_cast<uint32_t>(tag >> 32);
  const uint64_t chunk_index = (tag & 0xffffffffULL) >> 1;
  Desc& ds = descs_[s];
  const uint64_t offset = chunk_index * spec_.chunk.count();
  const uint64_t chunk = std::min<uint64_t>(spec_.chunk.count(), ds.d.bytes - offset);
  if ((tag & kLanded) == 0) {  // local read finished: send it on
    RemoteAccess r;
    r.src = gpu_;
    r.dst = ds.d.dst_gpu;
    r.addr = ds.d.dst_addr + offset;
    r.bytes = chunk;
    r.cmd = ds.d.dst_cmd;
    r.cls = ds.d.write_cls;
    r.tile = ds.d.dst_tile;
    r.contrib = ds.d.contrib;
    r.switch_copies = ds.d.switch_copies;
    r.done = this;
    r.tag = tag | kLanded;
    r.flow = ds.d.flow;
    remote_.post(r);
    return;
  }
  const uint32_t e = ds.engine;
  engines_[e].in_flight_bytes -= chunk;
  ds.landed += chunk;
  bytes_.inc(chunk);
  if (ds.landed == ds.d.bytes) {
    if (Timeline* tl = sim().timeline()) {
      tl->async(tl->track(gpu_, "DMA engine " + std::to_string(e)),
                "to GPU " + std::to_string(ds.d.dst_gpu), ds.first, now(), ds.d.flow,
                FlowRole::kThrough);
    }
    const DmaDescriptor d = ds.d;
    free_.push_back(s);
    --live_;
    if (d.done) d.done->access_done(d.tag);  // may submit more descriptors
  }
  pump(e);
}

void DmaEngines::pump_at(uint64_t e) {
  engines_[e].wake_pending = false;
  pump(e);
}

void DmaEngines::finish() {
  if (live_ != 0) throw ModelError(path(), std::to_string(live_) + " DMA descriptors unfinished");
}

}  // namespace t3sim::gpu
