// Runs `count` independent jobs on `threads` worker threads (each job builds its own Simulator, so
// nothing is shared), calling `done(i)` under a lock as each job finishes. Results must be stored
// by index by the caller, which makes the final output independent of the thread count.
// Contract: the first exception thrown by a job stops the hand-out of new jobs and is rethrown
// from run_parallel() after the workers have joined.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace t3sim::studies {

inline void run_parallel(size_t count, unsigned threads, const std::function<void(size_t)>& job,
                         const std::function<void(size_t)>& done = nullptr) {
  std::mutex mu;
  size_t next = 0;
  std::exception_ptr error;
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
        if (!error) error = std::current_exception();
        return;
      }
      if (done) {
        std::lock_guard<std::mutex> lock(mu);
        done(i);
      }
    }
  };
  const unsigned n = threads == 0 ? 1 : threads;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

inline unsigned default_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

}  // namespace t3sim::studies
