#include "studies/inputs.h"

#include "models/collectives/library.h"
#include "models/system/system.h"
#include "models/tracker/tracker.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::studies {

ConfigDoc load_system(const Env& env, const std::string& name, const std::vector<std::string>& sets,
                      int tp) {
  ConfigDoc doc = system::load_system_config(name, env.configs_dir, sets);
  if (tp > 0) {
    if (tp > 4096) throw UsageError("--tp " + std::to_string(tp) + " is out of range (1..4096)");
    const auto fabric = doc.root.find("fabric");
    const bool sized = fabric != doc.root.end() && fabric->is_object();
    if (sized && fabric->contains("topology") &&
        ((*fabric)["topology"] == "two_level" || (*fabric)["topology"] == "leaf_spine")) {
      // A TP group of whole nodes: the first tp / gpus_per_node nodes of the cluster, alone.
      const auto per = fabric->find("gpus_per_node");
      const int gpn = per != fabric->end() && per->is_number_integer() ? per->get<int>() : 0;
      if (gpn < 1 || tp % gpn != 0) {
        throw ConfigError(doc.file, "/fabric/gpus_per_node",
                          "--tp " + std::to_string(tp) + " on a multi-node fabric must be a " +
                              "multiple of gpus_per_node (" + std::to_string(gpn) +
                              "): whole nodes; for a smaller group pick a one-node system");
      }
      apply_override(doc, "fabric.nodes=" + std::to_string(tp / gpn));
    }
    apply_override(doc, "gpus=" + std::to_string(tp));
    if (sized && fabric->contains("gpus")) {
      apply_override(doc, "fabric.gpus=" + std::to_string(tp));
    }
  }
  return doc;
}

void check_system(const ConfigDoc& doc) {
  Simulator sim;
  // Binds the collectives and T3 settings too; no links, memory for GPU 0 only: bounded at 4096.
  system::System sys(sim, ConfigNode::root(doc), 0, system::BuildFor::kCheck);
}

workload::Pass ar_pass(workload::Sublayer s) {
  return (s == workload::Sublayer::kOp || s == workload::Sublayer::kFc2) ? workload::Pass::kFwd
                                                                         : workload::Pass::kBwd;
}

namespace {

// The workload library names the value it rejects by a pointer of no file ("/tp"); say where the
// value came from instead: `origin`'s pointer, or the command-line flag of that name.
[[noreturn]] void rethrow_from(const ConfigError& e, const std::string& origin) {
  if (!e.file().empty()) throw e;
  if (!origin.empty()) throw ConfigError(origin, e.pointer(), e.message());
  const std::string flag = "--" + e.pointer().substr(e.pointer().rfind('/') + 1);
  throw ConfigError(flag, "", e.message());
}

}  // namespace

SublayerChoice choose_sublayer(const Env& env, const std::string& model, int tp,
                               const std::string& sublayer, int64_t tokens,
                               const std::string& origin) {
  SublayerChoice c;
  c.model = workload::load_model_by_name(model, env.configs_dir / "models");
  const auto sl = workload::parse_sublayer(sublayer);
  if (!sl || *sl == workload::Sublayer::kAttn) {
    throw UsageError("--sublayer must be one of op, fc2, fc1, ip (got '" + sublayer + "')");
  }
  c.sublayer = *sl;
  c.pass = ar_pass(*sl);
  c.tokens = tokens > 0 ? tokens : c.model.seq_len * c.model.micro_batch;
  workload::T3Sublayer t{};
  try {
    t = workload::t3_sublayer(c.model, tp, c.tokens, c.sublayer, c.pass);
  } catch (const ConfigError& e) {
    rethrow_from(e, origin);
  }
  c.spec.shape = gpu::GemmShape{static_cast<uint64_t>(t.gemm.m), static_cast<uint64_t>(t.gemm.n),
                                static_cast<uint64_t>(t.gemm.k)};
  c.spec.elem_bytes = 2;
  return c;
}

}  // namespace t3sim::studies
