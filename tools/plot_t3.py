#!/usr/bin/python3
"""Plot the T3 reproduction's figures from the CSV files `t3sim reproduce` writes.

Usage: /usr/bin/python3 tools/plot_t3.py DIR [--figures fig6,fig16,...] [--formats png,pdf,svg]
                                              [--list]

Reads DIR/{fig6,fig16,large_models,fig17,fig18,e2e}.csv and writes the matching figures into DIR
(fig6, fig16, fig16_breakdown, large_models, fig17, fig18, e2e), each as PNG (200 dpi) and PDF by
default (--formats), in the colour-blind-safe Okabe-Ito and Tol palettes. --figures picks which to
draw (--list names them). A figure whose CSV is missing is skipped with a message on stderr. Every
file is written to a temporary file in DIR first and renamed into place, so a reader never sees a
half-written image; its mode is 0666 less the umask (0644 under the usual umask 022).

A PNG name that is a symbolic link keeps the link (its target gets the image); a folder, FIFO,
socket or device there is refused, not replaced. SIGTERM (t3sim sends it when it dies) removes the
temporary file before exiting.

Exit status: 0 when every figure whose CSV exists was drawn, 1 when some figure failed, 2 when DIR
does not exist or the arguments are wrong (an unknown figure or format), 3 when matplotlib or numpy is
missing. Needs only the standard library, numpy and matplotlib (run with Debian's /usr/bin/python3).
"""

import csv
import json
import math
import os
import signal
import stat
import sys
import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.transforms import blended_transform_factory, offset_copy
except ImportError as e:
    if __name__ == "__main__":
        print(f"plot_t3: {e}: install python3-matplotlib (tools/bootstrap.sh)", file=sys.stderr)
        sys.exit(3)
    raise

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation",
                                "t3-paper"))
from paper_numbers import load_paper  # noqa: E402

PROG = "plot_t3"

# ---------------------------------------------------------------------------------------------
# Shared style: one colour per mode in every figure (plot_sweep.py imports these too).

# Colour-blind-safe: the Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2008), told
# apart under deuteranopia, protanopia and tritanopia; bars also carry black edges.
MODE_COLORS = {
    "sequential": "#999999",  # grey
    "ideal": "#009E73",  # bluish green
    "ideal-nmc": "#56B4E9",  # sky blue
    "t3": "#E69F00",  # orange
    "t3-mca": "#0072B2",  # blue
    "cu-split": "#CC79A7",  # reddish purple
    "decomposed": "#D55E00",  # vermillion
    "t3-direct": "#F0E442",  # yellow
}
MODE_LABELS = {
    "sequential": "Sequential",
    "ideal": "Ideal GEMM-RS overlap",
    "ideal-nmc": "Ideal RS + NMC",
    "t3": "T3",
    "t3-mca": "T3-MCA",
    "cu-split": "CU split",
    "decomposed": "Decomposed",
    "t3-direct": "T3 direct",
    "t3-nvls": "T3 NVLS",
}
MODE_ORDER = ["sequential", "cu-split", "decomposed", "ideal", "ideal-nmc", "t3", "t3-direct",
              "t3-nvls", "t3-mca"]
# Further modes: Paul Tol's colour-blind-safe "muted" scheme.
_FALLBACK_COLORS = ["#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677",
                    "#882255", "#AA4499"]

# DRAM traffic classes (Figs. 17 and 18).
TRAFFIC_CLASSES = ["gemm_read", "gemm_write", "gemm_update", "rs_read", "rs_write", "rs_update",
                   "ag_read", "ag_write"]
# Traffic classes: Paul Tol's "muted" scheme (colour-blind safe), GEMM blue-green, RS red-purple,
# AG olive-sand.
TRAFFIC_COLORS = {
    "gemm_read": "#332288",
    "gemm_write": "#88CCEE",
    "gemm_update": "#44AA99",
    "rs_read": "#882255",
    "rs_write": "#CC6677",
    "rs_update": "#AA4499",
    "ag_read": "#117733",
    "ag_write": "#DDCC77",
}
TRAFFIC_LABELS = {
    "gemm_read": "GEMM read",
    "gemm_write": "GEMM write",
    "gemm_update": "GEMM update",
    "rs_read": "RS read",
    "rs_write": "RS write",
    "rs_update": "RS update",
    "ag_read": "AG read",
    "ag_write": "AG write",
}

