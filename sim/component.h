// Component: a named node of the simulated hierarchy ("sys.gpu3.hbm.ch7"). It owns its events and
// stats group, declares its ports, and gets two lifecycle hooks: init() after the wiring check and
// before time 0, finish() after the run (end-of-run invariants; throw ModelError on violation).
// Contract: children register with their parent on construction (names unique among siblings,
// checked in constant time); a component never outlives the Simulator; ports declared with
// declare_port() are checked by Simulator::elaborate().
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "sim/event.h"
#include "sim/stats.h"
#include "sim/units.h"

namespace t3sim {

class Simulator;
class PortBase;

class Component {
 public:
  Component(Simulator& sim, Component* parent, std::string name);
  virtual ~Component();
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  Simulator& sim() const { return sim_; }
  Component* parent() const { return parent_; }
  const std::vector<Component*>& children() const { return children_; }
  const std::vector<PortBase*>& ports() const { return ports_; }
  StatGroup& stats() { return *stats_; }
  Tick now() const;

  // Port lookup by name; throws ConfigError with "did you mean" (used when wiring from configs).
  PortBase& port(const std::string& name) const;

  virtual void init() {}
  virtual void finish() {}
  // Non-empty if this component is mis-wired (e.g. a link with a missing end).
  virtual std::string wiring_problem() const { return {}; }

 protected:
  void declare_port(PortBase& p);
  void schedule(Event& ev, Duration delay, Priority prio = Priority::kDefault);
  void schedule_at(Event& ev, Tick when, Priority prio = Priority::kDefault);

 private:
  void remove_child(Component* c);
  Simulator& sim_;
  Component* parent_;
  std::string name_;
  std::string path_;
  StatGroup* stats_;
  std::vector<Component*> children_;
  std::unordered_set<std::string_view> child_names_;  // views of the children's names
  std::vector<PortBase*> ports_;
};

}  // namespace t3sim
