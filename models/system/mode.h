// Execution modes of one tensor-parallel sublayer (GEMM followed by an all-reduce): the T3 paper's
// five configurations (t3-paper.md §4.4) plus the CU-split study of its Fig. 6, software
// decomposition (Wang et al. ASPLOS'23 / Async-TP style) and T3 on a switch. Each mode is defined
// once, by one row of the table in mode.cpp: its name, help line, runner, whether it is one
// simulation or composed of isolated pieces, whether its reduce-scatter is fused with the GEMM,
// and the HBM arbitration policy of its fused run. Everything else (parsing, listings, dispatch)
// derives from that table.
// Contract: every Mode value has exactly one row; mode_spec() never fails for a valid Mode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"
#include "sim/timeline.h"

namespace t3sim::system {

// Names a row of the mode table (the row, not this enum, says what the mode does).
enum class Mode : uint8_t {
  kSequential,
  kIdeal,
  kIdealNmc,
  kT3,
  kT3Mca,
  kCuSplit,
  kDecomposed,
  kT3Direct,
  kT3Nvls,
};

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

struct ModeSpec {
  Mode mode;
  std::string_view name;
  std::string_view description;  // one line, for --help and listings
  bool simulated;                // true: one simulation of the sublayer; false: composed pieces
  RsFusion fused_rs;
  std::string_view policy;  // HBM arbitration of the fused GEMM-RS ("": the HBM config's)
  ModeRunner run;
  // Composition from isolated pieces (GEMM, `rs_piece`, AG), exact for symmetric GPUs; nullptr
  // when the mode's phases overlap in ways pieces cannot express.
  ModeComposer compose;
  Piece rs_piece;
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
