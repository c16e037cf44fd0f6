#include "models/system/collective_launch.h"

#include "models/collectives/collective.h"
#include "models/collectives/library.h"

namespace t3sim::system {
namespace {

class Run final : public CollectiveRun, public collectives::CollectiveDone {
 public:
  Run(Scenario& sc, collectives::CollectiveSpec spec, std::function<void()> then, int serial)
      : coll_(sc.sim(), &sc.system(), "coll" + std::to_string(serial), sc.machine(),
              sc.system().collectives(), std::move(spec)),
        then_(std::move(then)) {
    coll_.start(this, 0);
  }
  Tick started() const override { return coll_.started(); }
  Tick finished() const override { return coll_.finished(); }
  void collective_done(uint64_t) override {
    if (then_) then_();
  }

 private:
  collectives::Collective coll_;
  std::function<void()> then_;
};

}  // namespace

void check_sublayer_collectives(const ConfigDoc& doc) {
  const ConfigNode node = ConfigNode::root(doc).child("collectives");
  const collectives::LibraryConfig lib = collectives::bind_library(node, 0);
  if (lib.algo != collectives::Algo::kAuto && lib.algo != collectives::Algo::kRing) {
    node.fail_key("algorithm",
                  "collectives.algorithm is \"" + std::string(collectives::to_string(lib.algo)) +
                      "\", but sublayer, sweep, reproduce, replay and run use ring collectives "
                      "(T3's ring reduce-scatter and all-gather) and would ignore it; set it to "
                      "\"ring\" or \"auto\" (nccl-tests --algo runs the other algorithms)");
  }
  if (lib.executor != collectives::Executor::kCu) {
    node.fail_key("executor",
                  "collectives.executor is \"" + std::string(collectives::to_string(lib.executor)) +
                      "\", but in sublayer, sweep, reproduce, replay and run each execution mode "
                      "picks its executor (CU kernels; DMA for T3's near-memory reduce-scatter) "
                      "and would ignore it; set it to \"cu\" (nccl-tests --executor dma runs DMA "
                      "collectives)");
  }
}

uint32_t default_channels(Scenario& sc) { return sc.system().collectives().channels; }

std::unique_ptr<CollectiveRun> launch_collective(Scenario& sc, CollOp op, CollExec exec,
                                                 uint64_t bytes, uint32_t elem_bytes,
                                                 const std::vector<uint64_t>& addrs,
                                                 uint32_t channels, std::function<void()> then) {
  collectives::CollectiveSpec spec;
  spec.kind = op == CollOp::kReduceScatter ? collectives::Kind::kReduceScatter
              : op == CollOp::kAllGather   ? collectives::Kind::kAllGather
                                           : collectives::Kind::kAllReduce;
  spec.bytes = bytes;
  spec.algo = collectives::Algo::kRing;
  spec.exec = exec == CollExec::kCu ? collectives::Executor::kCu : collectives::Executor::kDma;
  spec.channels = channels;
  spec.elem_bytes = elem_bytes;
  spec.buffer_addr = addrs;
  spec.fold = sc.folded();
  if (spec.fold) spec.fold_rotation = sc.rotation();
  return std::make_unique<Run>(sc, std::move(spec), std::move(then), sc.next_serial());
}

}  // namespace t3sim::system
