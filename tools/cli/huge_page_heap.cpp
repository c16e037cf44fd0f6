#include "cli/huge_page_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace t3sim::cli {

void use_huge_page_heap() {
#if defined(__GLIBC__)
  constexpr size_t kStep = size_t{64} << 20;       // heap growth per sbrk (virtual until touched)
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;  // x86-64 huge page
  constexpr size_t kGrow = size_t{256} << 10;      // more than the free top of a fresh heap
  if (mallopt(M_TOP_PAD, kStep) == 0) return;      // not glibc's malloc after all
  mallopt(M_TRIM_THRESHOLD, 4 * kStep);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  const auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  // A block larger than the free top makes malloc grow the heap by it plus the step. Carving it
  // wrote the header of the free rest just past it: that page has 4 KiB pages now, so the huge
  // range starts above it. (The volatile keeps the compiler from dropping the malloc/free pair.)
  void* volatile block = std::malloc(kGrow);
  const auto at = reinterpret_cast<uintptr_t>(block);
  std::free(block);
  const auto end = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t start = (std::max(before, at + kGrow + 64) + kHuge - 1) & ~(kHuge - 1);
  if (block == nullptr || before == static_cast<uintptr_t>(-1) || at < before - kGrow ||
      end < start + kHuge) {
    return;  // the heap did not grow as expected: leave it as it is
  }
  if (madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE) != 0) return;
  // The heap below `start` (up to 2 MiB more than the block, wherever ASLR put the heap) keeps 4
  // KiB pages: one block, held for the whole run and never touched past its header, takes it up
  // (malloc hands it out where the freed block was), so the run's allocations come from huge pages.
  void* volatile filler = std::malloc(start - at - 2 * sizeof(size_t));  // never freed
  static_cast<void>(filler);
#endif
}

}  // namespace t3sim::cli
