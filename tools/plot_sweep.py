#!/usr/bin/python3
"""Plot a `t3sim sweep` result CSV: speedup of each mode over a baseline mode.

Usage: /usr/bin/python3 tools/plot_sweep.py RESULTS.csv --out DIR [--x AXIS] [--y AXIS]
           [--metric COLUMN] [--baseline-mode sequential] [--facet COLUMN]
           [--figures heatmap,lines] [--formats png,pdf,svg]

RESULTS.csv has one row per sweep point: one column per sweep axis (config paths such as
`fabric.link.bandwidth`, or plain names such as `model`, `tp`, `mode`, `sublayer`), then the result
columns total_us,gemm_us,rs_exposed_us,ag_us,dram_total,link_bytes,events. For every row whose
mode is not the baseline, the speedup is (baseline METRIC / METRIC - 1) x 100 %, the baseline being
the row(s) of --baseline-mode that agree on every other axis column (several such rows are averaged).

Writes into DIR (created if needed), STEM being RESULTS.csv's name without its extension:
  STEM_heatmap.png  mean speedup over (--x, --y) per mode, one annotated panel per non-baseline mode;
                    --x/--y default to the first two non-mode axes with more than one value.
  STEM_lines.png    mean speedup vs --x, one line per mode (band: min..max over the other axes),
                    one panel per value of --facet when given.
Axis values sort by their numeric value when they have one ("150 GB/s" < "1.2 TB/s"), otherwise
keep the order in which they first appear. Each figure is written in every --formats format (PNG
at 200 dpi and PDF by default; colour-blind-safe palettes), to a temporary file then renamed, mode
0666 less the umask.
Exit status 2 with a one-line message for unknown columns, modes or unreadable input.
"""

import argparse
import csv
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# plot_t3: the shared mode colours/labels and atomic save; importing it selects the Agg backend.
from plot_t3 import FORMATS, KNOWN_FORMATS, mode_color, mode_label, norm_mode, parse_list  # noqa: E402,E501
from plot_t3 import save_atomic, sort_modes  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import Normalize  # noqa: E402

PROG = "plot_sweep"
RESULT_COLS = ["total_us", "gemm_us", "rs_exposed_us", "ag_us", "dram_total", "link_bytes",
               "events"]


class UsageError(Exception):
    pass


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


# ---------------------------------------------------------------------------------------------
# Sorting axis values by their numeric value ("150 GB/s", "1.2 TB/s", "8", "OP").

