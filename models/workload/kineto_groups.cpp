#include "models/workload/kineto_groups.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace t3sim::workload {
namespace {

constexpr std::int64_t kMaxRank = std::int64_t{1} << 20;

std::optional<std::int64_t> integer(const nlohmann::json* args, std::string_view key) {
  if (args == nullptr) return std::nullopt;
  const auto it = args->find(key);
  if (it == args->end()) return std::nullopt;
  std::optional<std::int64_t> v;
  if (it->is_number_integer()) {
    v = it->get<std::int64_t>();
  } else if (it->is_string()) {  // some PyTorch versions write the number as text
    const std::string& s = it->get_ref<const std::string&>();
    if (s.empty() || s.size() > 9 ||
        !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); })) {
      return std::nullopt;
    }
    v = std::stoll(s);
  }
  if (!v || *v < 0 || *v >= kMaxRank) return std::nullopt;
  return v;
}

// "[0, 2, 4]" or "[0, 2, ..., 62]" (truncated: `cut` set); an array of integers also reads.
std::optional<std::vector<int>> parse_list(const nlohmann::json& value, bool& cut) {
  std::vector<int> out;
  cut = false;
  if (value.is_array()) {
    for (const nlohmann::json& v : value) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= kMaxRank)
        return std::nullopt;
      out.push_back(v.get<int>());
    }
    return out;
  }
  if (!value.is_string()) return std::nullopt;
  const std::string& s = value.get_ref<const std::string&>();
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  std::size_t i = 1;
  while (i + 1 < s.size()) {
    while (i + 1 < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i + 1 >= s.size()) break;
    if (s.compare(i, 3, "...") == 0) {
      if (cut) return std::nullopt;
      cut = true;
      out.push_back(-1);  // where the elided ranks go
      i += 3;
      continue;
    }
    std::int64_t v = 0;
    const std::size_t first = i;
    while (i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - first < 8) {
      v = v * 10 + (s[i] - '0');
      ++i;
    }
    if (i == first || v >= kMaxRank) return std::nullopt;
    out.push_back(static_cast<int>(v));
  }
  return out;
}

bool distinct(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  return std::adjacent_find(ranks.begin(), ranks.end()) == ranks.end();
}

}  // namespace

std::optional<std::vector<int>> process_group_ranks(const nlohmann::json* args,
                                                    std::optional<std::int64_t> group_size) {
  if (args == nullptr) return std::nullopt;
  const auto it = args->find("Process Group Ranks");
  if (it == args->end()) return std::nullopt;
  bool cut = false;
  std::optional<std::vector<int>> ranks = parse_list(*it, cut);
  if (!ranks || ranks->empty()) return std::nullopt;
  if (cut) {
    // Rebuilt from start and stride, else from an evenly spaced prefix ending on the last rank.
    if (!group_size) return std::nullopt;
    const auto start = integer(args, "Global rank start");
    const auto stride = integer(args, "Global rank stride");
    std::int64_t first = 0, step = 0;
    if (start && stride && *stride > 0) {
      first = *start;
      step = *stride;
    } else if (ranks->size() >= 4 && (*ranks)[0] >= 0 && (*ranks)[1] > (*ranks)[0]) {
      first = (*ranks)[0];
      step = (*ranks)[1] - (*ranks)[0];
    } else {
      return std::nullopt;
    }
    std::vector<int> full;
    for (std::int64_t r = 0; r < *group_size; ++r) {
      const std::int64_t g = first + r * step;
      if (g >= kMaxRank) return std::nullopt;
      full.push_back(static_cast<int>(g));
    }
    // Every rank written out must sit where the rebuilt list has it.
    const std::size_t gap =
        static_cast<std::size_t>(std::find(ranks->begin(), ranks->end(), -1) - ranks->begin());
    const std::size_t tail = ranks->size() - gap - 1;
    for (std::size_t k = 0; k < gap; ++k) {
      if (k >= full.size() || full[k] != (*ranks)[k]) return std::nullopt;
    }
    for (std::size_t k = 0; k < tail; ++k) {
      if (tail > full.size() || full[full.size() - tail + k] != (*ranks)[gap + 1 + k])
        return std::nullopt;
    }
    ranks = std::move(full);
  }
  if (group_size && static_cast<std::int64_t>(ranks->size()) != *group_size) return std::nullopt;
  if (!distinct(*ranks)) return std::nullopt;
  return ranks;
}

std::optional<P2pDirection> p2p_direction(std::string_view name) {
  for (const std::string_view prefix : {"c10d::", "nccl:", "gloo:"}) {
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  }
  while (name.starts_with("_")) name.remove_prefix(1);
  std::string lower(name.substr(0, 4));
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name.size() > 6 && name.substr(0, 8) == "sendrecv") return std::nullopt;
  if (lower == "send" && (name.size() == 4 || name[4] == '_')) return P2pDirection::kSend;
  if (lower == "recv" && (name.size() == 4 || name[4] == '_')) return P2pDirection::kRecv;
  return std::nullopt;
}

std::optional<int> p2p_peer_rank(const nlohmann::json* args, P2pDirection direction,
                                 const std::vector<int>& ranks) {
  const auto global = integer(args, direction == P2pDirection::kSend ? "Dst Rank" : "Src Rank");
  if (global) return static_cast<int>(*global);
  const auto local = integer(args, "Rank");
  if (local && *local < static_cast<std::int64_t>(ranks.size())) {
    return ranks[static_cast<std::size_t>(*local)];
  }
  return std::nullopt;
}

std::optional<int> kineto_rank(const nlohmann::json& top) {
  const auto info = top.find("distributedInfo");
  if (info == top.end() || !info->is_object()) return std::nullopt;
  const auto r = integer(&*info, "rank");
  return r ? std::optional<int>(static_cast<int>(*r)) : std::nullopt;
}

std::optional<std::int64_t> kineto_world_size(const nlohmann::json& top) {
  const auto info = top.find("distributedInfo");
  if (info == top.end() || !info->is_object()) return std::nullopt;
  const auto ws = info->find("world_size");
  if (ws == info->end() || !ws->is_number_integer() || ws->get<std::int64_t>() < 1 ||
      ws->get<std::int64_t>() > (std::int64_t{1} << 20)) {
    return std::nullopt;
  }
  return ws->get<std::int64_t>();
}

}  // namespace t3sim::workload
