#include "models/collectives/collective.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "models/collectives/algorithms.h"
#include "models/collectives/channel_plan.h"
#include "models/collectives/cu_executor.h"
#include "models/collectives/dma_executor.h"
#include "models/collectives/fold.h"
#include "models/collectives/kinds.h"
#include "models/collectives/nvls_executor.h"
#include "models/collectives/schedule_limits.h"
#include "models/common/mirror.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::collectives {

Collective::Collective(Simulator& sim, Component* parent, std::string name, gpu::Machine& machine,
                       const LibraryConfig& lib, CollectiveSpec spec)
    : Component(sim, parent, std::move(name)),
      machine_(machine),
      lib_(lib),
      kind_(spec.kind),
      bytes_(spec.bytes) {
  resolve(spec);
  try {
    build(spec);
  } catch (const ScheduleTooLarge& e) {
    const std::string need = "the " + std::string(kind_spec(kind_).name) + " of " +
                             std::to_string(bytes_) + " B on " + std::to_string(group_.size()) +
                             " GPUs (" + to_string(algo_) + ", " + std::to_string(channels_) +
                             " channels): " + e.need();
    throw ScheduleTooLarge(path(), "/bytes", need, "simulate a smaller size or fewer GPUs");
  }
  std::vector<uint64_t> addr(static_cast<size_t>(machine_.size()), 0);
  for (size_t i = 0; i < group_.size(); ++i) {
    const auto gi = static_cast<size_t>(group_[i]);
    addr[gi] =
        spec.buffer_addr.empty() ? machine_.gpus[gi].alloc->allocate(bytes_) : spec.buffer_addr[i];
  }
  const Protocol geom = exec_ == Executor::kDma ? Protocol::kSimple : proto_;
  ExecContext ctx{sim,  machine_, schedule_,  lib_.spec(geom),         lib_, std::move(addr),
                  this, path(),   fold_gpus_, std::move(fold_offsets_)};
  if (algo_ == Algo::kNvls) {
    exec_impl_ = std::make_unique<NvlsExecutor>(std::move(ctx));
  } else if (exec_ == Executor::kCu) {
    exec_impl_ = std::make_unique<CuExecutor>(std::move(ctx));
  } else {
    exec_impl_ = std::make_unique<DmaExecutor>(std::move(ctx));
  }
  stats().add("ops", ops_, "count", "schedule ops (slices) executed");
  stats().add("bytes_sent", sent_, "B", "payload pushed over the fabric, all GPUs");
  stats().add("wire_bytes", wire_, "B", "bytes on the wire incl. LL/LL128 flags, all GPUs");
  stats().add("time_ps", time_ps_, "ps", "start to completion");
}

Collective::~Collective() = default;

void Collective::build(const CollectiveSpec& spec) {
  Geometry g = geometry(spec);
  if (const AlgorithmSpec& row = algorithm(algo_); row.refuse != nullptr) {
    if (const std::string why = row.refuse(g); !why.empty())
      throw ConfigError(path(), "/algo", why);
  }
  if (!spec.fold) {
    check_simulated_bytes(bytes_, group_.size());
    schedule_ = algorithm(algo_).build(g);
  } else {
    if (exec_ != Executor::kCu) throw common::FoldError("DMA-engine collectives");
    bool in_order = group_.size() == machine_.gpus.size();
    for (size_t i = 0; in_order && i < group_.size(); ++i)
      in_order = group_[i] == static_cast<int>(i);
    if (!in_order) throw common::FoldError("the group is not every GPU in order");
    const common::GpuRotation rot = spec.fold_rotation.per_node == 0
                                        ? common::GpuRotation{1, machine_.size()}
                                        : spec.fold_rotation;
    if (rot.size() != machine_.size()) throw common::FoldError("rotation and machine differ");
    check_simulated_bytes(bytes_, static_cast<uint64_t>(rot.reps()));
    for (int r = 0; r < rot.reps(); ++r) {
      if (machine_.gpus[static_cast<size_t>(r)].hbm == nullptr) {
        throw common::FoldError("representative GPU " + std::to_string(r) + " is not simulated");
      }
    }
    fold(g, rot);
    fold_rotation_ = rot;
    fold_gpus_ = machine_.size();
  }
}

