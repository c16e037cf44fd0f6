// Start-up tuning of the process heap for speed: the main heap grows in 64 MiB steps, is never
// trimmed, takes blocks up to 32 MiB (larger ones are mapped as usual), and is marked for
// transparent huge pages (madvise), so a run's few MiB of model state cost a few 2 MiB page faults
// instead of thousands of 4 KiB ones (each ~15 us on the 2-core VM: ~500 of them were ~8 ms of a
// 0.08 s folded all-reduce). Fidelity: none (addresses only; no output depends on them). Contract:
// call once, first thing in main(); where THP is off or malloc is not glibc's (sanitizers) it
// changes nothing.
#pragma once

namespace t3sim::cli {

void use_huge_page_heap();

}  // namespace t3sim::cli
