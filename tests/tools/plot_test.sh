#!/usr/bin/env bash
# Smoke test of tools/plot_t3.py and tools/plot_sweep.py on synthetic CSVs: every figure is
# written as PNG and PDF (SVG on request) with mode 0644 under umask 022, --figures draws only the
# figures it names, missing inputs are skipped, and bad arguments exit 2.
# Skips (exit 0) when Debian's /usr/bin/python3 cannot import matplotlib.
# Usage: tests/tools/plot_test.sh [KEEP_DIR]   (KEEP_DIR: write there and keep the outputs)
set -euo pipefail

SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=/usr/bin/python3
PLOT_T3="$SRC_DIR/tools/plot_t3.py"
PLOT_SWEEP="$SRC_DIR/tools/plot_sweep.py"

if [[ ! -x $PY ]] || ! "$PY" -c 'import matplotlib, numpy' >/dev/null 2>&1; then
  echo "plot_test: SKIP: $PY cannot import matplotlib and numpy"
  exit 0
fi

if [[ $# -ge 1 ]]; then
  WORK=$1
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/t3sim_plot_test.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi
export MPLBACKEND=Agg MPLCONFIGDIR="$WORK/.mplconfig"
mkdir -p "$MPLCONFIGDIR"

fail() { echo "plot_test: FAIL: $*" >&2; exit 1; }

# A PNG that exists, is non-empty, starts with the PNG signature and has the mode every output
# file gets: 0666 less the umask (0644 under the umask 022 set below), like the CSVs.
check_png() {
  local f=$1
  [[ -s $f ]] || fail "$f missing or empty"
  [[ $(head -c 8 "$f" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$f is not a PNG"
  [[ $(stat -c %a "$f") == 644 ]] || fail "$f has mode $(stat -c %a "$f"), want 644"
}
# The same for a PDF (and an SVG): signature and mode.
check_pdf() {
  local f=$1
  [[ -s $f ]] || fail "$f missing or empty"
  [[ $(head -c 5 "$f") == "%PDF-" ]] || fail "$f is not a PDF"
  [[ $(stat -c %a "$f") == 644 ]] || fail "$f has mode $(stat -c %a "$f"), want 644"
}
check_svg() {
  local f=$1
  grep -q '<svg' "$f" || fail "$f is not an SVG"
  [[ $(stat -c %a "$f") == 644 ]] || fail "$f has mode $(stat -c %a "$f"), want 644"
}
umask 022

# Expect exit status $1 from the command that follows.
expect_rc() {
  local want=$1 rc=0
  shift
  "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
  [[ $rc -eq $want ]] || { cat "$WORK/err.txt" >&2; fail "'$*' exited $rc, want $want"; }
}

# ---- synthetic reproduction outputs ---------------------------------------------------------
REPRO="$WORK/repro"
mkdir -p "$REPRO"
"$PY" - "$REPRO" <<'EOF'
import csv, math, os, random, sys
d = sys.argv[1]
rnd = random.Random(3)
points = [(m, tp, s) for m in ("Mega-GPT-2", "T-NLG") for tp in (8, 16)
          for s in ("OP", "FC-2", "IP", "FC-1")]
modes = ["sequential", "ideal", "ideal-nmc", "t3", "t3-mca"]
gain = {"sequential": 0, "ideal": 35, "ideal-nmc": 37, "t3": 20, "t3-mca": 30}
def w(name, header, rows):
    with open(os.path.join(d, name), "w", newline="") as f:
        c = csv.writer(f); c.writerow(header); c.writerows(rows)
rows6 = []
for m, tp, s in points:
    g, a = rnd.uniform(40, 400), rnd.uniform(30, 300)
    ideal = (g + a) / max(g, a)
    rows6.append([m, tp, s, f"{g:.2f}", f"{a:.2f}", f"{ideal:.4f}",
                  f"{1 + (ideal - 1) * 0.3:.4f}", f"{1 + (ideal - 1) * 0.7:.4f}"])
w("fig6.csv", "model,tp,sublayer,gemm_us,ar_us,ideal_x,cu8_x,cu16_x".split(","), rows6)
def sub_rows(pts, modes):
    out = []
    for m, tp, s in pts:
        g, rs, ag = rnd.uniform(50, 500), rnd.uniform(20, 200), rnd.uniform(10, 100)
        seq = g + rs + ag
        for mode in modes:
            sp = 0.0 if mode == "sequential" else gain[mode] * rnd.uniform(0.5, 1.4)
            tot = seq / (1 + sp / 100)
            exp = 0 if mode == "sequential" else max(tot - g - ag, 0.0)
            out.append([m, tp, s, mode, f"{tot:.3f}", f"{g:.3f}", f"{rs:.3f}",
                        f"{rs if mode == 'sequential' else exp:.3f}", f"{ag:.3f}", f"{sp:.3f}"])
    return out
hdr16 = "model,tp,sublayer,mode,total_us,gemm_us,rs_us,rs_exposed_us,ag_us,speedup_pct".split(",")
w("fig16.csv", hdr16, sub_rows(points, modes))
w("large_models.csv", hdr16,
  sub_rows([(m, 32, s) for m in ("GPT-3", "PALM", "MT-NLG") for s in ("OP", "FC-2")],
           ["sequential", "t3", "t3-mca"]))
rows17 = []
for mode, end in (("sequential", 300.0), ("t3", 250.0), ("t3-mca", 215.0)):
    for i in range(160):
        t = i * 2.0
        gr = 900 + 200 * math.sin(t / 9) if t < 190 else 0
        gw = 300 if t < 190 else 0
        rsr = (0 if mode == "sequential" and t < 190 else 600) if t < end - 40 else 0
        rsu = 0 if mode == "sequential" else (400 if 20 < t < end - 40 else 0)
        rsw = 350 if mode == "sequential" and 190 <= t < end - 40 else 0
        ag = 500 if end - 40 <= t < end else 0
        if mode == "sequential" and t < 190: rsr = 0
        rows17.append([mode, f"{t:.1f}", gr, gw, 0, rsr, rsw, rsu, ag, ag * 0.9])
w("fig17.csv", "mode,t_us,gemm_read,gemm_write,gemm_update,rs_read,rs_write,rs_update,ag_read,"
  "ag_write".split(","), rows17)
rows18 = []
for m, tp, s in points:
    base = [rnd.uniform(1e8, 5e8) for _ in range(8)]
    for mode, f in (("sequential", [1] * 8), ("t3", [0.8, 0.9, 1, 0.5, 0.9, 1, 1, 1]),
                    ("t3-mca", [0.64, 0.9, 1, 0.42, 0.9, 1, 1, 1])):
        v = [b * k for b, k in zip(base, f)]
        rows18.append([m, tp, s, mode] + [f"{x:.0f}" for x in v] + [f"{sum(v):.0f}"])
w("fig18.csv", "model,tp,sublayer,mode,gemm_read,gemm_write,gemm_update,rs_read,rs_write,"
  "rs_update,ag_read,ag_write,total".split(","), rows18)
rowse = []
for m in ("Mega-GPT-2", "T-NLG"):
    for tp in (8, 16):
        rowse.append([m, tp, "t3", f"{rnd.uniform(5, 9):.2f}", f"{rnd.uniform(7, 12):.2f}"])
        rowse.append([m, tp, "t3-mca", f"{rnd.uniform(8, 12):.2f}", f"{rnd.uniform(10, 15):.2f}"])
w("e2e.csv", "model,tp,mode,training_speedup_pct,inference_speedup_pct".split(","), rowse)
EOF

"$PY" "$PLOT_T3" "$REPRO" >"$WORK/plot_t3.out" 2>"$WORK/plot_t3.err" \
  || { cat "$WORK/plot_t3.err" >&2; fail "plot_t3.py exited non-zero"; }
for f in fig6 fig16 fig16_breakdown large_models fig17 fig18 e2e; do
  check_png "$REPRO/$f.png"
  check_pdf "$REPRO/$f.pdf"
done

# --figures draws only the named figures; --formats picks the files; unknown names exit 2.
ONLY="$WORK/only"
mkdir -p "$ONLY"
cp "$REPRO"/*.csv "$ONLY/"
expect_rc 0 "$PY" "$PLOT_T3" "$ONLY" --figures fig6,fig18 --formats svg
check_svg "$ONLY/fig6.svg"
check_svg "$ONLY/fig18.svg"
[[ ! -e $ONLY/fig6.png && ! -e $ONLY/fig16.svg && ! -e $ONLY/e2e.svg ]] \
  || fail "--figures fig6,fig18 --formats svg drew something else: $(ls "$ONLY")"
expect_rc 2 "$PY" "$PLOT_T3" "$ONLY" --figures fig7
grep -q "unknown figure 'fig7'" "$WORK/err.txt" || fail "no error naming the unknown figure"
expect_rc 2 "$PY" "$PLOT_T3" "$ONLY" --formats gif
expect_rc 0 "$PY" "$PLOT_T3" --list
grep -q '^fig16 ' "$WORK/out.txt" || fail "--list does not name fig16"
# No temporary files left behind by the atomic writes.
if ls -A "$REPRO" | grep -q '\.tmp$'; then fail "temporary files left in $REPRO"; fi

# A missing CSV is skipped with a message; the other figures are still drawn.
PARTIAL="$WORK/partial"
mkdir -p "$PARTIAL"
cp "$REPRO/fig6.csv" "$PARTIAL/"
expect_rc 0 "$PY" "$PLOT_T3" "$PARTIAL"
check_png "$PARTIAL/fig6.png"
grep -q 'fig16.csv' "$WORK/err.txt" || fail "no skip message for the missing fig16.csv"
[[ ! -e $PARTIAL/fig16.png ]] || fail "fig16.png drawn without fig16.csv"

# A missing directory exits 2.
expect_rc 2 "$PY" "$PLOT_T3" "$WORK/no-such-dir"
[[ $(wc -l <"$WORK/err.txt") -eq 1 ]] || fail "missing-dir error is not one line"

# A PNG name that is a symbolic link keeps the link (its target gets the image, as t3sim's C++
# writer does); a FIFO in its place is refused (exit 1, other figures drawn), not replaced.
LINKED="$WORK/linked"
mkdir -p "$LINKED/real"
cp "$REPRO/fig6.csv" "$REPRO/e2e.csv" "$LINKED/"
ln -s real/target.png "$LINKED/fig6.png"
mkfifo "$LINKED/e2e.png"
expect_rc 1 "$PY" "$PLOT_T3" "$LINKED"
[[ -L $LINKED/fig6.png ]] || fail "the symbolic link fig6.png was replaced"
check_png "$LINKED/real/target.png"
[[ -p $LINKED/e2e.png ]] || fail "the FIFO e2e.png was replaced"
grep -q 'e2e.png: not a regular file' "$WORK/err.txt" || fail "no message for the FIFO"
if find "$LINKED" -name '*.tmp' | grep -q .; then fail "temporary files left in $LINKED"; fi

# SIGTERM (what t3sim's death sends the script) ends it without leaving a temporary file: the
# handler turns it into SystemExit, which save_atomic's cleanup sees. The script signals itself at
# its first savefig, so the signal lands inside the write.
TERM_DIR="$WORK/term"
mkdir -p "$TERM_DIR"
cp "$REPRO/fig6.csv" "$TERM_DIR/"
rc=0
"$PY" - "$PLOT_T3" "$TERM_DIR" <<'EOF' 2>"$WORK/err.txt" || rc=$?
import os, runpy, signal, sys
import matplotlib.figure
real = matplotlib.figure.Figure.savefig
def savefig(self, *a, **k):
    os.kill(os.getpid(), signal.SIGTERM)  # handled at the next bytecode: inside the write
    return real(self, *a, **k)
matplotlib.figure.Figure.savefig = savefig
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
EOF
[[ $rc -eq 143 ]] || { cat "$WORK/err.txt" >&2; fail "SIGTERM: exit $rc, want 143"; }
if find "$TERM_DIR" -name '*.tmp' | grep -q .; then fail "SIGTERM left a temporary file"; fi
[[ ! -e $TERM_DIR/fig6.png ]] || fail "SIGTERM still wrote fig6.png"

# ---- synthetic sweep ------------------------------------------------------------------------
SWEEP="$WORK/sweep.csv"
"$PY" - "$SWEEP" <<'EOF'
import csv, sys
rows = []
for bw in ("50 GB/s", "100 GB/s", "150 GB/s", "300 GB/s"):
    b = float(bw.split()[0])
    for tp in (8, 16):
        for sub in ("OP", "FC-2"):
            for mode in ("sequential", "t3", "t3-mca"):
                comm = 3000.0 * tp / 8 / b * (1.0 if sub == "FC-2" else 0.5)
                gemm = 200.0 if sub == "FC-2" else 80.0
                if mode == "sequential":
                    tot = gemm + comm
                else:
                    hide = 0.6 if mode == "t3" else 0.8
                    tot = max(gemm, comm) + (1 - hide) * min(gemm, comm)
                rows.append([len(rows), bw, tp, sub, mode, f"{tot:.3f}", f"{gemm:.3f}",
                             f"{max(tot - gemm, 0):.3f}", "10.0", 123456, 7890, 42])
with open(sys.argv[1], "w", newline="") as f:
    c = csv.writer(f)
    # as `t3sim sweep` writes it: the point index first (not an axis)
    c.writerow(["index", "fabric.link.bandwidth", "tp", "sublayer", "mode", "total_us", "gemm_us",
                "rs_exposed_us", "ag_us", "dram_total", "link_bytes", "events"])
    c.writerows(rows)
EOF

OUT="$WORK/sweep_out"
expect_rc 0 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT"
check_png "$OUT/sweep_heatmap.png"
check_png "$OUT/sweep_lines.png"
check_pdf "$OUT/sweep_heatmap.pdf"
check_pdf "$OUT/sweep_lines.pdf"
expect_rc 0 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT/lines_only" --figures lines --formats png
check_png "$OUT/lines_only/sweep_lines.png"
[[ ! -e $OUT/lines_only/sweep_heatmap.png && ! -e $OUT/lines_only/sweep_lines.pdf ]] \
  || fail "--figures lines --formats png drew something else"
expect_rc 2 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT" --figures nope
expect_rc 0 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT/faceted" --x fabric.link.bandwidth \
  --y sublayer --facet tp --metric total_us --baseline-mode sequential
check_png "$OUT/faceted/sweep_heatmap.png"
check_png "$OUT/faceted/sweep_lines.png"

# Unknown columns and modes are one-line errors with exit 2.
expect_rc 2 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT" --x no.such.axis
[[ $(wc -l <"$WORK/err.txt") -eq 1 ]] || fail "unknown --x error is not one line"
expect_rc 2 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT" --metric nope
expect_rc 2 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT" --facet nope
expect_rc 2 "$PY" "$PLOT_SWEEP" "$SWEEP" --out "$OUT" --baseline-mode nope
expect_rc 2 "$PY" "$PLOT_SWEEP" "$WORK/no-such.csv" --out "$OUT"

echo "plot_test: PASS"