void Collective::fold(Geometry g, const common::GpuRotation& rot) {
  if (algo_ == Algo::kTree && rot.nodes > 1) {  // the proof would refuse it too, later
    throw common::FoldError("NCCL's Tree gives each node its own place in the tree");
  }
  if (algo_ == Algo::kNvls) {  // NVLS also needs every GPU's offsets: fold the whole schedule
    if (rot.nodes != 1) throw common::FoldError("NVLS across nodes");
    if (rot.reps() != 1) throw common::FoldError("NVLS onto several representatives");
    const Schedule full = algorithm(algo_).build(g);
    schedule_ = fold_schedule(full, rot);
    fold_offsets_ = fold_offsets(full, rot);
  } else {  // generated folded: the representatives' lanes alone (fold_stream.h)
    g.fold = &rot;
    schedule_ = algorithm(algo_).build(g);
  }
  // Every GPU's connections are its representative's rotated (the fold proved it).
  std::vector<std::pair<int, int>> pairs;
  for (const Conn& cn : schedule_.conns) pairs.emplace_back(cn.src, cn.dst);
  if (const std::string why = machine_.fabric->fold_problem(pairs, rot); !why.empty()) {
    throw common::FoldError(why);
  }
}

void Collective::resolve(const CollectiveSpec& spec) {
  const int n = machine_.size();
  group_ = spec.group;
  if (group_.empty()) {
    group_.resize(static_cast<size_t>(n));
    std::iota(group_.begin(), group_.end(), 0);
  }
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int g : group_) {
    if (g < 0 || g >= n || seen[static_cast<size_t>(g)]) {
      throw ConfigError(path(), "/group",
                        "GPU " + std::to_string(g) + " is out of range or repeated (machine has " +
                            std::to_string(n) + " GPUs)");
    }
    seen[static_cast<size_t>(g)] = true;
  }
  const uint64_t m = static_cast<uint64_t>(group_.size());
  const KindSpec& ks = kind_spec(kind_);
  const uint64_t unit = spec.elem_bytes * (ks.split_by_rank ? m : 1);
  if (spec.elem_bytes == 0 || bytes_ % unit != 0) {
    throw ConfigError(path(), "/bytes",
                      std::to_string(bytes_) + " B is not a multiple of " + std::to_string(unit) +
                          " B (element x group size)");
  }
  if (!spec.buffer_addr.empty() && spec.buffer_addr.size() != group_.size()) {
    throw ConfigError(path(), "/buffer_addr", "needs one address per group member");
  }
  channels_ = spec.channels != 0 ? spec.channels : lib_.channels;
  exec_ = spec.exec.value_or(lib_.executor);
  bool multi_node = false;
  for (int g : group_) multi_node = multi_node || lib_.node_of(g) != lib_.node_of(group_[0]);
  if (ks.rooted && (spec.root < 0 || static_cast<uint64_t>(spec.root) >= m)) {
    throw ConfigError(path(), "/root",
                      "root " + std::to_string(spec.root) + " is not a rank of the group (0.." +
                          std::to_string(m - 1) + ")");
  }
  algo_ = spec.algo != Algo::kAuto ? spec.algo : lib_.algo;
  if (algo_ != Algo::kAuto && !algorithm(algo_).implements(kind_)) {
    // An explicit choice that cannot run this kind is an error; the library default falls back.
    if (spec.algo != Algo::kAuto) {
      throw ConfigError(path(), "/algo",
                        "the " + std::string(algorithm(algo_).name) + " algorithm has no " +
                            std::string(ks.name) + " schedule");
    }
    algo_ = Algo::kAuto;
  }
  proto_ = spec.proto != Protocol::kAuto ? spec.proto : lib_.protocol;
  if (exec_ == Executor::kDma) proto_ = Protocol::kSimple;
  resolve_auto(multi_node);
  if (algo_ == Algo::kNvls) {
    if (lib_.nvls_channels == 0) {
      throw ConfigError(path(), "/algo",
                        "this system's collectives have no NVLS (collectives.nvls_channels is 0)");
    }
    if (!machine_.fabric->has_switch_segments()) {
      throw ConfigError(path(), "/algo",
                        "NVLS needs the packet-level fabric (fabric.model \"packet\"): the flow "
                        "model has no in-switch reduction");
    }
    if (spec.proto != Protocol::kAuto && spec.proto != Protocol::kSimple) {
      throw ConfigError(path(), "/proto", "NVLS runs the Simple protocol only");
    }
    exec_ = Executor::kCu;  // multimem loads and stores are issued by CUs
    proto_ = Protocol::kSimple;
    channels_ = spec.channels != 0 ? spec.channels : lib_.nvls_channels;
    return;
  }
  // Tree slices are one buffer step each, so every step of the buffer is a slot.
  if (algo_ == Algo::kTree) lib_.protocols[proto_index(proto_)].slots = lib_.steps;
  if (spec.channels == 0 && exec_ == Executor::kCu) {  // an explicit count is taken as given
    channels_ =
        lib_.channels_for(proto_, channels_, bytes_, static_cast<int>(m), algo_ == Algo::kRing);
  }
}

