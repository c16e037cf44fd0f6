// Process groups and point-to-point peers in a PyTorch profiler (Kineto) trace. PyTorch's
// record_param_comms (and, from 2.1, the NCCL kernel itself) records the group a collective runs
// on: "Process Group Ranks" (the global ranks in group order, a string "[0, 2, 4, 6]" that is
// truncated past 30 ranks as "[0, 2, ..., 62]"), "Global rank start"/"Global rank stride" and
// "Group size"; a send or recv also its peer's global rank ("Dst Rank" / "Src Rank", PyTorch >=
// 2.4) and its group-local peer ("Rank"). The profile's own global rank is its
// distributedInfo.rank. Exact when the fields are present; a truncated list is rebuilt from start
// and stride (or an evenly spaced prefix that ends on the last rank), else not guessed.
// Source: PyTorch torch/csrc/profiler/util.cpp (saveNcclMeta), ParamCommsUtils.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace t3sim::workload {

// The global ranks of the process group in group-rank order, from one event's args; nullopt when
// the args name none or name them in a way that cannot be read exactly. `group_size` (the
// "Group size" wherever it was found) checks and completes a truncated list.
std::optional<std::vector<int>> process_group_ranks(const nlohmann::json* args,
                                                    std::optional<std::int64_t> group_size);

enum class P2pDirection { kSend, kRecv };
// "send"/"recv" from a record_param_comms "Collective name" or a c10d/nccl op name
// ("c10d::send", "c10d::recv_", "nccl:recv"); nullopt for anything else.
std::optional<P2pDirection> p2p_direction(std::string_view name);

// The peer's global rank of a send or recv from its args: "Dst Rank" / "Src Rank", else the
// group-local "Rank" mapped through `ranks`.
std::optional<int> p2p_peer_rank(const nlohmann::json* args, P2pDirection direction,
                                 const std::vector<int>& ranks);

// distributedInfo.rank of a profile's top level, when present and in [0, 2^20).
std::optional<int> kineto_rank(const nlohmann::json& top);
// distributedInfo.world_size of a profile's top level, when it is a usable group size.
std::optional<std::int64_t> kineto_world_size(const nlohmann::json& top);

}  // namespace t3sim::workload
