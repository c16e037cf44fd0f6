// ASTRA-sim custom collectives: an ET whose GlobalMetadata carries a "collective" attribute (the
// collectiveapi converter writes it from an MSCCL-IR algorithm, kept as "input_file") is the
// implementation of one collective in send/recv/reduce steps, which ASTRA-sim runs in place of its
// own algorithm ("all-reduce-implementation-custom"), not a workload. t3sim imports it as that one
// collective over the buffer the algorithm moves (nchunksperloop chunks of the smallest send),
// run by its own collectives library. Source: astra-sim/astra-sim
// astra-sim/system/astraccl/custom_collectives/CustomAlgorithm.cc and
// examples/system/custom_collectives/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/workload/chakra_stream.h"
#include "models/workload/op.h"

namespace t3sim::workload {

struct ChakraCustomCollective {
  OpKind kind = OpKind::kAllReduce;
  std::int64_t bytes = 0;  // the collective's buffer (trace "bytes")
  std::string algorithm;   // the MSCCL algorithm's name, when the metadata holds it
};

// nullopt when the file is not a custom collective. ConfigError naming /records/0/attr when the
// "collective" attribute names a kind t3sim does not know or the buffer cannot be worked out.
std::optional<ChakraCustomCollective> chakra_custom_collective(const ChakraFile& f);

}  // namespace t3sim::workload