Geometry Collective::geometry(const CollectiveSpec& spec) const {
  const ProtocolSpec& p = lib_.spec(proto_);
  Geometry g;
  g.kind = kind_;
  g.root = spec.root;
  g.bytes = bytes_;
  g.elem_bytes = spec.elem_bytes;
  g.channels = channels_;
  g.ranks = group_;
  g.chunk = p.chunk.count();
  g.slices_per_chunk = p.slices_per_chunk;
  g.slice_floor = p.chunk.count() / p.slices_per_chunk / 32;  // NCCL: sliceSize / 32
  g.channel_major = proto_ == Protocol::kSimple;
  g.gpus_per_node = lib_.gpus_per_node;
  g.ring_step = lib_.ring_direction == RingDirection::kBackward ? -1 : 1;
  if (algo_ == Algo::kNvls) {
    g.chunk = lib_.nvls_chunk.count();
    g.slices_per_chunk = 1;
    g.slice_floor = 0;
  }
  if (algo_ == Algo::kTree) {  // one step per chunk and slice (NCCL's tree protocol)
    g.chunk = p.step_payload.count();
    g.slices_per_chunk = 1;
    g.slice_floor = 0;
    g.min_chunk = lib_.tree_min_chunk.count();
  }
  if (algo_ == Algo::kRing && planned_rings()) {
    g.rings = plan().channel_rings(channels_);
  } else if (algo_ == Algo::kRing && rail_rings_apply()) {
    g.rings = rail_rings(rails(), channels_);
  } else if (algo_ == Algo::kRing && fully_connected()) {
    g.rings = disjoint_rings(static_cast<int>(g.ranks.size()));
  }
  return g;
}

bool Collective::planned_rings() const {
  if (lib_.ring_direction != RingDirection::kPlanned) return false;
  for (int gpu : group_) {
    if (lib_.node_of(gpu) != lib_.node_of(group_[0])) return false;  // rings across nodes: order
  }
  return true;
}

ChannelPlan Collective::plan() const {
  const RankPath path = [this](int a, int b) {
    return machine_.fabric->path_links(group_[static_cast<size_t>(a)],
                                       group_[static_cast<size_t>(b)]);
  };
  return plan_rings(static_cast<int>(group_.size()), path, channels_);
}

NodeRails Collective::rails() const {
  std::vector<int> node_of_rank;
  for (const int gpu : group_) node_of_rank.push_back(lib_.node_of(gpu));
  const RankPath path = [this](int a, int b) {
    return machine_.fabric->path_links(group_[static_cast<size_t>(a)],
                                       group_[static_cast<size_t>(b)]);
  };
  return find_rails(node_of_rank, path);
}

bool Collective::rail_rings_apply() const {
  return lib_.ring_direction == RingDirection::kPlanned && !planned_rings() &&
         rails().rotations.size() > 1;
}

// Every pair of the group joined by one direct link (xGMI meshes): rings then spread their
// channels over edge-disjoint ring orders, as RCCL does, instead of all using one link per GPU.
bool Collective::one_switch() const {
  for (int a : group_) {
    if (a != group_[0] && machine_.fabric->hops(group_[0], a) != 2) return false;
  }
  return group_.size() > 1;
}

bool Collective::fully_connected() const {
  constexpr size_t kMaxMesh = 64;  // no larger full mesh is built; avoids an O(n^2) scan
  if (group_.size() < 3 || group_.size() > kMaxMesh) return false;
  for (int a : group_) {
    for (int b : group_) {
      if (a != b && machine_.fabric->hops(a, b) != 1) return false;
    }
  }
  return true;
}

void Collective::start(CollectiveDone* done, uint64_t tag) {
  if (running_ || done_) throw ModelError(path(), "collective started twice");
  done_cb_ = done;
  tag_ = tag;
  running_ = true;
  started_ = now();
  exec_impl_->start();
}

void Collective::executor_done() {
  finished_ = now();
  running_ = false;
  done_ = true;
  uint64_t sent = 0;
  uint64_t received = 0;
  for (int g = 0; g < machine_.size(); ++g) {
    sent += exec_impl_->bytes_sent(g);
    received += exec_impl_->bytes_received(g);
  }
  if (sent != received) {
    throw ModelError(path(), "payload sent " + std::to_string(sent) + " B != received " +
                                 std::to_string(received) + " B");
  }
  ops_.inc(schedule_.ops.size());
  sent_.inc(sent);
  wire_.inc(exec_impl_->wire_bytes());
  time_ps_.inc((finished_ - started_).count_ps());
  if (done_cb_) done_cb_->collective_done(tag_);
}

void Collective::finish() {
  if (running_) {
    throw ModelError(path(), std::string(to_string(kind_)) + " started at " +
                                 std::to_string(started_.to_us()) +
                                 " us never completed: " + exec_impl_->progress());
  }
}

}  // namespace t3sim::collectives
