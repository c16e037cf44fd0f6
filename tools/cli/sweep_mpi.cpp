#include "cli/sweep_mpi.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "sim/errors.h"

#ifdef T3SIM_HAVE_MPI
#include <mpi.h>
#endif

namespace t3sim::cli {

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

namespace {
constexpr int kRowTag = 1;
constexpr int kDoneTag = 2;
}  // namespace

int run_sweep_mpi(const Env& env, const SweepSpec& spec, const std::string& out, bool resume,
                  unsigned threads, MpiSession& mpi) {
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
    run_sweep_share(env, spec, todo, threads, jsonl, [&](size_t i, const std::string& line) {
      const std::string msg = std::to_string(i) + "\n" + line;
      MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, 0, kRowTag, MPI_COMM_WORLD);
    });
    MPI_Send(nullptr, 0, MPI_CHAR, 0, kDoneTag, MPI_COMM_WORLD);
    return 0;
  }
  std::mutex mu;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      run_sweep_share(env, spec, todo, threads, jsonl, [&](size_t i, const std::string& line) {
        std::lock_guard<std::mutex> lock(mu);
        output->append(i, line);
      });
    } catch (...) {
      error = std::current_exception();
    }
  });
  for (unsigned finished = 1; finished < mpi.size();) {
    // Poll with a short nap: a blocking MPI_Probe spins a core that rank 0's worker needs.
    MPI_Status st;
    int arrived = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &st);
    if (!arrived) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      continue;
    }
    int len = 0;
    MPI_Get_count(&st, MPI_CHAR, &len);
    std::string msg(static_cast<size_t>(len), '\0');
    MPI_Recv(msg.data(), len, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (st.MPI_TAG == kDoneTag) {
      ++finished;
      continue;
    }
    const size_t nl = msg.find('\n');
    std::lock_guard<std::mutex> lock(mu);
    output->append(std::stoul(msg.substr(0, nl)), msg.substr(nl + 1));
  }
  worker.join();
  if (error) std::rethrow_exception(error);
  output->finalize();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "sweep %s: %zu points (%zu run now) in %.2f s, %.2f points/s, %u ranks x %u thread(s) -> "
      "%s\n",
      spec.name.c_str(), n, run_now, wall, wall > 0 ? static_cast<double>(run_now) / wall : 0.0,
      mpi.size(), threads, out.c_str());
  return 0;
}

#else

MpiSession::MpiSession() = default;
MpiSession::~MpiSession() = default;

int run_sweep_mpi(const Env&, const SweepSpec&, const std::string&, bool, unsigned, MpiSession&) {
  throw UsageError("this t3sim was built without MPI (install libopenmpi-dev and rebuild)");
}

#endif

}  // namespace t3sim::cli
