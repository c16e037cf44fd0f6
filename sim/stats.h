// Statistics tree: plain integer/double members registered once with a unit and a description, in
// groups that mirror the component tree (gem5-style). Derived values are formulas evaluated only at
// dump time. Kinds: Counter, Accumulator (sum/count/min/max), TimeWeighted (time-average of a
// level, e.g. queue depth), Histogram (fixed linear buckets + overflow), Formula. Contract:
// registering never copies the stat; the stat must outlive the group (members of the same
// component). Dumping is deterministic: entries appear in registration order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/units.h"

namespace t3sim {

class Counter {
 public:
  void inc(uint64_t n = 1) { v_ += n; }
  uint64_t value() const { return v_; }
  void reset() { v_ = 0; }

 private:
  uint64_t v_ = 0;
};

class Accumulator {
 public:
  void sample(double x) {
    sum_ += x;
    ++count_;
    min_ = count_ == 1 ? x : std::min(min_, x);
    max_ = count_ == 1 ? x : std::max(max_, x);
  }
  double sum() const { return sum_; }
  uint64_t count() const { return count_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  double min() const { return min_; }
  double max() const { return max_; }

 private:
  double sum_ = 0;
  double min_ = 0;
  double max_ = 0;
  uint64_t count_ = 0;
};

// Time-weighted level: integral of value over time divided by elapsed time.
class TimeWeighted {
 public:
  void set(Tick now, int64_t value) {
    integral_ += static_cast<double>(value_) * static_cast<double>((now - last_).count_ps());
    last_ = now;
    value_ = value;
    max_ = std::max(max_, value);
  }
  void add(Tick now, int64_t delta) { set(now, value_ + delta); }
  int64_t value() const { return value_; }
  int64_t max() const { return max_; }
  double mean(Tick now) const {
    const double elapsed = static_cast<double>(now.ps());
    if (elapsed <= 0) return 0.0;
    return (integral_ +
            static_cast<double>(value_) * static_cast<double>((now - last_).count_ps())) /
           elapsed;
  }

 private:
  Tick last_{};
  int64_t value_ = 0;
  int64_t max_ = 0;
  double integral_ = 0;
};

class Histogram {
 public:
  Histogram(uint64_t bucket_width, size_t buckets) : width_(bucket_width), counts_(buckets + 1) {}
  void sample(uint64_t x, uint64_t weight = 1) {
    const size_t b = std::min<size_t>(x / width_, counts_.size() - 1);
    counts_[b] += weight;
  }
  const std::vector<uint64_t>& counts() const { return counts_; }
  uint64_t bucket_width() const { return width_; }

 private:
  uint64_t width_;
  std::vector<uint64_t> counts_;  // last bucket = overflow
};

// A node of the stats tree.
class StatGroup {
 public:
  explicit StatGroup(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  StatGroup& group(const std::string& name);
  void add(const std::string& name, const Counter& c, std::string unit, std::string desc);
  void add(const std::string& name, const Accumulator& a, std::string unit, std::string desc);
  void add(const std::string& name, const TimeWeighted& t, std::string unit, std::string desc);
  void add(const std::string& name, const Histogram& h, std::string unit, std::string desc);
  void add_formula(const std::string& name, std::function<double()> f, std::string unit,
                   std::string desc);

  // JSON object: {stat: {"value"...,"unit","desc"}, subgroup: {...}}; `now` closes time averages.
  nlohmann::ordered_json dump(Tick now) const;
  // Descriptions only (for `t3sim describe`): [{"name","kind","unit","desc"}].
  nlohmann::ordered_json describe() const;

 private:
  struct Entry {
    std::string name;
    std::string kind;
    std::string unit;
    std::string desc;
    std::function<nlohmann::ordered_json(Tick)> value;
  };
  void check_name(const std::string& name) const;
  std::string name_;
  std::vector<Entry> entries_;
  std::vector<std::unique_ptr<StatGroup>> children_;
  std::unordered_map<std::string, StatGroup*> child_index_;  // children_ by name
};

}  // namespace t3sim
