#!/usr/bin/env python3
"""Imports every trace of the Kineto corpus (kineto_corpus.tsv, fetched by fetch_corpus.sh) with
`t3sim trace import-kineto` and prints, per trace: imported or the one-line reason it was not,
its GPU time, the share of that time simulated (GEMMs, communication and memory ops) and why the
rest is not simulated, as counted reasons with their share (no shapes recorded: record_shapes off; a
convolution without stride/padding; a kernel linked to no host op; ...); then how many imported,
the median share over the imported traces, and per reason how many traces it costs and what to
turn on in the profiler.

Usage: traces/corpus/kineto_corpus.py T3SIM [CACHE_DIR] [--json OUT.json]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def corpus(cache):
    with open(os.path.join(HERE, "kineto_corpus.tsv"), encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, _repo, _commit, path, member, _size = line.rstrip("\n").split("\t")
            ext = ".json.gz" if member == "-" and path.endswith(".gz") else ".json"
            yield name, os.path.join(cache, name + ext)


def run_one(t3sim, path, tmp):
    out, summary = os.path.join(tmp, "t.json"), os.path.join(tmp, "s.json")
    for f in (out, summary):
        if os.path.exists(f):
            os.remove(f)
    p = subprocess.run([t3sim, "trace", "import-kineto", path, "-o", out, "--summary-json", summary],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        return {"imported": False, "reason": lines[-1] if lines else f"exit {p.returncode}"}
    with open(summary, encoding="utf-8") as f:
        s = json.load(f)
    fixed = [c for c in s.get("categories", []) if not c.get("simulated", False)]
    top = max(fixed, key=lambda c: c.get("gpu_us", 0), default=None)
    why = sorted(s.get("not_simulated", []), key=lambda r: -r["gpu_us"])
    return {"imported": True, "gpu_us": s["gpu_us"], "simulated_pct": s["simulated_pct"],
            "largest_fixed": f"{top['category']} {top['share_pct']:.0f} %" if top else "",
            "not_simulated": why, "warnings": len(s.get("warnings", []))}


def why_text(row):
    """The reasons of one trace, largest first: "no shapes recorded (...) 63 %, ..."."""
    parts = [f"{r['why']} {r['share_pct']:.0f} % ({r['ops']} ops)" for r in row["not_simulated"]
             if r["share_pct"] >= 0.5]
    return "; ".join(parts) if parts else "-"


def tally(rows):
    """Per reason over the imported traces: traces it applies to, GPU time, the fix."""
    out = {}
    for row in rows:
        for r in row["not_simulated"]:
            t = out.setdefault(r["reason"], {"why": r["why"], "fix": r["fix"], "traces": 0,
                                              "ops": 0, "gpu_us": 0.0})
            t["traces"] += 1
            t["ops"] += r["ops"]
            t["gpu_us"] += r["gpu_us"]
    return sorted(out.values(), key=lambda t: -t["gpu_us"])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--json")]
    json_out = None
    if "--json" in sys.argv:
        json_out = sys.argv[sys.argv.index("--json") + 1]
        args.remove(json_out)
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    t3sim = args[0]
    cache = args[1] if len(args) > 1 else os.path.join(ROOT, "results", "kineto-corpus")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in corpus(cache):
            r = {"name": name}
            if not os.path.exists(path):
                r.update(imported=False, reason="not fetched (run traces/corpus/fetch_corpus.sh)")
            else:
                r.update(run_one(t3sim, path, tmp))
            rows.append(r)
            if r["imported"]:
                print(f"{name:58} imported  {r['gpu_us'] / 1000:10.2f} ms  "
                      f"simulated {r['simulated_pct']:5.1f} %  not simulated: {why_text(r)}")
            else:
                print(f"{name:58} NOT       {r['reason']}")
    ok = [r for r in rows if r["imported"]]
    shares = [r["simulated_pct"] for r in ok]
    median = statistics.median(shares) if shares else 0.0
    gpu = sum(r["gpu_us"] for r in ok)
    weighted = sum(r["gpu_us"] * r["simulated_pct"] for r in ok) / gpu if gpu else 0.0
    print(f"{len(ok)}/{len(rows)} imported; median share of GPU time simulated {median:.1f} % "
          f"(GPU-time weighted {weighted:.1f} %)")
    reasons = tally(ok)
    for t in reasons:
        share = 100.0 * t["gpu_us"] / gpu if gpu else 0.0
        fix = f"; in the profiler: {t['fix']}" if t["fix"] else ""
        print(f"  not simulated: {t['why']}: {t['traces']} traces, {t['ops']} ops, "
              f"{share:.1f} % of the imported GPU time{fix}")
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump({"traces": rows, "imported": len(ok), "total": len(rows),
                       "median_simulated_pct": median, "not_simulated": reasons}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
