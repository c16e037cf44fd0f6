#include "sim/stats.h"

#include "sim/errors.h"

namespace t3sim {

void StatGroup::check_name(const std::string& name) const {
  for (const auto& e : entries_) {
    if (e.name == name) throw ModelError(name_, "stat '" + name + "' registered twice");
  }
  if (child_index_.count(name) != 0) {
    throw ModelError(name_, "stat '" + name + "' clashes with a group");
  }
}

StatGroup& StatGroup::group(const std::string& name) {
  const auto [it, created] = child_index_.try_emplace(name, nullptr);
  if (created) {
    children_.push_back(std::make_unique<StatGroup>(name));
    it->second = children_.back().get();
  }
  return *it->second;
}

void StatGroup::add(const std::string& name, const Counter& c, std::string unit, std::string desc) {
  check_name(name);
  entries_.push_back({name, "counter", std::move(unit), std::move(desc),
                      [&c](Tick) { return nlohmann::ordered_json(c.value()); }});
}

void StatGroup::add(const std::string& name, const Accumulator& a, std::string unit,
                    std::string desc) {
  check_name(name);
  entries_.push_back({name, "accumulator", std::move(unit), std::move(desc), [&a](Tick) {
                        nlohmann::ordered_json j;
                        j["count"] = a.count();
                        j["sum"] = a.sum();
                        j["mean"] = a.mean();
                        j["min"] = a.min();
                        j["max"] = a.max();
                        return j;
                      }});
}

void StatGroup::add(const std::string& name, const TimeWeighted& t, std::string unit,
                    std::string desc) {
  check_name(name);
  entries_.push_back({name, "time_weighted", std::move(unit), std::move(desc), [&t](Tick now) {
                        nlohmann::ordered_json j;
                        j["mean"] = t.mean(now);
                        j["max"] = t.max();
                        return j;
                      }});
}

void StatGroup::add(const std::string& name, const Histogram& h, std::string unit,
                    std::string desc) {
  check_name(name);
  entries_.push_back({name, "histogram", std::move(unit), std::move(desc), [&h](Tick) {
                        nlohmann::ordered_json j;
                        j["bucket_width"] = h.bucket_width();
                        j["counts"] = h.counts();
                        return j;
                      }});
}

void StatGroup::add_formula(const std::string& name, std::function<double()> f, std::string unit,
                            std::string desc) {
  check_name(name);
  entries_.push_back({name, "formula", std::move(unit), std::move(desc),
                      [f = std::move(f)](Tick) { return nlohmann::ordered_json(f()); }});
}

nlohmann::ordered_json StatGroup::dump(Tick now) const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& e : entries_) {
    nlohmann::ordered_json j;
    j["value"] = e.value(now);
    j["unit"] = e.unit;
    j["desc"] = e.desc;
    out[e.name] = std::move(j);
  }
  for (const auto& c : children_) out[c->name_] = c->dump(now);
  return out;
}

nlohmann::ordered_json StatGroup::describe() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& e : entries_) {
    out.push_back({{"name", e.name}, {"kind", e.kind}, {"unit", e.unit}, {"desc", e.desc}});
  }
  for (const auto& c : children_) {
    for (auto d : c->describe()) {
      d["name"] = c->name_ + "." + d["name"].get<std::string>();
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace t3sim
