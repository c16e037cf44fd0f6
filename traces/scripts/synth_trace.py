#!/usr/bin/env python3
"""Writes a t3sim trace (traces/README.md) of N ops as `t3sim trace import-chakra` writes large
ones: one op per line, metadata first; GEMMs on stream 0 each followed by an all-reduce of its
output on stream 1, plus fixed ops, every op depending on its stream predecessor. To measure
`t3sim replay`/`check` on large traces. Usage: synth_trace.py OUT.json OPS [TP]. Deterministic."""
import json
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    tp = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    with open(out, "w") as w:
        w.write('{\n  "version": 1,\n  "metadata": {"source": "synthetic", "tp": %d},\n'
                '  "ops": [' % tp)
        last = {}
        for i in range(n):
            kind = ("gemm", "all_reduce", "fixed")[i % 3]
            stream = 1 if kind == "all_reduce" else 0
            op = {"id": f"op{i}", "kind": kind}
            if kind == "gemm":
                op["shape"] = {"m": 4096, "n": 1536, "k": 12288}
                op["dtype"] = "bf16"
            elif kind == "all_reduce":
                op["bytes"] = 4096 * 1536 * 2
                op["dtype"] = "bf16"
            else:
                op["duration_us"] = 12.5
            deps = [last[stream]] if stream in last else []
            if kind == "all_reduce":
                deps = [f"op{i - 1}"] + [d for d in deps if d != f"op{i - 1}"]
            op["stream"] = stream
            op["deps"] = deps
            op["name"] = f"layer{i // 3}.{kind}"
            last[stream] = op["id"]
            w.write(("\n    " if i == 0 else ",\n    ") + json.dumps(op, separators=(",", ":")))
        w.write("\n  ]\n}\n")


if __name__ == "__main__":
    main()
