// Spellings of the collective enums in configs, CLI options and output (algorithm names come from
// the algorithm table, algorithms.h).
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/collectives/algorithms.h"
#include "models/collectives/kinds.h"
#include "models/collectives/library.h"
#include "sim/config.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr std::array<const char*, 4> kProtoNames{"auto", "simple", "ll128", "ll"};
constexpr std::array<const char*, 2> kExecs{"cu", "dma"};

[[noreturn]] void unknown(const std::string& s, const std::vector<std::string>& all,
                          const std::string& what) {
  const std::string hint = nearest_name(s, all);
  std::string list;
  for (const auto& n : all) list += (list.empty() ? "" : "|") + n;
  throw ConfigError(what, "",
                    "unknown value '" + s + "' (expected " + list + ")" +
                        (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
}

template <class E, size_t N>
E parse(const std::array<const char*, N>& names, const std::string& s, const std::string& what) {
  std::vector<std::string> all;
  for (size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<E>(i);
    all.emplace_back(names[i]);
  }
  unknown(s, all, what);
}

}  // namespace

const char* to_string(Kind k) { return kind_spec(k).name.data(); }  // names are literals
const char* to_string(Algo a) {
  return a == Algo::kAuto ? "auto" : algorithm(a).name.data();  // names are literals
}
const char* to_string(Protocol p) { return kProtoNames[static_cast<size_t>(p)]; }
const char* to_string(Executor e) { return kExecs[static_cast<size_t>(e)]; }

Algo parse_algo(const std::string& s, const std::string& what) {
  const std::span<const AlgorithmSpec> rows = algorithm_table();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].name == s) return algo_of_row(i);
  }
  if (s == "auto") return Algo::kAuto;
  unknown(s, algorithm_names(), what);
}
Kind parse_kind(const std::string& s, const std::string& what) {
  std::vector<std::string> all;
  for (const KindSpec& row : kind_table()) {
    if (s == row.name || s == row.test) return row.kind;
    all.emplace_back(row.name);
  }
  unknown(s, all, what);
}
Protocol parse_protocol(const std::string& s, const std::string& what) {
  return parse<Protocol>(kProtoNames, s, what);
}
Executor parse_executor(const std::string& s, const std::string& what) {
  return parse<Executor>(kExecs, s, what);
}

}  // namespace t3sim::collectives
