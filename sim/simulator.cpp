#include "sim/simulator.h"

#include <string>

#include "sim/errors.h"
#include "sim/port.h"

namespace t3sim {
namespace {

template <class F>
void walk(Component& c, F&& f) {
  f(c);
  // Copy: hooks may not add children, but a copy keeps iteration safe regardless.
  const std::vector<Component*> kids = c.children();
  for (Component* k : kids) walk(*k, f);
}

}  // namespace

Simulator::Simulator(uint64_t seed) : root_(*this, nullptr, ""), seed_(seed) {}

void Simulator::past_end_of_time() const {
  throw UsageError("simulated time would pass 2^64 ps (about 213 days; now " +
                   std::to_string(now().ps()) +
                   " ps): a rate of the system (a link, HBM, DMA or NMC bandwidth) is too low for "
                   "the bytes this run moves; raise it, or move fewer bytes");
}

void Simulator::elaborate() {
  walk(root_, [](Component& c) {
    for (const PortBase* p : c.ports()) {
      if (!p->connected() && !p->optional()) {
        throw ConfigError(
            c.path(), "",
            "port '" + p->name() + "' is not connected (wire it or " + "remove the component)");
      }
    }
    if (std::string w = c.wiring_problem(); !w.empty()) throw ConfigError(c.path(), "", w);
  });
  walk(root_, [](Component& c) { c.init(); });
  elaborated_ = true;
}

void Simulator::run() { run_until(Tick::max()); }

void Simulator::run_until(Tick limit) {
  if (!elaborated_) elaborate();
  stopped_ = false;
  while (!stopped_ && queue_.run_one(limit)) {
  }
}

void Simulator::finish() {
  walk(root_, [](Component& c) { c.finish(); });
}

nlohmann::ordered_json Simulator::dump(const nlohmann::json& resolved_config) const {
  nlohmann::ordered_json out;
  out["config"] = resolved_config;
  out["sim"] = {{"ticks_ps", now().ps()}, {"events", events()}, {"seed", seed_}};
  out["stats"] = stats_.dump(now());
  return out;
}

}  // namespace t3sim
