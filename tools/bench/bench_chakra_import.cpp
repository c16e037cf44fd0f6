// Memory of `t3sim trace import-chakra` against the size of its input: writes one rank's Chakra ET
// of about the requested size (GEMMs with operand shapes, element-wise compute, all-reduces, each
// node depending on the one before and a data dependency two back, with the attributes PyTorch's
// converter records), then, in a forked child, imports it and writes the trace as the command does
// (import_chakra, write_trace). The parent reads the child's peak RSS, wall and CPU time (wait4)
// and prints them with the ratio of peak memory to file size: reliability's bound is 8x.
// Last, the worst case per byte: the most nodes t3sim reads (2^20), each an id, a type, a dep.
// Usage: t3sim_bench_chakra_import [MB...] (default 10 100). Not a test: run by hand in Release.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "chakra_et.pb.h"
#include "models/workload/chakra_import.h"
#include "models/workload/chakra_stream.h"
#include "models/workload/trace.h"

namespace {

using ChakraNode = ChakraProtoMsg::Node;

void put_record(std::ofstream& out, const google::protobuf::Message& m) {
  const std::string body = m.SerializeAsString();
  uint64_t v = body.size();
  while (v >= 0x80) {
    out.put(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.put(static_cast<char>(v));
  out << body;
}

void put_attr(ChakraNode& n, const std::string& name, int64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

// Node i of the synthetic program: every tenth an all-reduce, every third a GEMM, else gelu.
ChakraNode synthetic_node(uint64_t i) {
  ChakraNode n;
  n.set_id(i);
  if (i > 0) n.add_ctrl_deps(i - 1);
  if (i > 1) n.add_data_deps(i - 2);
  put_attr(n, "rf_id", static_cast<int64_t>(i));
  put_attr(n, "tid", 1);
  if (i % 10 == 9) {
    n.set_name("nccl:all_reduce");
    n.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    put_attr(n, "comm_type", 0);
    put_attr(n, "comm_size", 8 << 20);
  } else if (i % 3 == 0) {
    n.set_name("aten::mm");
    n.set_type(ChakraProtoMsg::COMP_NODE);
    n.set_duration_micros(120);
    n.mutable_inputs()->set_values(
        "[[\"<Tensor>\", 17, 0, 4194304, 2], [\"<Tensor>\", 18, 0, 4194304, 2]]");
    n.mutable_inputs()->set_shapes("[[2048, 1024], [1024, 4096]]");
    n.mutable_inputs()->set_types("['Tensor(c10::BFloat16)', 'Tensor(c10::BFloat16)']");
    n.mutable_outputs()->set_shapes("[[2048, 4096]]");
    n.mutable_outputs()->set_types("['Tensor(c10::BFloat16)']");
  } else {
    n.set_name("aten::gelu");
    n.set_type(ChakraProtoMsg::COMP_NODE);
    n.set_duration_micros(15);
    n.mutable_inputs()->set_shapes("[[2048, 4096]]");
    n.mutable_inputs()->set_types("['Tensor(c10::BFloat16)']");
  }
  return n;
}

// Writes nodes until the file reaches `bytes` (or, with `minimal`, the most nodes t3sim reads,
// each an id, a type and a control dep: the most ops per byte); returns the node count.
uint64_t write_et(const std::filesystem::path& path, uint64_t bytes, bool minimal) {
  std::ofstream out(path, std::ios::binary);
  ChakraProtoMsg::GlobalMetadata meta;
  meta.set_version("0.0.4");
  put_record(out, meta);
  uint64_t i = 0;
  if (minimal) {
    for (; i < t3sim::workload::kMaxChakraNodes; ++i) {
      ChakraNode n;
      n.set_id(i);
      n.set_type(ChakraProtoMsg::COMP_NODE);
      if (i > 0) n.add_ctrl_deps(i - 1);
      put_record(out, n);
    }
    return i;
  }
  while (static_cast<uint64_t>(out.tellp()) < bytes) put_record(out, synthetic_node(i++));
  return i;
}

struct Cost {
  double wall_s = 0;
  double cpu_s = 0;
  double rss_mib = 0;
  bool ok = false;
};

Cost import_in_child(const std::filesystem::path& et, const std::filesystem::path& out) {
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    try {
      const t3sim::workload::ChakraImport imported = t3sim::workload::import_chakra({et});
      t3sim::workload::write_trace(imported.trace, out);
      _exit(0);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "import failed: %s\n", e.what());
      _exit(1);
    }
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  Cost c;
  c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  c.rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  c.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes_mb;
  for (int i = 1; i < argc; ++i) sizes_mb.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes_mb.empty()) sizes_mb = {10, 100};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("t3sim_bench_chakra_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::printf("%10s %10s %10s %10s %10s %10s %8s\n", "ET MB", "nodes", "trace MB", "peak MiB",
              "wall s", "cpu s", "peak/ET");
  int rc = 0;
  sizes_mb.push_back(0);  // the minimal-node case
  for (uint64_t mb : sizes_mb) {
    const std::filesystem::path et = dir / "synthetic.0.et";
    const std::filesystem::path out = dir / "synthetic.json";
    const uint64_t nodes = write_et(et, mb << 20, mb == 0);
    const double et_mb = static_cast<double>(std::filesystem::file_size(et)) / 1e6;
    const Cost c = import_in_child(et, out);
    const double trace_mb = c.ok ? static_cast<double>(std::filesystem::file_size(out)) / 1e6 : 0.0;
    std::printf("%10.1f %10llu %10.1f %10.1f %10.2f %10.2f %7.1fx%s\n", et_mb,
                static_cast<unsigned long long>(nodes), trace_mb, c.rss_mib, c.wall_s, c.cpu_s,
                c.rss_mib * 1.048576 / et_mb, c.ok ? "" : "  (failed)");
    if (!c.ok) rc = 1;
    std::filesystem::remove(et);
    std::filesystem::remove(out);
  }
  std::filesystem::remove_all(dir);
  return rc;
}
