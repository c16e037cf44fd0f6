#include "studies/sweep_runner.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <utility>

#include "sim/errors.h"

#ifdef T3SIM_HAVE_MPI
#include <dlfcn.h>

#include "studies/mpi_module.h"
#endif

namespace t3sim::studies {

int sweep_exit_code(const std::exception& e) {
  return dynamic_cast<const ConfigError*>(&e) != nullptr ||
                 dynamic_cast<const UsageError*>(&e) != nullptr
             ? 2
             : 1;
}

#ifdef T3SIM_HAVE_MPI

// Opens the MPI module (mpi_module.h) only under a launcher: plain runs never load Open MPI. Open
// MPI's own plugins resolve its symbols globally, hence RTLD_GLOBAL.
MpiSession::MpiSession() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_SIZE") == nullptr) return;
  void* lib = dlopen(T3SIM_MPI_MODULE, RTLD_NOW | RTLD_GLOBAL);
  const auto get = lib == nullptr
                       ? nullptr
                       : reinterpret_cast<const T3simMpiApi* (*)()>(dlsym(lib, "t3sim_mpi_api"));
  const T3simMpiApi* api = get == nullptr ? nullptr : get();
  if (api == nullptr || api->version != kMpiModuleVersion) {
    const char* why = lib == nullptr ? dlerror() : "not a matching t3sim MPI module";
    throw UsageError(std::string("cannot load the MPI module ") + T3SIM_MPI_MODULE + ": " +
                     (why != nullptr ? why : "unknown error") + " (rebuild t3sim)");
  }
  api_ = api;
  int s = 1, r = 0;
  api_->init(&r, &s);
  size_ = static_cast<unsigned>(s);
  rank_ = static_cast<unsigned>(r);
}

MpiSession::~MpiSession() {
  if (api_ != nullptr) api_->finalize();
}

void MpiSession::abort(int code) {
  std::fflush(nullptr);
  if (api_ != nullptr) api_->abort(code);
  std::exit(code);
}

namespace {
constexpr int kRowTag = 1;
constexpr int kDoneTag = 2;
constexpr int kFailTag = 3;  // a point failed on that rank: exit status digit + the line to print

// The line a failed rank's error becomes (rank 0 prints it).
std::string failure_line(const std::exception& e, unsigned rank, unsigned size) {
  return std::string(sweep_exit_code(e) == 2 ? "" : "internal error: ") + e.what() + " (rank " +
         std::to_string(rank) + " of " + std::to_string(size) + ")";
}
}  // namespace

MpiSweepResult run_sweep_mpi(const Env& env, const SweepSpec& spec, const std::string& out,
                             bool resume, unsigned threads, MpiSession& mpi) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t n = spec.points();
  std::vector<char> done(n, 0);
  std::unique_ptr<SweepOutput> output;
  if (mpi.rank() == 0) {
    output = std::make_unique<SweepOutput>(out, spec, resume, sweep_fingerprint(env, spec));
    for (size_t i = 0; i < n; ++i) done[i] = output->done(i) ? 1 : 0;
  }
  const T3simMpiApi& api = *mpi.api();
  api.bcast(done.data(), static_cast<int>(n));
  size_t run_now = 0;
  for (const char d : done) run_now += d ? 0 : 1;
  std::vector<size_t> todo;
  for (size_t i = mpi.rank(); i < n; i += mpi.size()) {
    if (!done[i]) todo.push_back(i);
  }
  const bool jsonl = is_jsonl(out);
  if (mpi.rank() != 0) {
    // Rows go out with non-blocking sends, so a rank never waits for rank 0 to drain its queue
    // (a blocking send stalls whenever the transport's eager buffers are full). A deque keeps
    // each message's bytes in place until its send completes.
    std::deque<std::pair<std::string, void*>> pending;
    auto reap = [&] {
      while (!pending.empty()) {
        if (!api.test(pending.front().second)) return;
        pending.pop_front();
      }
    };
    try {
      run_sweep_share(env, spec, todo, threads, jsonl, [&](size_t i, const std::string& line) {
        auto& m = pending.emplace_back(std::to_string(i) + "\n" + line, nullptr);
        m.second = api.isend(m.first.data(), static_cast<int>(m.first.size()), kRowTag);
        reap();
      });
    } catch (const std::exception& e) {
      // Rank 0 removes the output and ends every rank; this one waits for that (no message
      // ever comes to a rank > 0), so no rank exits while the file is still there.
      for (auto& m : pending) api.wait(m.second);
      const std::string msg =
          std::to_string(sweep_exit_code(e)) + failure_line(e, mpi.rank(), mpi.size());
      api.send(msg.data(), static_cast<int>(msg.size()), kFailTag);
      int source = 0, tag = 0, len = 0;
      api.probe(1, &source, &tag, &len);
      throw;
    }
    for (auto& m : pending) api.wait(m.second);
    api.send(nullptr, 0, kDoneTag);
    return MpiSweepResult{};  // rank 0 reports
  }
  // Rank 0 runs its own share on this thread and takes in the other ranks' rows between its
  // points: no second thread polling MPI (short sleeps and MPI's busy-wait both cost a core here),
  // and rows are written within one point's time of arriving. Once its share is done it blocks
  // for the rest, when it has no work of its own left to slow down.
  unsigned finished = 1;
  // Takes the message probe() found (blocking or not); false when none was waiting.
  auto take = [&](bool block) {
    int source = 0, tag = 0, len = 0;
    if (!api.probe(block ? 1 : 0, &source, &tag, &len)) return false;
    std::string msg(static_cast<size_t>(len), '\0');
    api.recv(msg.data(), len, source, tag);
    if (tag == kDoneTag) {
      ++finished;
      return true;
    }
    if (tag == kFailTag) throw SweepRankError(msg.front() - '0', msg.substr(1));
    const size_t nl = msg.find('\n');
    output->append(std::stoul(msg.substr(0, nl)), msg.substr(nl + 1));
    return true;
  };
  auto drain = [&] {
    while (take(false)) {
    }
  };
  try {
    run_sweep_share(env, spec, todo, threads, jsonl, [&](size_t i, const std::string& line) {
      output->append(i, line);  // calls are serialised: MPI from one thread at a time
      drain();
    });
    while (finished < mpi.size()) take(true);
    output->finalize();
  } catch (...) {
    output->discard();  // no header-only or partial file from a failed point, on any rank
    throw;
  }
  return MpiSweepResult{
      n, run_now, output->stale(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

#else

MpiSession::MpiSession() = default;
MpiSession::~MpiSession() = default;
void MpiSession::abort(int code) {
  std::fflush(nullptr);
  std::exit(code);
}

MpiSweepResult run_sweep_mpi(const Env&, const SweepSpec&, const std::string&, bool, unsigned,
                             MpiSession&) {
  throw UsageError("this t3sim was built without MPI (install libopenmpi-dev and rebuild)");
}

#endif

}  // namespace t3sim::studies
