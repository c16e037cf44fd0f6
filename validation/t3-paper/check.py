#!/usr/bin/env python3
"""Checks a T3 reproduction's summary.json against the paper's fidelity targets.

Usage: validation/t3-paper/check.py [results/t3-paper/summary.json | results/t3-paper]
Prints one row per target: quantity, t3sim value, target +- tolerance, PASS/FAIL; exits 0 when
the file was read (whatever the verdicts), 2 when it cannot be read. The paper's numbers come from
the experiment file (paper_numbers.py; t3-paper.md §6 and §8); the tolerances are listed here.
"""
import json
import os
import sys

from paper_numbers import load_paper, lookup

# (label, path in summary.json, path in the experiment's "paper" block, tolerance). The paper's
# numbers themselves are read from the experiment file (paper_numbers.py).
TARGETS = [
    ("T3-MCA geomean speedup %", ("fig16", "t3-mca", "geomean_speedup_pct"),
     ("fig16", "t3-mca", "geomean"), 3),
    ("T3-MCA max speedup %", ("fig16", "t3-mca", "max_speedup_pct"), ("fig16", "t3-mca", "max"), 5),
    ("T3 geomean speedup %", ("fig16", "t3", "geomean_speedup_pct"), ("fig16", "t3", "geomean"), 3),
    ("T3 max speedup %", ("fig16", "t3", "max_speedup_pct"), ("fig16", "t3", "max"), 5),
    ("Ideal geomean speedup %", ("fig16", "ideal", "geomean_speedup_pct"),
     ("fig16", "ideal", "geomean"), 3),
    ("Ideal max speedup %", ("fig16", "ideal", "max_speedup_pct"), ("fig16", "ideal", "max"), 5),
    ("DRAM data movement geomean reduction %", ("data_movement", "geomean_reduction_pct"),
     ("data_movement", "geomean_reduction_pct"), 3),
    ("DRAM data movement max reduction %", ("data_movement", "max_reduction_pct"),
     ("data_movement", "max_reduction_pct"), 5),
    ("RS reads reduction x", ("data_movement", "rs_read_reduction_x"),
     ("data_movement", "rs_read_reduction_x"), 0.3),
    ("Large models T3-MCA geomean %", ("large_models", "t3-mca", "geomean_speedup_pct"),
     ("large_models", "t3-mca", "geomean"), 3),
    ("Large models T3-MCA max %", ("large_models", "t3-mca", "max_speedup_pct"),
     ("large_models", "t3-mca", "max"), 5),
    ("Fig. 6 ideal overlap x", ("fig6", "ideal_x"), ("fig6", "ideal_x"), 0.05),
    ("Fig. 6 AR on 8 CUs x", ("fig6", "cu8_x"), ("fig6", "cu8_x"), 0.05),
    ("Fig. 6 AR on 16 CUs x", ("fig6", "cu16_x"), ("fig6", "cu16_x"), 0.05),
]


def main(argv):
    path = argv[1] if len(argv) > 1 else "results/t3-paper/summary.json"
    if os.path.isdir(path):
        path = os.path.join(path, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
        paper = load_paper(summary.get("experiment", "t3-paper"))
    except (OSError, ValueError, KeyError) as e:
        print(f"check.py: cannot read {path}: {e} (run `t3sim reproduce` first)", file=sys.stderr)
        return 2
    passed = 0
    print(f"{'target':42} {'t3sim':>9} {'paper':>15}  verdict")
    for label, keys, paper_keys, tol in TARGETS:
        target = lookup(paper, paper_keys)
        value = lookup(summary, keys)
        if value is None:
            verdict, shown = "FAIL (missing)", "-"
        else:
            ok = abs(value - target) <= tol
            passed += ok
            verdict, shown = ("PASS" if ok else "FAIL"), f"{value:9.2f}"
        print(f"{label:42} {shown:>9} {target:>8} +- {tol:<4}  {verdict}")
    run = {}
    run_path = os.path.join(os.path.dirname(path), "run.json")
    if os.path.exists(run_path):  # the run log: wall time and threads of the run
        with open(run_path) as f:
            run = json.load(f)
    print(f"{passed}/{len(TARGETS)} targets within tolerance; wall {run.get('wall_s', 0):.2f} s, "
          f"{summary.get('events', 0)} events")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