_NUM_RE = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")
_PREFIXES = {"Ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30, "Ti": 2.0 ** 40,
             "p": 1e-12, "n": 1e-9, "u": 1e-6, "µ": 1e-6, "m": 1e-3, "k": 1e3, "K": 1e3,
             "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def _unit_candidates(suffix):
    """(scale, base unit) readings of a unit suffix: as is, and with an SI/binary prefix."""
    out = [(1.0, suffix)]
    for p, f in _PREFIXES.items():
        if suffix.startswith(p) and len(suffix) > len(p):
            out.append((f, suffix[len(p):]))
    return out


def sort_values(values):
    """Distinct values, numeric ones (with a common unit, prefixes scaled) by value first, then the
    rest in first-appearance order."""
    values = list(dict.fromkeys(values))
    parsed = {}
    for v in values:
        m = _NUM_RE.match(v)
        if m:
            parsed[v] = (float(m.group(1)), m.group(2))
    scale = {v: 1.0 for v in parsed}
    suffixes = {s for _, s in parsed.values()}
    if len(suffixes) > 1:
        # Find a base unit every suffix can be read as, e.g. "GB/s" and "TB/s" -> "B/s".
        common = None
        for s in suffixes:
            bases = {b for _, b in _unit_candidates(s)}
            common = bases if common is None else common & bases
        if common:
            base = sorted(common, key=len, reverse=True)[0]
            for v, (_, s) in parsed.items():
                scale[v] = next(f for f, b in _unit_candidates(s) if b == base)
    numeric = sorted(parsed, key=lambda v: (parsed[v][0] * scale[v], values.index(v)))
    return numeric + [v for v in values if v not in parsed]


# ---------------------------------------------------------------------------------------------

def load(path, args):
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in (reader.fieldnames or [])]
        rows = [{(k or "").strip(): (v or "").strip() for k, v in r.items()} for r in reader]
    if not header:
        raise UsageError(f"{path}: empty file (no header row)")
    first_result = next((i for i, h in enumerate(header) if h in RESULT_COLS), None)
    if first_result is None:
        raise UsageError(f"{path}: no result column (expected some of {','.join(RESULT_COLS)})")
    axes = [h for h in header[:first_result] if h != "index"]  # the point number is no axis
    results = header[first_result:]
    mode_col = next((a for a in axes if a == "mode"), None) or \
        next((a for a in axes if a.split(".")[-1] == "mode"), None)
    if mode_col is None:
        raise UsageError(f"{path}: no 'mode' axis column (axis columns: {', '.join(axes) or '-'})")
    if not rows:
        raise UsageError(f"{path}: no data rows")
    others = [a for a in axes if a != mode_col]

    def check_axis(opt, name):
        if name is None:
            return
        if name == mode_col:
            raise UsageError(f"--{opt} {name}: the mode column cannot be a plot axis")
        if name not in others:
            raise UsageError(f"unknown column '{name}' for --{opt} "
                             f"(axis columns: {', '.join(others) or '-'})")

    check_axis("x", args.x)
    check_axis("y", args.y)
    check_axis("facet", args.facet)
    if args.metric not in results:
        raise UsageError(f"unknown column '{args.metric}' for --metric "
                         f"(result columns: {', '.join(results)})")
    if args.x is not None and args.x == args.y:
        raise UsageError(f"--x and --y are both '{args.x}'")
    if args.facet is not None and args.facet == args.x:
        raise UsageError(f"--facet and --x are both '{args.facet}'")
    modes = sort_modes([r[mode_col] for r in rows])
    base = next((m for m in modes if norm_mode(m) == norm_mode(args.baseline_mode)), None)
    if base is None:
        raise UsageError(f"baseline mode '{args.baseline_mode}' not in column '{mode_col}' "
                         f"(modes: {', '.join(modes)})")
    return rows, others, mode_col, modes, base


def compute_speedups(rows, others, mode_col, base, metric):
    """Records {axis: value, ..., 'mode', 'speedup'} for every non-baseline row with a baseline."""
    sums = {}
    for r in rows:
        if r[mode_col] == base:
            v = num(r[metric])
            if v > 0:
                k = tuple(r[a] for a in others)
                s, n = sums.get(k, (0.0, 0))
                sums[k] = (s + v, n + 1)
    baseline = {k: s / n for k, (s, n) in sums.items()}
    recs, no_base, bad = [], 0, 0
    for r in rows:
        if r[mode_col] == base:
            continue
        k = tuple(r[a] for a in others)
        v = num(r[metric])
        if k not in baseline:
            no_base += 1
            continue
        if not v > 0:
            bad += 1
            continue
        rec = {a: r[a] for a in others}
        rec["mode"] = r[mode_col]
        rec["speedup"] = (baseline[k] / v - 1.0) * 100.0
        recs.append(rec)
    if no_base:
        print(f"{PROG}: {no_base} row(s) have no '{base}' row agreeing on the other axes; skipped",
              file=sys.stderr)
    if bad:
        print(f"{PROG}: {bad} row(s) have no positive {metric}; skipped", file=sys.stderr)
    return recs


def metric_label(metric, base):
    if metric == "total_us":
        return f"Speedup over {base} (%)"
    return f"{metric}: {base} / mode − 1 (%)"


def _panel_grid(n, max_cols=3):
    ncols = min(n, max_cols)
    return (n + ncols - 1) // ncols, ncols


