// Runs `count` independent jobs on `threads` worker threads (each job builds its own Simulator, so
// nothing is shared), calling `done(i)` under a lock as each job finishes. Results must be stored
// by index by the caller, which makes the final output independent of the thread count.
// Contract: the first exception thrown by a job or by `done` (a result that cannot be written)
// stops the hand-out of new jobs and is rethrown from run_parallel() after the workers have
// joined; so is a failure to start a worker thread. Callers bound `threads` by kMaxThreads.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace t3sim::studies {

// The most worker threads a command accepts (--jobs, --threads): far above any useful count on one
// machine (each thread runs its own simulation), far below the point where starting them fails.
inline constexpr unsigned kMaxThreads = 256;

inline void run_parallel(size_t count, unsigned threads, const std::function<void(size_t)>& job,
                         const std::function<void(size_t)>& done = nullptr) {
  std::mutex mu;
  size_t next = 0;
  std::exception_ptr error;
  auto fail = [&] {  // under the lock
    if (!error) error = std::current_exception();
  };
  auto worker = [&] {
    while (true) {
      size_t i;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next >= count || error) return;
        i = next++;
      }
      try {
        job(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        fail();
        return;
      }
      if (done) {
        std::lock_guard<std::mutex> lock(mu);
        try {
          done(i);
        } catch (...) {
          fail();
          return;
        }
      }
    }
  };
  const unsigned n = threads == 0 ? 1 : threads;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) {
    try {
      pool.emplace_back(worker);
    } catch (...) {  // the system refused another thread: stop and report it
      std::lock_guard<std::mutex> lock(mu);
      fail();
      break;
    }
  }
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

inline unsigned default_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

}  // namespace t3sim::studies
