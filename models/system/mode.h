// Execution modes of one tensor-parallel sublayer (GEMM followed by an all-reduce): the T3 paper's
// five configurations (t3-paper.md §4.4) plus the CU-split study of its Fig. 6, software
// decomposition (Wang et al. ASPLOS'23 / Async-TP style), T3 on a switch and the ablations built
// from the same pieces. Each mode is one row of the table (mode.cpp), written in its own file
// under modes/: its name, help line, `t3sim modes` paragraph and bound, runner, whether it is one
// simulation or composed of isolated pieces, whether its reduce-scatter is fused with the GEMM,
// and the HBM arbitration policy of its fused run. Everything else (parsing, listings, help texts,
// dispatch) derives from that table.
// Contract: a Mode is a handle on a row; mode_spec() never fails for a Mode taken from the table,
// a named handle or parse_mode().
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"
#include "sim/timeline.h"

namespace t3sim::system {

// A handle on one row of mode_table() (the row, not this handle, says what the mode does). The
// built-in modes that code special-cases have named handles; their rows open the table in this
// order (a test checks each handle names its row). Other modes are reached through the table or
// parse_mode() and need no handle.
struct Mode {
  uint8_t row = 0;
  static const Mode kSequential;
  static const Mode kIdeal;
  static const Mode kIdealNmc;
  static const Mode kT3;
  static const Mode kT3Mca;
  static const Mode kCuSplit;
  static const Mode kDecomposed;
  static const Mode kT3Direct;
  static const Mode kT3Nvls;
  constexpr auto operator<=>(const Mode&) const = default;
};
inline constexpr Mode Mode::kSequential{0};
inline constexpr Mode Mode::kIdeal{1};
inline constexpr Mode Mode::kIdealNmc{2};
inline constexpr Mode Mode::kT3{3};
inline constexpr Mode Mode::kT3Mca{4};
inline constexpr Mode Mode::kCuSplit{5};
inline constexpr Mode Mode::kDecomposed{6};
inline constexpr Mode Mode::kT3Direct{7};
inline constexpr Mode Mode::kT3Nvls{8};

// Pieces run in isolation on the whole machine (the inputs of the composed modes and of Fig. 6).
enum class Piece : uint8_t {
  kGemm,   // the GEMM alone on all CUs
  kRsCu,   // ring reduce-scatter as a CU kernel
  kRsNmc,  // ring reduce-scatter by DMA engines with NMC UPDATEs
  kAgCu,   // ring all-gather as a CU kernel
  kArCu,   // ring all-reduce (RS + AG) as a CU kernel
};

// How a mode's reduce-scatter meets its GEMM.
enum class RsFusion : uint8_t {
  kNone,    // a separate collective (or none)
  kRing,    // T3: tracker-triggered DMA UPDATEs around the ring (t3-paper.md §3.8)
  kDirect,  // T3 on a switch: UPDATEs straight to the chunk owner (t3-paper.md §7.1)
  kNvls,    // T3 with in-switch reduction: tracker-triggered copies reduced in the NVSwitch (§7.4)
};

struct SublayerSpec;
struct SublayerResult;
struct RunOptions;
struct ModeSpec;

// Everything a runner needs for one run of its mode. `fold`: simulate GPU 0 alone (scenario.h).
struct ModeRun {
  const ConfigDoc& doc;
  const SublayerSpec& spec;
  const ModeSpec& mode;
  const RunOptions& opts;
  Timeline* tracer;
  bool fold;
};

using ModeRunner = SublayerResult (*)(const ModeRun&);
// Combines isolated GEMM, RS and AG pieces into the mode's result.
using ModeComposer = SublayerResult (*)(const SublayerResult& gemm, const SublayerResult& rs,
                                        const SublayerResult& ag);

// One row of the table. A row file fills it with designated initialisers; `mode` is set by the
// table (the row's position).
struct ModeSpec {
  Mode mode{};
  std::string_view name{};
  std::string_view description{};  // one line, for --help and listings
  std::string_view paragraph{};    // `t3sim modes`: what runs and how, simulated or composed
  std::string_view bound{};        // `t3sim modes`: what the mode is an upper or lower bound of
  bool simulated = true;           // true: one simulation of the sublayer; false: composed pieces
  RsFusion fused_rs = RsFusion::kNone;
  std::string_view policy{};  // HBM arbitration of the fused GEMM-RS ("": the HBM config's)
  ModeRunner run = nullptr;
  // Composition from isolated pieces (GEMM, `rs_piece`, AG), exact for symmetric GPUs; nullptr
  // when the mode's phases overlap in ways pieces cannot express.
  ModeComposer compose = nullptr;
  Piece rs_piece = Piece::kRsCu;
};

std::span<const ModeSpec> mode_table();
const ModeSpec& mode_spec(Mode m);
std::string_view to_string(Mode m);
std::optional<Mode> parse_mode(std::string_view name);
std::vector<Mode> all_modes();
std::vector<std::string_view> mode_names();
// Every mode's name in table order joined by `sep`, for help texts and allowed-value lists.
std::string mode_list(std::string_view sep);

}  // namespace t3sim::system