def plot_heatmap(recs, modes, base, x, y, metric, out_dir, name, x_vals, y_vals):
    pmodes = [m for m in modes if m != base and any(r["mode"] == m for r in recs)]
    grids = {}
    for m in pmodes:
        acc = {}
        for r in recs:
            if r["mode"] != m:
                continue
            key = (r[x], r[y] if y else "")
            acc.setdefault(key, []).append(r["speedup"])
        g = np.full((len(y_vals), len(x_vals)), np.nan)
        for (xv, yv), vs in acc.items():
            g[y_vals.index(yv), x_vals.index(xv)] = sum(vs) / len(vs)
        grids[m] = g
    allv = np.concatenate([g[~np.isnan(g)] for g in grids.values()]) if grids else np.array([])
    lo = float(allv.min()) if allv.size else -1.0
    hi = float(allv.max()) if allv.size else 1.0
    lim = max(abs(lo), abs(hi), 1e-6)
    norm = Normalize(vmin=-lim, vmax=lim)  # symmetric: white = no change, blue = faster
    cmap = plt.get_cmap("RdBu").copy()
    cmap.set_bad("#dddddd")
    nr, nc = _panel_grid(len(pmodes))
    cw = max(3.2, 0.9 * len(x_vals) + 1.6)
    ch = max(2.4, 0.55 * len(y_vals) + 1.4) if y else 1.9
    fig, axes = plt.subplots(nr, nc, figsize=(cw * nc + 1.2, ch * nr + 0.8), squeeze=False)
    im = None
    for i, m in enumerate(pmodes):
        ax = axes[i // nc][i % nc]
        g = grids[m]
        im = ax.imshow(np.ma.masked_invalid(g), cmap=cmap, norm=norm, origin="lower",
                       aspect="auto")
        for yi in range(g.shape[0]):
            for xi in range(g.shape[1]):
                v = g[yi, xi]
                if np.isnan(v):
                    ax.text(xi, yi, "–", ha="center", va="center", fontsize=8, color="#666666")
                    continue
                dark = abs(norm(v) - 0.5) > 0.3
                ax.text(xi, yi, f"{v:.1f}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
        ax.set_xticks(range(len(x_vals)))
        ax.set_xticklabels(x_vals, fontsize=8, rotation=30 if len(x_vals) > 4 else 0,
                           ha="right" if len(x_vals) > 4 else "center")
        if y:
            ax.set_yticks(range(len(y_vals)))
            ax.set_yticklabels(y_vals, fontsize=8)
        else:
            ax.set_yticks([])
        ax.set_xlabel(x, fontsize=9)
        if i % nc == 0 and y:
            ax.set_ylabel(y, fontsize=9)
        ax.set_title(mode_label(m), fontsize=10,
                     bbox=dict(facecolor=mode_color(m), alpha=0.35, edgecolor="none", pad=2))
    for i in range(len(pmodes), nr * nc):
        axes[i // nc][i % nc].set_visible(False)
    what = metric_label(metric, base).replace(" (%)", "")
    fig.suptitle(f"{what} (%) by {x}" + (f" and {y}" if y else "")
                 + ", mean over the other sweep axes", fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.9 if nc > 1 else 0.86, 1))
    cax = fig.add_axes([0.92 if nc > 1 else 0.88, 0.15, 0.018, 0.7])
    cb = fig.colorbar(im, cax=cax)
    cb.set_label(metric_label(metric, base), fontsize=8)
    cb.ax.tick_params(labelsize=7)
    save_atomic(fig, out_dir, name)


def plot_lines(recs, modes, base, x, facet, metric, out_dir, name, x_vals, f_vals):
    pmodes = [m for m in modes if m != base and any(r["mode"] == m for r in recs)]
    nr, nc = _panel_grid(len(f_vals))
    w = max(4.8, 0.7 * len(x_vals) + 2.5)
    fig, axes = plt.subplots(nr, nc, figsize=(w * nc, 3.6 * nr + 0.6), squeeze=False,
                             sharey=True)
    xs = np.arange(len(x_vals))
    for i, fv in enumerate(f_vals):
        ax = axes[i // nc][i % nc]
        ax.axhline(0.0, color=mode_color(base), linestyle="--", linewidth=1.2,
                   label=f"{mode_label(base)} (baseline)")
        for m in pmodes:
            mean, lo, hi = [], [], []
            for xv in x_vals:
                vs = [r["speedup"] for r in recs if r["mode"] == m
                      and (x is None or r[x] == xv) and (facet is None or r[facet] == fv)]
                mean.append(sum(vs) / len(vs) if vs else np.nan)
                lo.append(min(vs) if vs else np.nan)
                hi.append(max(vs) if vs else np.nan)
            mean, lo, hi = map(np.array, (mean, lo, hi))
            c = mode_color(m)
            if np.any(hi - lo > 1e-9):
                ax.fill_between(xs, lo, hi, color=c, alpha=0.15, linewidth=0)
            ax.plot(xs, mean, marker="o", markersize=4.5, color=c, linewidth=1.8,
                    label=mode_label(m))
        ax.set_xticks(xs)
        ax.set_xticklabels(x_vals, fontsize=8, rotation=30 if len(x_vals) > 5 else 0,
                           ha="right" if len(x_vals) > 5 else "center")
        ax.set_xlim(-0.4, len(x_vals) - 0.6)
        ax.set_xlabel(x or "(no sweep axis varies)", fontsize=9)
        if i % nc == 0:
            ax.set_ylabel(metric_label(metric, base), fontsize=9)
        if facet is not None:
            ax.set_title(f"{facet} = {fv}", fontsize=9.5)
        ax.grid(linestyle=":", linewidth=0.5, alpha=0.7)
        ax.set_axisbelow(True)
        ax.tick_params(axis="y", labelsize=8)
    for i in range(len(f_vals), nr * nc):
        axes[i // nc][i % nc].set_visible(False)
    axes[0][0].legend(fontsize=8, framealpha=0.9)
    title = metric_label(metric, base).replace(" (%)", "") + (f" vs {x}" if x else "")
    fig.suptitle(f"{title}: mean over the other sweep axes (band: min–max)", fontsize=10)
    fig.tight_layout()
    save_atomic(fig, out_dir, name)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="plot_sweep.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", metavar="RESULTS.csv")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--x", metavar="AXIS")
    p.add_argument("--y", metavar="AXIS")
    p.add_argument("--metric", default="total_us", metavar="COLUMN")
    p.add_argument("--baseline-mode", default="sequential", metavar="MODE")
    p.add_argument("--facet", metavar="COLUMN")
    p.add_argument("--figures", default="heatmap,lines", metavar="LIST",
                   help="comma-separated figures to draw (default: heatmap,lines)")
    p.add_argument("--formats", default="png,pdf", metavar="LIST",
                   help="comma-separated output formats (default png,pdf): png, pdf, svg")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)  # argparse exits 2 itself on bad usage
    try:
        try:
            figures = parse_list(args.figures, ["heatmap", "lines"], "figure")
            FORMATS[:] = parse_list(args.formats, KNOWN_FORMATS, "format")
        except ValueError as e:
            raise UsageError(str(e))
        rows, others, mode_col, modes, base = load(args.results, args)
        recs = compute_speedups(rows, others, mode_col, base, args.metric)
        if not recs:
            raise UsageError(f"no row of {args.results} has a '{base}' row to compare with")
        values = {a: sort_values([r[a] for r in recs]) for a in others}
        varying = [a for a in others if len(values[a]) > 1]
        x = args.x or next((a for a in varying if a != args.facet), None) \
            or (varying[0] if varying else None)
        y = args.y or next((a for a in varying if a not in (x, args.facet)), None) \
            or next((a for a in varying if a != x), None)
        if args.facet is not None and args.facet == x:
            raise UsageError(f"--facet '{args.facet}' is also the x axis; pick another --x")
        os.makedirs(args.out, exist_ok=True)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    stem = os.path.splitext(os.path.basename(args.results))[0] or "sweep"
    x_vals = values[x] if x else ["(all points)"]
    if "heatmap" not in figures:
        pass
    elif x is None:
        print(f"{PROG}: no sweep axis has more than one value; skipping the heatmap",
              file=sys.stderr)
    else:
        y_vals = values[y] if y else [""]
        plot_heatmap(recs, modes, base, x, y, args.metric, args.out, f"{stem}_heatmap.png",
                     x_vals, y_vals)
    f_vals = values[args.facet] if args.facet else [None]
    if "lines" not in figures:
        return 0
    plot_lines(recs, modes, base, x, args.facet, args.metric, args.out, f"{stem}_lines.png",
               x_vals, f_vals)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