# The paper's geomean numbers (t3-paper.md §2.4, §6.1, §6.3, §6.4), set by load_paper_refs() from
# the experiment file's "paper" block (validation/t3-paper/paper_numbers.py), the one place they
# are written.
PAPER_FIG6 = []
PAPER_FIG16_GEOMEAN_PCT = {}
PAPER_LARGE_GEOMEAN_PCT = {}
PAPER_E2E_GEOMEAN_PCT = {"training_speedup_pct": {}, "inference_speedup_pct": {}}
PAPER_FIG18_TOTAL_REDUCTION_PCT = 0.0


def load_paper_refs(d):
    """Sets the PAPER_* references from the experiment named in d/summary.json."""
    global PAPER_FIG6, PAPER_FIG16_GEOMEAN_PCT, PAPER_LARGE_GEOMEAN_PCT
    global PAPER_E2E_GEOMEAN_PCT, PAPER_FIG18_TOTAL_REDUCTION_PCT
    try:
        with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
            name = json.load(f).get("experiment", "t3-paper")
    except (OSError, ValueError):
        name = "t3-paper"
    p = load_paper(name)
    f6 = p["fig6"]
    PAPER_FIG6 = [(k, f6[k], f"paper {what} {f6[k]:g}×")
                  for k, what in (("ideal_x", "ideal"), ("cu8_x", "AR 8 CUs"), ("cu16_x", "AR 16 CUs"))]
    PAPER_FIG16_GEOMEAN_PCT = {m: float(v["geomean"]) for m, v in p["fig16"].items()}
    PAPER_LARGE_GEOMEAN_PCT = {m: float(v["geomean"]) for m, v in p["large_models"].items()}
    PAPER_E2E_GEOMEAN_PCT = {
        f"{kind}_speedup_pct": {m: float(v[f"{kind}_geomean_pct"]) for m, v in p["e2e"].items()}
        for kind in ("training", "inference")}
    PAPER_FIG18_TOTAL_REDUCTION_PCT = float(p["data_movement"]["geomean_reduction_pct"])


def norm_mode(m):
    return m.strip().lower().replace("_", "-")


def mode_color(m, _cache={}):
    m = norm_mode(m)
    if m in MODE_COLORS:
        return MODE_COLORS[m]
    if m not in _cache:
        _cache[m] = _FALLBACK_COLORS[len(_cache) % len(_FALLBACK_COLORS)]
    return _cache[m]


def mode_label(m):
    return MODE_LABELS.get(norm_mode(m), m)


def sort_modes(modes):
    """Known modes in the canonical order, unknown ones after, in their given order."""
    modes = list(dict.fromkeys(modes))
    known = [m for m in MODE_ORDER if m in [norm_mode(x) for x in modes]]
    rank = {m: i for i, m in enumerate(known)}
    return sorted(modes, key=lambda x: (rank.get(norm_mode(x), len(rank)), modes.index(x)))


