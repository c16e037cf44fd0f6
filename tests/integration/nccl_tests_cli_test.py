#!/usr/bin/env python3
"""`t3sim nccl-tests` read the way nccl-tests' own output is read: every data row has exactly the
13 columns (size, count, type, redop, root, then time/algbw/busbw/#wrong out-of-place and
in-place), the "Out of bounds values" and "Avg bus bandwidth" footers are there, busbw follows the
nccl-tests rule per collective, every one of the seven programs runs, and bad options exit 2.

Usage: nccl_tests_cli_test.py PATH/TO/t3sim
"""
import subprocess
import sys

T3SIM = sys.argv[1]
BUS = {  # busbw / algbw for n ranks (nccl-tests doc/PERFORMANCE.md)
    "all_reduce_perf": lambda n: 2 * (n - 1) / n,
    "reduce_scatter_perf": lambda n: (n - 1) / n,
    "all_gather_perf": lambda n: (n - 1) / n,
    "alltoall_perf": lambda n: (n - 1) / n,
    "broadcast_perf": lambda n: 1.0,
    "reduce_perf": lambda n: 1.0,
    "sendrecv_perf": lambda n: 1.0,
}


def fail(msg):
    print("nccl_tests_cli_test: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def parse(text):
    """Rows as nccl-tests parsers read them: non-comment lines split on whitespace, 13 fields."""
    rows, footers = [], {}
    for line in text.splitlines():
        if line.startswith("# Out of bounds values"):
            footers["oob"] = line.split(":", 1)[1].split()
        elif line.startswith("# Avg bus bandwidth"):
            footers["avg"] = float(line.split(":", 1)[1])
        elif line.strip() and not line.startswith("#"):
            f = line.split()
            if len(f) != 13:
                fail("row with %d columns, want 13: %r" % (len(f), line))
            rows.append({
                "size": int(f[0]), "count": int(f[1]), "type": f[2], "redop": f[3],
                "root": int(f[4]),
                "out": (float(f[5]), float(f[6]), float(f[7]), f[8]),
                "in": (float(f[9]), float(f[10]), float(f[11]), f[12]),
            })
    return rows, footers


def run(*args, expect=0):
    p = subprocess.run([T3SIM, "nccl-tests", *args], capture_output=True, text=True)
    if p.returncode != expect:
        fail("exit %d (want %d): %s\n%s" % (p.returncode, expect, " ".join(args), p.stderr))
    return p.stdout


n = 8
for test, factor in BUS.items():
    out = run(test, "--system", "dgx-a100", "-b", "1M", "-e", "4M", "-f", "2", "-g", "8",
              "-n", "5", "-w", "1", "-c", "1", "-r", "3")
    rows, footers = parse(out)
    if len(rows) != 3:
        fail("%s: %d rows, want 3 (1M, 2M, 4M)" % (test, len(rows)))
    if footers.get("oob") != ["0", "OK"] or "avg" not in footers:
        fail("%s: footers missing: %r" % (test, footers))
    busbws = []
    for r in rows:
        t, algbw, busbw, wrong = r["out"]
        if r["in"] != r["out"]:
            fail("%s: in-place %r differs from out-of-place %r" % (test, r["in"], r["out"]))
        if wrong != "0" or t <= 0:
            fail("%s: bad row %r" % (test, r))
        if abs(algbw - r["size"] / (t * 1e3)) > 0.01 + 0.002 * algbw:
            fail("%s: algbw %g != size/time" % (test, algbw))
        if abs(busbw - algbw * factor(n)) > 0.011:
            fail("%s: busbw %g != algbw x %g" % (test, busbw, factor(n)))
        want_root = 3 if test in ("broadcast_perf", "reduce_perf") else -1
        if r["root"] != want_root:
            fail("%s: root %d, want %d" % (test, r["root"], want_root))
        busbws.append(busbw)
    if abs(footers["avg"] - sum(busbws) / len(busbws)) > 0.01:
        fail("%s: average %g != mean of rows" % (test, footers["avg"]))

# -c 0 prints N/A in the #wrong columns.
rows, _ = parse(run("all_reduce_perf", "--system", "dgx-a100", "-b", "1M", "-e", "1M", "-c", "0"))
if rows[0]["out"][3] != "N/A":
    fail("-c 0 should print N/A, got %r" % rows[0]["out"][3])
# -t x -g picks the group: 2 x 2 = 4 GPUs, busbw factor of 4 ranks.
rows, _ = parse(run("all_reduce_perf", "--system", "dgx-a100", "-b", "4M", "-e", "4M",
                    "-t", "2", "-g", "2"))
t, algbw, busbw, _ = rows[0]["out"]
if abs(busbw - algbw * 1.5) > 0.011:
    fail("-t 2 -g 2: busbw %g is not algbw x 2(4-1)/4" % busbw)
# Past 64 GPUs a run that cannot fold says so before it starts, and names the options that can
# fold it: NCCL's Tree on 9 nodes of the blocked leaf-spine cluster.
p = subprocess.run([T3SIM, "nccl-tests", "all_reduce_perf", "--system", "dgx-h100-128node", "-b",
                    "1K", "-e", "1K", "--set", "fabric.nodes=9", "--set", "gpus=72"],
                   capture_output=True, text=True)
want = "`--algo hierarchical --set fabric.placement=striped` can fold it"
if p.returncode != 0 or "simulating all 72 GPUs" not in p.stderr or want not in p.stderr:
    fail("72-GPU Tree: exit %d, stderr %r lacks %r" % (p.returncode, p.stderr, want))
# Bad options are usage errors.
run("all_reduce_perf", "--system", "dgx-a100", "-g", "9", expect=2)
run("broadcast_perf", "--system", "dgx-a100", "-r", "8", expect=2)
run("all_reduce_perf", "--system", "dgx-a100", "-o", "xor", expect=2)
run("all_reduce_perf", "--system", "dgx-a100", "-c", "2", expect=2)
run("gather_perf", "--system", "dgx-a100", expect=2)
print("nccl_tests_cli_test: ok")
