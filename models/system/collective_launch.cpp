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
  return std::make_unique<Run>(sc, std::move(spec), std::move(then), sc.next_serial());
}

}  // namespace t3sim::system
