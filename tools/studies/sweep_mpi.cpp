#include "tools/studies/sweep_runner.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <utility>

#include "sim/errors.h"

#ifdef T3SIM_HAVE_MPI
#include <mpi.h>
#endif

namespace t3sim::studies {

#ifdef T3SIM_HAVE_MPI

MpiSession::MpiSession() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_SIZE") == nullptr) return;
  int provided = 0;
  // Ranks > 0 send rows from whichever worker thread finished the point (one at a time).
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  active_ = true;
  int s = 1, r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  size_ = static_cast<unsigned>(s);
  rank_ = static_cast<unsigned>(r);
}

MpiSession::~MpiSession() {
  if (active_) MPI_Finalize();
}

void MpiSession::abort(int code) {
  std::fflush(nullptr);
  if (active_) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

namespace {
constexpr int kRowTag = 1;
constexpr int kDoneTag = 2;
}  // namespace

MpiSweepResult run_sweep_mpi(const Env& env, const SweepSpec& spec, const std::string& out,
                             bool resume, unsigned threads, MpiSession& mpi) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t n = spec.points();
  std::vector<char> done(n, 0);
  std::unique_ptr<SweepOutput> output;
  if (mpi.rank() == 0) {
    output = std::make_unique<SweepOutput>(out, spec, resume);
    for (size_t i = 0; i < n; ++i) done[i] = output->done(i) ? 1 : 0;
  }
  MPI_Bcast(done.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
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
    std::deque<std::pair<std::string, MPI_Request>> pending;
    auto reap = [&] {
      while (!pending.empty()) {
        int done = 0;
        MPI_Test(&pending.front().second, &done, MPI_STATUS_IGNORE);
        if (!done) return;
        pending.pop_front();
      }
    };
    run_sweep_share(env, spec, todo, threads, jsonl, [&](size_t i, const std::string& line) {
      auto& m = pending.emplace_back(std::to_string(i) + "\n" + line, MPI_REQUEST_NULL);
      MPI_Isend(m.first.data(), static_cast<int>(m.first.size()), MPI_CHAR, 0, kRowTag,
                MPI_COMM_WORLD, &m.second);
      reap();
    });
    for (auto& m : pending) MPI_Wait(&m.second, MPI_STATUS_IGNORE);
    MPI_Send(nullptr, 0, MPI_CHAR, 0, kDoneTag, MPI_COMM_WORLD);
    return MpiSweepResult{};  // rank 0 reports
  }
  // Rank 0 runs its own share on this thread and takes in the other ranks' rows between its
  // points: no second thread polling MPI (short sleeps and MPI's busy-wait both cost a core here),
  // and rows are written within one point's time of arriving. Once its share is done it blocks
  // for the rest, when it has no work of its own left to slow down.
  unsigned finished = 1;
  auto take = [&](const MPI_Status& st) {
    int len = 0;
    MPI_Get_count(&st, MPI_CHAR, &len);
    std::string msg(static_cast<size_t>(len), '\0');
    MPI_Recv(msg.data(), len, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (st.MPI_TAG == kDoneTag) {
      ++finished;
      return;
    }
    const size_t nl = msg.find('\n');
    output->append(std::stoul(msg.substr(0, nl)), msg.substr(nl + 1));
  };
  auto drain = [&] {
    for (;;) {
      MPI_Status st;
      int arrived = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &st);
      if (!arrived) return;
      take(st);
    }
  };
  run_sweep_share(env, spec, todo, threads, jsonl, [&](size_t i, const std::string& line) {
    output->append(i, line);  // calls are serialised: MPI from one thread at a time
    drain();
  });
  while (finished < mpi.size()) {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    take(st);
  }
  output->finalize();
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
