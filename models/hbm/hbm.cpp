#include "models/hbm/hbm.h"

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::hbm {

Hbm::Hbm(Simulator& sim, Component* parent, std::string name, const ConfigNode& cfg)
    : Hbm(sim, parent, std::move(name), HbmConfig::from(cfg)) {}

Hbm::Hbm(Simulator& sim, Component* parent, std::string name, HbmConfig cfg)
    : Component(sim, parent, std::move(name)),
      cfg_(std::move(cfg)),
      map_(cfg_.channels(), cfg_.interleave_bytes),
      env_{sim, path(),
           ChannelTiming{
               cfg_.bus_bandwidth(), cfg_.channel_nmc_bandwidth(), cfg_.latency, cfg_.turnaround,
               cfg_.read_queue, cfg_.write_queue, cfg_.burst, cfg_.update,
               cfg_.fidelity == Fidelity::kBank ? &cfg_.bank : nullptr,
               cfg_.channel_nmc_bandwidth() / cfg_.bank.banks,
               cfg_.fidelity == Fidelity::kBank && cfg_.update == UpdateMode::kNmc && cfg_.pim
                   ? &*cfg_.pim
                   : nullptr,
               cfg_.channels(), cfg_.interleave_bytes},
           stats_},
      policy_(cfg_.policy) {
  stats_.timeline_bin = cfg_.timeline_bin;
  stats_.register_in(stats(), sim, cfg_.channels());
  channels_.reserve(cfg_.channels());
  const PolicyMaker* make = cfg_.maker(policy_);
  if (make == nullptr) throw ModelError(this->path(), "unknown policy '" + policy_ + "'");
  for (uint32_t c = 0; c < cfg_.channels(); ++c) {
    channels_.push_back(std::make_unique<Channel>(env_, (*make)(shape())));
    channels_.back()->set_index(c);
  }
}

void Hbm::trace_as(int pid) {
  Timeline* tl = sim().timeline();
  if (tl == nullptr) return;
  env_.trace_counters.clear();
  for (size_t c = 0; c < common::kNumTrafficClasses; ++c) {
    const auto cls = static_cast<common::TrafficClass>(c);
    env_.trace_counters.push_back(
        tl->counter(pid, "HBM " + std::string(common::to_string(cls)) + " GB/s"));
  }
  for (uint32_t s = 0; s < cfg_.stacks; ++s) {
    env_.trace_counters.push_back(tl->counter(pid, "HBM stack " + std::to_string(s) + " GB/s"));
  }
  env_.channels_per_stack = cfg_.channels_per_stack;
}

ChannelShape Hbm::shape() const {
  return ChannelShape{cfg_.read_queue, cfg_.write_queue, cfg_.bus_bandwidth()};
}

Hbm::~Hbm() = default;

bool Hbm::try_issue(const common::MemRequest& req) {
  if (req.bytes == 0 || map_.block(req.addr) != map_.block(req.addr + req.bytes - 1)) {
    throw ModelError(path(), "request of " + std::to_string(req.bytes) + " B at address " +
                                 std::to_string(req.addr) + " is empty or crosses a " +
                                 std::to_string(map_.interleave()) +
                                 " B interleave block (split it at the interleave size)");
  }
  if (req.cmd == common::MemCmd::kUpdate && cfg_.update == UpdateMode::kNone) {
    throw ModelError(path(), "UPDATE (" + std::string(common::to_string(req.cls)) +
                                 ") sent to an HBM without near-memory compute (\"update\": "
                                 "\"none\"); use \"nmc\" or \"bus-rmw\", or send a WRITE");
  }
  const uint32_t ch = map_.channel(req.addr);
  if (channels_[ch]->try_accept(req)) return true;
  stats_.refusals.inc();
  refused_channel_ = ch;
  refused_dir_ = direction(req.cmd);
  return false;
}

void Hbm::wait_for_space(common::MemClient* c) {
  if (refused_channel_ == UINT32_MAX) {
    throw ModelError(path(), "wait_for_space() called before any refused try_issue()");
  }
  channels_[refused_channel_]->add_waiter(refused_dir_, c);
}

void Hbm::set_policy(std::string_view name) {
  const PolicyMaker* make = cfg_.maker(name);
  if (make == nullptr) {
    std::string names;
    for (const std::string& n : policy_names()) names += (names.empty() ? "" : " | ") + n;
    throw ModelError(path(), "unknown policy '" + std::string(name) + "' (" + names + ")");
  }
  policy_ = std::string(name);
  for (auto& ch : channels_) ch->set_policy((*make)(shape()));
}

uint64_t Hbm::bytes(common::TrafficClass c) const {
  return stats_.cls[static_cast<size_t>(c)].bytes.value();
}

void Hbm::finish() {
  if (env_.outstanding == 0) return;
  uint64_t queued = 0;
  uint64_t in_service = 0;
  size_t first = channels_.size();
  for (size_t c = 0; c < channels_.size(); ++c) {
    const uint64_t busy = channels_[c]->queued() + channels_[c]->in_service();
    if (busy > 0 && first == channels_.size()) first = c;
    queued += channels_[c]->queued();
    in_service += channels_[c]->in_service();
  }
  throw ModelError(path(), std::to_string(env_.outstanding) +
                               " requests outstanding at end of run (" + std::to_string(queued) +
                               " queued, " + std::to_string(in_service) +
                               " in service; first busy channel " + std::to_string(first) + ")");
}

void register_hbm_models(Registry& r) {
  r.add(ComponentType{
      "hbm",
      "HBM of one GPU: channel-level controllers with byte-sized read/write queues, "
      "burst-preemptive service, turnaround, unloaded latency, near-memory UPDATEs and a "
      "policy from the HBM policy table (fr-fcfs, mca)",
      hbm_params,
      nlohmann::json{{"stacks", 4},
                     {"channels_per_stack", 8},
                     {"bandwidth", "1 TB/s"},
                     {"nmc_bandwidth", "4 TB/s"}},
      [](Simulator& sim, Component* parent, const std::string& name, const ConfigNode& cfg) {
        return std::unique_ptr<Component>(std::make_unique<Hbm>(sim, parent, name, cfg));
      }});
}

}  // namespace t3sim::hbm
