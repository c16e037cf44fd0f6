#!/usr/bin/python3
"""Compare t3sim's collectives with the stored nccl-tests sweeps (measurements.md §1(A), §2(H)).

Runs `t3sim nccl-tests all_reduce_perf --compare CSV` for the 8x A100 (dgx-a100) and the 2-node
p4de (p4de-2node) sweeps and prints the tables the CLI writes (simulated time, algbw, busbw, the
measured busbw and the error per size) plus the median absolute busbw error over sizes >= 1 MiB.
Tolerance: the A100 sweep must stay within a 10 % median (the calibration target); the p4de sweep
is reported only. Standard-library Python; exit code 1 if the tolerance is missed.

usage: compare.py [--t3sim PATH] [--full] [--only a100|p4de]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
A100_TOLERANCE_PCT = 10.0

# name, system, measured CSV, sizes (quick), sizes (--full), tolerance (None = report only)
SWEEPS = [
    ("a100", "dgx-a100", "a100_8gpu_allreduce.csv", ["-b", "1M", "-e", "1G", "-f", "2"],
     ["-b", "1M", "-e", "16G", "-f", "2"], A100_TOLERANCE_PCT),
    ("p4de", "p4de-2node", "p4de_2node_allreduce.csv", ["-b", "1M", "-e", "1G", "-f", "4"],
     ["-b", "1M", "-e", "2G", "-f", "2"], None),
]


def find_t3sim(explicit):
    if explicit:
        return explicit
    if os.environ.get("T3SIM"):
        return os.environ["T3SIM"]
    for build in ("build", "build-release", "cmake-build-release"):
        path = os.path.join(ROOT, build, "tools", "t3sim")
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("t3sim")
    if found:
        return found
    sys.exit("compare.py: no t3sim binary found (build it, or pass --t3sim PATH / set T3SIM)")


def run_sweep(t3sim, system, csv, sizes):
    cmd = [t3sim, "nccl-tests", "all_reduce_perf", "--system", system, "--compare",
           os.path.join(HERE, csv)] + sizes
    start = time.monotonic()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - start
    if out.returncode != 0:
        sys.exit("compare.py: %s failed (%d):\n%s" % (" ".join(cmd), out.returncode, out.stderr))
    match = re.search(r"Median \|busbw error\| \(sizes >= 1 MiB\): ([0-9.]+) %", out.stdout)
    median = float(match.group(1)) if match else None
    return " ".join(cmd), out.stdout, median, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t3sim", help="path of the t3sim binary")
    parser.add_argument("--full", action="store_true",
                        help="every measured size (A100 up to 16 GiB, p4de up to 2 GiB; slow)")
    parser.add_argument("--only", choices=[s[0] for s in SWEEPS], help="run one sweep")
    args = parser.parse_args()
    t3sim = find_t3sim(args.t3sim)
    failed = False
    for name, system, csv, quick, full, tolerance in SWEEPS:
        if args.only and args.only != name:
            continue
        cmd, table, median, wall = run_sweep(t3sim, system, csv, full if args.full else quick)
        print("$ " + cmd)
        print(table.rstrip())
        verdict = "report only"
        if tolerance is not None:
            ok = median is not None and median <= tolerance
            verdict = "PASS" if ok else "FAIL"
            failed = failed or not ok
            verdict += " (tolerance %.0f %%)" % tolerance
        print("# %s: median |busbw error| = %s %%, %s; wall %.1f s\n"
              % (name, "n/a" if median is None else "%.1f" % median, verdict, wall))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