def warn(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def geomean(values):
    v = [x for x in values if x is not None and not math.isnan(x)]
    if not v:
        return math.nan
    if any(x <= 0 for x in v):
        return math.nan
    return math.exp(sum(math.log(x) for x in v) / len(v))


def geomean_pct(pcts):
    """Geomean of speedups given in percent: geomean of (1 + p/100), back to percent."""
    g = geomean([1.0 + p / 100.0 for p in pcts if not math.isnan(p)])
    return (g - 1.0) * 100.0 if not math.isnan(g) else math.nan


def file_mode():
    """0666 less the umask: the mode the shell and t3sim's C++ writer give a new file (mkstemp
    would leave 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


# Output formats of every figure (--formats): a raster for screens and a vector one for papers.
FORMATS = ["png", "pdf"]
PNG_DPI = 200


def output_target(path):
    """The file that writing `path` replaces, as t3sim's C++ writer (sim/atomic_file.h) decides: a
    symbolic link is followed (the link stays); a folder, FIFO, socket or device is refused
    (OSError), and so is a link loop."""
    target = os.path.realpath(path)
    if os.path.islink(target):
        raise OSError(f"{path}: symbolic link loop; remove the link")
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(mode):
        raise OSError(f"{path}: not a regular file (a folder, FIFO, socket or device); "
                      "it is left as it is: remove it or pick another folder")
    return target


def save_atomic(fig, out_dir, name):
    """Writes the figure once per format in FORMATS (name's extension replaced): savefig() to a
    temporary file beside the target (a symbolic link's target), mode 0666 less the umask, then
    os.replace() onto it."""
    stem = os.path.splitext(name)[0]
    try:
        for fmt in FORMATS:
            final = f"{stem}.{fmt}"
            target = output_target(os.path.join(out_dir, final))
            fd, tmp = tempfile.mkstemp(prefix=f".{final}.", suffix=".tmp",
                                       dir=os.path.dirname(target))
            os.close(fd)
            try:
                # metadata: no creation date, so the same data gives the same PDF/SVG bytes
                meta = {"CreationDate": None} if fmt == "pdf" else \
                    {"Date": None} if fmt == "svg" else {}
                fig.savefig(tmp, format=fmt, dpi=PNG_DPI, bbox_inches="tight", metadata=meta)
                os.chmod(tmp, file_mode())
                os.replace(tmp, target)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            print(os.path.join(out_dir, final))
    finally:
        plt.close(fig)


def read_csv(path, required, figure):
    """Rows (list of dicts) of a CSV, or None (after a message) when missing/unusable."""
    if not os.path.isfile(path):
        warn(f"skipping {figure}: {os.path.basename(path)} not found in {os.path.dirname(path)}")
        return None
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in required if c not in header]
        if missing:
            warn(f"skipping {figure}: {os.path.basename(path)} lacks column(s) {', '.join(missing)}")
            return None
        rows = []
        for r in reader:
            rows.append({(k or "").strip(): (v or "").strip() for k, v in r.items()})
    if not rows:
        warn(f"skipping {figure}: {os.path.basename(path)} has no data rows")
        return None
    return rows


def point_key(r):
    return (r["model"], r["tp"], r.get("sublayer", ""))


def point_label(key):
    model, tp, sub = key
    parts = [model, f"TP{tp}"]
    if sub:
        parts.append(sub)
    return "\n".join(parts)


def point_tick(key):
    """The per-group tick label under a hierarchical axis (the model is drawn once per run)."""
    _, tp, sub = key
    return f"{sub}\nTP{tp}" if sub else f"TP{tp}"


def ordered_points(rows):
    return list(dict.fromkeys(point_key(r) for r in rows))


def group_width(n_series):
    return min(0.8, 0.16 * max(n_series, 1) + 0.1)


def grouped_bars(ax, labels, series, with_geomean_gap=True):
    """series: list of (name, values per group, colour, legend label). The last group is the
    geomean one when with_geomean_gap: it is set apart by a gap and a dotted line."""
    n_groups = len(labels)
    n = len(series)
    gw = group_width(n)
    bw = gw / max(n, 1)
    x = np.arange(n_groups, dtype=float)
    if with_geomean_gap and n_groups > 1:
        x[-1] += 0.6
    for i, (name, vals, color, label) in enumerate(series):
        offs = x - gw / 2 + bw * (i + 0.5)
        v = np.array([np.nan if val is None else val for val in vals], dtype=float)
        ax.bar(offs, np.nan_to_num(v, nan=0.0), bw, color=color, label=label,
               edgecolor="black", linewidth=0.3)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=7.5)
    if with_geomean_gap and n_groups > 1:
        ax.axvline((x[-2] + x[-1]) / 2, color="black", linestyle=":", linewidth=0.8)
    ax.set_xlim(x[0] - 0.6, x[-1] + 0.6)
    ax.grid(axis="y", linestyle=":", linewidth=0.5, alpha=0.7)
    ax.set_axisbelow(True)
    return x, gw, bw


def model_spans(ax, xs, models, below_pt):
    """Under the tick labels, one bracket + name per run of consecutive groups of one model."""
    base = blended_transform_factory(ax.transData, ax.transAxes)
    line_t = offset_copy(base, fig=ax.figure, y=-below_pt, units="points")
    text_t = offset_copy(base, fig=ax.figure, y=-below_pt - 2, units="points")
    i = 0
    while i < len(models):
        j = i
        while j + 1 < len(models) and models[j + 1] == models[i]:
            j += 1
        x0, x1 = xs[i] - 0.42, xs[j] + 0.42
        ax.plot([x0, x1], [0, 0], transform=line_t, color="black", linewidth=0.8,
                clip_on=False)
        ax.text((xs[i] + xs[j]) / 2, 0, models[i], transform=text_t, ha="center", va="top",
                fontsize=8.5, fontweight="bold")
        i = j + 1


def tick_block_pt(ax, lines, fontsize=7.5):
    """Height (points) of the x tick labels' block: pad + tick length + text lines."""
    return ax.xaxis.get_major_ticks()[0].get_pad() + 3.5 + lines * fontsize * 1.25 + 2


def paper_marks(ax, xs, bw, refs, label="paper geomean"):
    """Short thick black bars at the paper's values over the given bar positions."""
    first = True
    for xo, ref in zip(xs, refs):
        if ref is None:
            continue
        ax.hlines(ref, xo - bw * 0.6, xo + bw * 0.6, colors="black", linewidth=2.2, zorder=5,
                  label=label if first else None)
        first = False


def fmt_pct(v):
    return "n/a" if math.isnan(v) else f"{v:.0f}%"


def fig_width(n_groups, n_series):
    return max(7.0, min(28.0, 1.2 + n_groups * (0.25 + 0.14 * n_series)))


# ---------------------------------------------------------------------------------------------
# Fig. 6: potential speedup of overlapping GEMM and AR with the CUs split between them.

def plot_fig6(d):
    cols = ["model", "tp", "sublayer", "gemm_us", "ar_us", "ideal_x", "cu8_x", "cu16_x"]
    rows = read_csv(os.path.join(d, "fig6.csv"), cols, "fig6.png")
    if rows is None:
        return
    pts = ordered_points(rows)
    by = {point_key(r): r for r in rows}
    series_def = [("ideal_x", MODE_COLORS["ideal"], "Ideal overlap (isolated speeds)"),
                  ("cu8_x", "#882255", "AR on 8 CUs, GEMM on 72 CUs"),
                  ("cu16_x", MODE_COLORS["cu-split"], "AR on 16 CUs, GEMM on 64 CUs")]
    labels = [point_tick(p) for p in pts] + ["Geomean"]
    series = []
    for col, color, label in series_def:
        vals = [num(by[p][col]) for p in pts]
        g = geomean(vals)
        series.append((col, vals + [g], color, f"{label}: geomean {g:.2f}×"))
    fig, ax = plt.subplots(figsize=(fig_width(len(labels), 3), 4.8))
    x, gw, _ = grouped_bars(ax, labels, series)
    model_spans(ax, x[:-1], [p[0] for p in pts], tick_block_pt(ax, 2))
    ref_colors = {"ideal_x": MODE_COLORS["ideal"], "cu8_x": "#882255",
                  "cu16_x": MODE_COLORS["cu-split"]}
    for col, val, label in PAPER_FIG6:
        ax.axhline(val, color=ref_colors[col], linestyle="--", linewidth=1.1, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    top = max([v for s in series for v in s[1] if not math.isnan(v)] + [1.8])
    ax.set_ylim(0, top * 1.25)
    ax.set_ylabel("Speedup over GEMM then all-reduce (×)")
    ax.set_title("Potential speedup of overlapping GEMM and all-reduce with the 80 CUs split "
                 "between them\n(cf. paper Fig. 6; dashed: the paper's geomeans)", fontsize=10)
    ax.legend(fontsize=7.5, ncol=2, loc="upper left", framealpha=0.9)
    save_atomic(fig, d, "fig6.png")


# ---------------------------------------------------------------------------------------------
# Fig. 16 / large models: sublayer speedups over sequential.

SUBLAYER_COLS = ["model", "tp", "sublayer", "mode", "total_us", "gemm_us", "rs_us",
                 "rs_exposed_us", "ag_us", "speedup_pct"]


def speedups_by_point(rows):
    """{(point, mode): speedup %}; an empty speedup_pct is computed from the sequential total."""
    seq_total = {point_key(r): num(r["total_us"]) for r in rows
                 if norm_mode(r["mode"]) == "sequential"}
    out = {}
    for r in rows:
        p = point_key(r)
        s = num(r["speedup_pct"])
        if math.isnan(s):
            t, base = num(r["total_us"]), seq_total.get(p, math.nan)
            if t > 0 and base > 0:
                s = (base / t - 1.0) * 100.0
        out[(p, r["mode"])] = s
    return out


def plot_speedup_bars(d, csv_name, png_name, title, paper_geomeans):
    rows = read_csv(os.path.join(d, csv_name), SUBLAYER_COLS, png_name)
    if rows is None:
        return None
    pts = ordered_points(rows)
    modes = [m for m in sort_modes([r["mode"] for r in rows]) if norm_mode(m) != "sequential"]
    if not modes:
        warn(f"skipping {png_name}: {csv_name} has no mode other than sequential")
        return rows
    sp = speedups_by_point(rows)
    labels = [point_tick(p) for p in pts] + ["Geomean"]
    series = []
    for m in modes:
        vals = [sp.get((p, m), math.nan) for p in pts]
        g = geomean_pct(vals)
        ref = paper_geomeans.get(norm_mode(m))
        extra = f", paper {ref:.0f}%" if ref is not None else ""
        series.append((m, vals + [g], mode_color(m),
                       f"{mode_label(m)} (geomean {fmt_pct(g)}{extra})"))
    fig, ax = plt.subplots(figsize=(fig_width(len(labels), len(modes)), 5.0))
    x, gw, bw = grouped_bars(ax, labels, series)
    model_spans(ax, x[:-1], [p[0] for p in pts], tick_block_pt(ax, 2))
    # The paper's geomeans as black marks on the geomean group.
    paper_marks(ax, [x[-1] - gw / 2 + bw * (i + 0.5) for i in range(len(modes))],
                bw, [paper_geomeans.get(norm_mode(m)) for m in modes])
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_ylabel("Speedup over sequential (%)")
    models = ", ".join(dict.fromkeys(p[0] for p in pts))
    ax.set_title(title.format(models=models), fontsize=10)
    ax.legend(fontsize=7.5, ncol=min(len(modes) + 1, 3), loc="upper left", framealpha=0.9)
    vals = [v for s in series for v in s[1] if not math.isnan(v)] + \
           list(paper_geomeans.values()) + [0.0]
    lo, hi = min(vals), max(vals)
    span = max(hi - lo, 1.0)
    ax.set_ylim(min(0.0, lo - 0.08 * span), hi + 0.3 * span)
    save_atomic(fig, d, png_name)
    return rows


def plot_fig16_breakdown(d, rows):
    pts = ordered_points(rows)
    modes = sort_modes([r["mode"] for r in rows])
    by = {(point_key(r), r["mode"]): r for r in rows}
    comps = [("gemm_us", "GEMM", "#332288"), ("rs_exposed_us", "Exposed RS", "#CC6677"),
             ("ag_us", "AG", "#117733")]
    n = len(pts)
    ncols = min(4, n)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.0 * ncols + 0.6, 2.7 * nrows + 0.8),
                             squeeze=False)
    other_used = False
    for idx, p in enumerate(pts):
        ax = axes[idx // ncols][idx % ncols]
        xs = np.arange(len(modes))
        bottom = np.zeros(len(modes))
        for col, label, color in comps:
            v = np.array([num(by[(p, m)][col]) if (p, m) in by else 0.0 for m in modes])
            v = np.nan_to_num(v)
            ax.bar(xs, v, 0.7, bottom=bottom, color=color, label=label, edgecolor="black",
                   linewidth=0.3)
            bottom += v
        # Whatever the total has beyond the three parts (launch gaps, sync) as a hatched cap.
        tot = np.array([num(by[(p, m)]["total_us"]) if (p, m) in by else 0.0 for m in modes])
        rest = np.where(np.nan_to_num(tot) > bottom * 1.005, np.nan_to_num(tot) - bottom, 0.0)
        if rest.any():
            ax.bar(xs, rest, 0.7, bottom=bottom, color="white", hatch="///", edgecolor="#555555",
                   linewidth=0.3, label="Other")
            other_used = True
        ax.set_xticks(xs)
        ax.set_xticklabels([mode_label(m) if len(modes) <= 3 else m for m in modes],
                           rotation=45, ha="right", fontsize=7)
        for t, m in zip(ax.get_xticklabels(), modes):
            t.set_color("black")
            t.set_bbox(dict(facecolor=mode_color(m), alpha=0.35, edgecolor="none", pad=1))
        ax.set_title(point_label(p).replace("\n", " "), fontsize=8.5)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", linestyle=":", linewidth=0.5, alpha=0.7)
        ax.set_axisbelow(True)
        if idx % ncols == 0:
            ax.set_ylabel("Time (µs)", fontsize=8)
    for idx in range(n, nrows * ncols):
        axes[idx // ncols][idx % ncols].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if other_used and "Other" not in labels:
        from matplotlib.patches import Patch
        handles.append(Patch(facecolor="white", hatch="///", edgecolor="#555555"))
        labels.append("Other")
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize=8,
               bbox_to_anchor=(0.5, 1.0 - 0.02 / nrows))
    fig.suptitle("Sublayer time breakdown per mode: GEMM, exposed reduce-scatter, all-gather (µs)",
                 fontsize=10, y=1.0 + 0.04 / nrows)
    # Fixed margins (tight_layout over a dozen panels costs most of this figure's time): rotated
    # mode labels need about 0.8 in under each row, titles 0.35 in above.
    h = fig.get_figheight()
    fig.subplots_adjust(left=0.6 / fig.get_figwidth() + 0.02, right=0.99, bottom=0.85 / h,
                        top=1.0 - 0.75 / h, hspace=0.7, wspace=0.28)
    save_atomic(fig, d, "fig16_breakdown.png")


def plot_fig16(d):
    rows = plot_speedup_bars(
        d, "fig16.csv", "fig16.png",
        "Sublayer speedup over sequential GEMM → RS → AG: {models} (cf. paper Fig. 16)",
        PAPER_FIG16_GEOMEAN_PCT)
    if rows is not None:
        plot_fig16_breakdown(d, rows)


def plot_large(d):
    plot_speedup_bars(
        d, "large_models.csv", "large_models.png",
        "Sublayer speedup over sequential, larger models: {models} (cf. paper §6.4)",
        PAPER_LARGE_GEOMEAN_PCT)


# ---------------------------------------------------------------------------------------------
# Fig. 17: DRAM traffic of GPU 0 over time.

def plot_fig17(d):
    rows = read_csv(os.path.join(d, "fig17.csv"), ["mode", "t_us"] + TRAFFIC_CLASSES, "fig17.png")
    if rows is None:
        return
    modes = sort_modes([r["mode"] for r in rows])
    present = [c for c in TRAFFIC_CLASSES if any(num(r[c]) > 0 for r in rows)] or TRAFFIC_CLASSES
    fig, axes = plt.subplots(len(modes), 1, figsize=(9.0, 1.2 + 2.0 * len(modes)), sharex=True,
                             sharey=True, squeeze=False)
    t_end_all = 0.0
    for ax, m in zip(axes[:, 0], modes):
        mr = sorted((r for r in rows if r["mode"] == m), key=lambda r: num(r["t_us"]))
        t = np.array([num(r["t_us"]) for r in mr])
        ys = [np.nan_to_num(np.array([num(r[c]) for r in mr])) for c in present]
        # Each row is one bin starting at t_us: draw as steps, closing the last bin.
        dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
        t_ext = np.append(t, t[-1] + dt)
        ys_ext = [np.append(y, y[-1]) for y in ys]
        ax.stackplot(t_ext, ys_ext, colors=[TRAFFIC_COLORS[c] for c in present],
                     labels=[TRAFFIC_LABELS[c] for c in present], step="post", linewidth=0)
        total = np.sum(ys, axis=0)
        busy = np.nonzero(total > 0)[0]
        if len(busy):
            t_end = t[busy[-1]] + dt
            t_end_all = max(t_end_all, t_end)
            ax.axvline(t_end, color=mode_color(m), linestyle="--", linewidth=1.0)
            ax.annotate(f"ends {t_end:.1f} µs", (t_end, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(3, -12), textcoords="offset points", fontsize=7,
                        color="black")
        ax.set_ylabel("HBM traffic (GB/s)", fontsize=8)
        ax.text(0.005, 0.93, mode_label(m), transform=ax.transAxes, fontsize=9, va="top",
                fontweight="bold",
                bbox=dict(facecolor=mode_color(m), alpha=0.35, edgecolor="none", pad=2))
        ax.grid(linestyle=":", linewidth=0.5, alpha=0.7)
        ax.set_axisbelow(True)
    axes[-1, 0].set_xlabel("Time (µs)")
    axes[0, 0].set_xlim(left=min(num(r["t_us"]) for r in rows),
                        right=t_end_all * 1.02 if t_end_all > 0 else None)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    axes[0, 0].legend(handles, labels, ncol=min(4, len(present)), fontsize=7.5, loc="lower right",
                      bbox_to_anchor=(1.0, 1.02), framealpha=0.9)
    fig.suptitle("GPU 0 HBM traffic over time by class (cf. paper Fig. 17, T-NLG FC-2)",
                 fontsize=10, x=0.02, ha="left", y=1.0)
    fig.tight_layout()
    save_atomic(fig, d, "fig17.png")


# ---------------------------------------------------------------------------------------------
# Fig. 18: DRAM data movement, sequential vs T3-MCA, normalised to sequential.

def plot_fig18(d):
    cols = ["model", "tp", "sublayer", "mode"] + TRAFFIC_CLASSES + ["total"]
    rows = read_csv(os.path.join(d, "fig18.csv"), cols, "fig18.png")
    if rows is None:
        return
    by = {(point_key(r), norm_mode(r["mode"])): r for r in rows}
    modes = {norm_mode(r["mode"]) for r in rows}
    if "sequential" not in modes:
        warn("skipping fig18.png: fig18.csv has no sequential rows")
        return
    cmp_mode = next((m for m in ("t3-mca", "t3") if m in modes), None)
    if cmp_mode is None:
        others = sort_modes([m for m in modes if m != "sequential"])
        if not others:
            warn("skipping fig18.png: fig18.csv has only sequential rows")
            return
        cmp_mode = others[-1]
    pts = [p for p in ordered_points(rows) if (p, "sequential") in by and (p, cmp_mode) in by]
    if not pts:
        warn(f"skipping fig18.png: no point has both sequential and {cmp_mode} rows")
        return

    def total_of(r):
        t = num(r["total"])
        return t if t > 0 else sum(np.nan_to_num(num(r[c])) for c in TRAFFIC_CLASSES)

    fig, ax = plt.subplots(figsize=(max(7.0, min(26.0, 1.5 + 0.85 * len(pts))), 5.0))
    bw = 0.36
    ratios = []
    minor_pos, minor_lab = [], []
    for i, p in enumerate(pts):
        denom = total_of(by[(p, "sequential")])
        for j, m in enumerate(("sequential", cmp_mode)):
            r = by[(p, m)]
            xo = i + (j - 0.5) * (bw + 0.04)
            bottom = 0.0
            for c in TRAFFIC_CLASSES:
                v = np.nan_to_num(num(r[c])) / denom if denom > 0 else 0.0
                ax.bar(xo, v, bw, bottom=bottom, color=TRAFFIC_COLORS[c],
                       edgecolor=mode_color(m), linewidth=0.6,
                       label=TRAFFIC_LABELS[c] if i == 0 and j == 0 else None)
                bottom += v
            norm_total = total_of(r) / denom if denom > 0 else math.nan
            if j == 1:
                ratios.append(norm_total)
                ax.annotate(f"{norm_total:.2f}", (xo, bottom), xytext=(0, 2),
                            textcoords="offset points", ha="center", fontsize=7)
            minor_pos.append(xo)
            minor_lab.append("Seq" if m == "sequential" else mode_label(m))
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks(minor_pos, minor=True)
    ax.set_xticklabels(minor_lab, minor=True, fontsize=6.5, rotation=90)
    ax.set_xticks(np.arange(len(pts)))
    ax.set_xticklabels([point_tick(p) for p in pts], fontsize=7.5)
    ax.tick_params(axis="x", which="major", pad=36, length=0)
    model_spans(ax, list(range(len(pts))), [p[0] for p in pts], 36 + 2 * 7.5 * 1.25 + 4)
    ax.tick_params(axis="x", which="minor", length=2)
    ax.set_ylabel("DRAM data movement (normalised to sequential)")
    g = geomean(ratios)
    ax.set_title(f"DRAM data movement summed over GPUs, sequential vs {mode_label(cmp_mode)} "
                 f"(cf. paper Fig. 18)\ngeomean {mode_label(cmp_mode)} total: {g:.2f}× of sequential "
                 f"({(1 - g) * 100:.0f}% less; paper: {PAPER_FIG18_TOTAL_REDUCTION_PCT:.0f}% less)",
                 fontsize=10)
    ax.set_ylim(0, max(1.0, max((r for r in ratios if not math.isnan(r)), default=1.0)) * 1.2)
    ax.set_xlim(-0.6, len(pts) - 0.4)
    ax.grid(axis="y", linestyle=":", linewidth=0.5, alpha=0.7)
    ax.set_axisbelow(True)
    ax.legend(ncol=4, fontsize=7.5, loc="upper right", framealpha=0.9)
    save_atomic(fig, d, "fig18.png")


# ---------------------------------------------------------------------------------------------
# End-to-end projection.

def plot_e2e(d):
    cols = ["model", "tp", "mode", "training_speedup_pct", "inference_speedup_pct"]
    rows = read_csv(os.path.join(d, "e2e.csv"), cols, "e2e.png")
    if rows is None:
        return
    pts = list(dict.fromkeys((r["model"], r["tp"]) for r in rows))
    modes = [m for m in sort_modes([r["mode"] for r in rows]) if norm_mode(m) != "sequential"]
    if not modes:
        warn("skipping e2e.png: e2e.csv has no mode other than sequential")
        return
    by = {((r["model"], r["tp"]), r["mode"]): r for r in rows}
    labels = [f"TP{tp}" for _, tp in pts] + ["Geomean"]
    w = fig_width(len(labels), len(modes))
    fig, axes = plt.subplots(1, 2, figsize=(min(2 * w, 30.0), 4.6), sharey=True)
    panels = [("training_speedup_pct", "Training iteration"),
              ("inference_speedup_pct", "Prompt-phase inference")]
    all_vals = [0.0]
    for ax, (col, name) in zip(axes, panels):
        series = []
        refs = PAPER_E2E_GEOMEAN_PCT[col]
        for m in modes:
            vals = [num(by[(p, m)][col]) if (p, m) in by else math.nan for p in pts]
            g = geomean_pct(vals)
            ref = refs.get(norm_mode(m))
            extra = f", paper {ref:.0f}%" if ref is not None else ""
            series.append((m, vals + [g], mode_color(m),
                           f"{mode_label(m)} (geomean {g:.1f}%{extra})"))
            all_vals += [v for v in series[-1][1] if not math.isnan(v)]
            if ref is not None:
                all_vals.append(ref)
        x, gw, bw = grouped_bars(ax, labels, series)
        model_spans(ax, x[:-1], [p[0] for p in pts], tick_block_pt(ax, 1))
        paper_marks(ax, [x[-1] - gw / 2 + bw * (i + 0.5) for i in range(len(modes))], bw,
                    [refs.get(norm_mode(m)) for m in modes])
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_title(f"{name}", fontsize=9.5)
        ax.legend(fontsize=7.5, loc="upper left", framealpha=0.9)
    axes[0].set_ylabel("End-to-end speedup over sequential (%)")
    lo, hi = min(all_vals), max(all_vals)
    span = max(hi - lo, 1.0)
    axes[0].set_ylim(min(0.0, lo - 0.08 * span), hi + 0.3 * span)
    fig.suptitle("Projected end-to-end speedup over sequential (cf. paper §6.3)", fontsize=10)
    fig.tight_layout()
    save_atomic(fig, d, "e2e.png")


# Figure name (--figures) -> the function that draws it and the files it writes.
FIGURES = {
    "fig6": (plot_fig6, "fig6"),
    "fig16": (plot_fig16, "fig16, fig16_breakdown"),
    "large_models": (plot_large, "large_models"),
    "fig17": (plot_fig17, "fig17"),
    "fig18": (plot_fig18, "fig18"),
    "e2e": (plot_e2e, "e2e"),
}
KNOWN_FORMATS = ["png", "pdf", "svg"]


def parse_list(text, known, what):
    items = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in known]
    if bad or not items:
        raise ValueError(f"unknown {what} '{','.join(bad) or text}' (known: {', '.join(known)})")
    return list(dict.fromkeys(items))


def parse_args(argv):
    import argparse
    p = argparse.ArgumentParser(prog="plot_t3.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", nargs="?", help="the reproduction's output directory")
    p.add_argument("--figures", default=",".join(FIGURES), metavar="LIST",
                   help="comma-separated figures to draw (default: all): " + ", ".join(FIGURES))
    p.add_argument("--formats", default="png,pdf", metavar="LIST",
                   help="comma-separated output formats (default png,pdf): png, pdf, svg")
    p.add_argument("--list", action="store_true", help="list the figures and exit")
    args = p.parse_args(argv)
    if args.dir is None and not args.list:
        p.error("the following arguments are required: DIR")
    return args


def main(argv):
    args = parse_args(argv[1:])  # argparse exits 2 itself on bad usage
    if args.list:
        for name, (_, files) in FIGURES.items():
            print(f"{name:13s} {files}")
        return 0
    try:
        names = parse_list(args.figures, FIGURES, "figure")
        FORMATS[:] = parse_list(args.formats, KNOWN_FORMATS, "format")
    except ValueError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    d = args.dir
    if not os.path.isdir(d):
        print(f"{PROG}: {d}: no such directory", file=sys.stderr)
        return 2
    load_paper_refs(d)
    failed = 0
    for name in names:
        f = FIGURES[name][0]
        try:
            f(d)
        except Exception as e:  # one broken CSV must not stop the other figures
            failed += 1
            warn(f"{name}: failed: {type(e).__name__}: {e}")
    return 1 if failed else 0


def on_sigterm(signum, _frame):
    """SIGTERM ends the run through SystemExit, so save_atomic removes its temporary file."""
    sys.exit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_sigterm)
    sys.exit(main(sys.argv))
