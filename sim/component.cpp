#include "sim/component.h"

#include <algorithm>

#include "sim/config.h"
#include "sim/errors.h"
#include "sim/port.h"
#include "sim/simulator.h"

namespace t3sim {

Component::Component(Simulator& sim, Component* parent, std::string name)
    : sim_(sim), parent_(parent), name_(std::move(name)) {
  if (parent_ == nullptr) {
    path_ = name_;
    stats_ = &sim_.stats();
  } else {
    if (parent_->child_names_.count(name_) != 0) {
      throw ModelError(parent_->path_, "two children named '" + name_ + "'");
    }
    path_ = parent_->path_.empty() ? name_ : parent_->path_ + "." + name_;
    stats_ = &parent_->stats().group(name_);
    parent_->children_.push_back(this);
    parent_->child_names_.insert(name_);
  }
}

Component::~Component() {
  if (parent_ != nullptr) parent_->remove_child(this);
}

void Component::remove_child(Component* c) {
  const auto it = std::find(children_.begin(), children_.end(), c);
  if (it == children_.end()) return;
  child_names_.erase(c->name_);
  children_.erase(it);
}

Tick Component::now() const { return sim_.now(); }

void Component::declare_port(PortBase& p) {
  for (const PortBase* q : ports_) {
    if (q->name() == p.name()) throw ModelError(path_, "port '" + p.name() + "' declared twice");
  }
  ports_.push_back(&p);
}

PortBase& Component::port(const std::string& name) const {
  std::vector<std::string> names;
  for (PortBase* p : ports_) {
    if (p->name() == name) return *p;
    names.push_back(p->name());
  }
  const std::string hint = nearest_name(name, names);
  throw ConfigError(
      path_, "",
      "unknown port '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
}

void Component::schedule(Event& ev, Duration delay, Priority prio) {
  sim_.schedule(ev, sim_.now() + delay, prio);
}

void Component::schedule_at(Event& ev, Tick when, Priority prio) { sim_.schedule(ev, when, prio); }

}  // namespace t3sim
