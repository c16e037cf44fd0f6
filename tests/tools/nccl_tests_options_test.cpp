// `t3sim nccl-tests` options: the process model behind NCCL's P2P direct pointers. nccl-tests runs
// -t threads x -g GPUs in one process, so the library's "p2p_direct" is on unless --p2p-direct off
// says the ranks are separate processes.
#include <gtest/gtest.h>

#include <string>

#include "cli/nccl_tests_options.h"
#include "sim/errors.h"

namespace t3sim::cli {
namespace {

NcclTestsOptions parse(Args args) {
  args.insert(args.begin(), {"all_reduce_perf", "--system", "dgx-a100"});
  bool help = false;
  return parse_nccl_tests(args, help);
}

TEST(NcclTestsOptions, OneProcessOfGpusOrThreadsIsP2pDirect) {
  EXPECT_EQ(p2p_direct_override(parse({"-g", "2"})), "collectives.p2p_direct=true");
  EXPECT_EQ(p2p_direct_override(parse({"-t", "4", "-g", "1"})), "collectives.p2p_direct=true");
  EXPECT_EQ(p2p_direct_override(parse({})), "collectives.p2p_direct=true");
}

TEST(NcclTestsOptions, P2pDirectCanBeSetExplicitly) {
  EXPECT_EQ(p2p_direct_override(parse({"-g", "2", "--p2p-direct", "off"})),
            "collectives.p2p_direct=false");
  EXPECT_EQ(p2p_direct_override(parse({"--p2p-direct", "on"})), "collectives.p2p_direct=true");
  EXPECT_THROW(parse({"--p2p-direct", "maybe"}), UsageError);
}

}  // namespace
}  // namespace t3sim::cli
