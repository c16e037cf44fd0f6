#!/usr/bin/env python3
"""Checks a T3 reproduction's summary.json against the paper's fidelity targets.

Usage: validation/t3-paper/check.py [results/t3-paper/summary.json]
Prints one row per target: quantity, t3sim value, target +- tolerance, PASS/FAIL; exits 0 when
the file was read (whatever the verdicts), 2 when it cannot be read. Targets and tolerances come
from the project's issue 7 (paper numbers: t3-paper.md §6 and §8).
"""
import json
import sys

# (label, path in summary.json, target, tolerance)
TARGETS = [
    ("T3-MCA geomean speedup %", ("fig16", "t3-mca", "geomean_speedup_pct"), 30, 3),
    ("T3-MCA max speedup %", ("fig16", "t3-mca", "max_speedup_pct"), 47, 5),
    ("T3 geomean speedup %", ("fig16", "t3", "geomean_speedup_pct"), 20, 3),
    ("T3 max speedup %", ("fig16", "t3", "max_speedup_pct"), 39, 5),
    ("Ideal geomean speedup %", ("fig16", "ideal", "geomean_speedup_pct"), 35, 3),
    ("Ideal max speedup %", ("fig16", "ideal", "max_speedup_pct"), 50, 5),
    ("DRAM data movement geomean reduction %", ("data_movement", "geomean_reduction_pct"), 22, 3),
    ("DRAM data movement max reduction %", ("data_movement", "max_reduction_pct"), 36, 5),
    ("RS reads reduction x", ("data_movement", "rs_read_reduction_x"), 2.4, 0.3),
    ("Large models T3-MCA geomean %", ("large_models", "t3-mca", "geomean_speedup_pct"), 29, 3),
    ("Large models T3-MCA max %", ("large_models", "t3-mca", "max_speedup_pct"), 35, 5),
    ("Fig. 6 ideal overlap x", ("fig6", "ideal_x"), 1.67, 0.05),
    ("Fig. 6 AR on 8 CUs x", ("fig6", "cu8_x"), 1.18, 0.05),
    ("Fig. 6 AR on 16 CUs x", ("fig6", "cu16_x"), 1.49, 0.05),
]


def lookup(summary, path):
    node = summary
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def main(argv):
    path = argv[1] if len(argv) > 1 else "results/t3-paper/summary.json"
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check.py: cannot read {path}: {e} (run `t3sim reproduce` first)", file=sys.stderr)
        return 2
    passed = 0
    print(f"{'target':42} {'t3sim':>9} {'paper':>15}  verdict")
    for label, keys, target, tol in TARGETS:
        value = lookup(summary, keys)
        if value is None:
            verdict, shown = "FAIL (missing)", "-"
        else:
            ok = abs(value - target) <= tol
            passed += ok
            verdict, shown = ("PASS" if ok else "FAIL"), f"{value:9.2f}"
        print(f"{label:42} {shown:>9} {target:>8} +- {tol:<4}  {verdict}")
    print(f"{passed}/{len(TARGETS)} targets within tolerance; wall {summary.get('wall_s', 0):.2f} s, "
          f"{summary.get('events', 0)} events")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
