#!/usr/bin/env python3
"""Writes zoo_shapes.csv: the GEMM shape (M x N x K, row-major C = A.B) of every T3 sublayer.

The four all-reduce-producing tensor-parallel sublayers (OP fwd, FC-2 fwd, FC-1 dX, IP dX) of each
model in the zoo at TP 1..32 and 2048 / 8192 tokens, exact integer arithmetic. Formulas:
workloads.md §10.1-10.4 (M = tokens, N = h). KV heads (GQA, multi-query) are replicated when
kv < t (§10.4, as in the PaLM row of §10.6), so the IP dX K is q_dim/t + 2*d*ceil(kv/t).
Standard library only; run from anywhere.
"""
import csv
import math
import pathlib
import sys

TPS = (1, 2, 4, 8, 16, 32)
TOKENS = (2048, 8192)

# name: h, f, swiglu, q_dim (attention inner dim), kv_heads, head_dim (None: MHA, IP K = 3h/t).
# Sources: workloads.md §3-§9; PaLM §8 (q_dim 48*256, one K/V head of 256); Llama §9 (64 / 128
# heads, 8 KV heads, d 128).
MODELS = {
    "mega-gpt2": (3072, 12288, False, 3072, None, None),
    "t-nlg": (4256, 17024, False, 4256, None, None),
    "gpt3": (12288, 49152, False, 12288, None, None),
    "mt-nlg": (20480, 81920, False, 20480, None, None),
    "palm": (18432, 73728, True, 12288, 1, 256),
    "megatron-1t": (25600, 102400, False, 25600, None, None),
    "llama2-70b": (8192, 28672, True, 8192, 8, 128),
    "llama3-70b": (8192, 28672, True, 8192, 8, 128),
    "llama3-405b": (16384, 53248, True, 16384, 8, 128),
}


def div(a, t, what):
    if a % t:
        sys.exit(f"gen_zoo_shapes: {what} = {a} is not divisible by t = {t}")
    return a // t


def sublayers(h, f, swiglu, q_dim, kv, d, t):
    """Yields (sublayer, K); every sublayer has N = h."""
    yield "op_fwd", div(q_dim, t, "q_dim")
    yield "fc2_fwd", div(f, t, "f")
    yield "fc1_dx", div(2 * f if swiglu else f, t, "fc1 out")
    if kv is None:
        yield "ip_dx", div(3 * h, t, "3h")
    else:
        yield "ip_dx", div(q_dim, t, "q_dim") + 2 * d * math.ceil(kv / t)


def main():
    out = pathlib.Path(__file__).with_name("zoo_shapes.csv")
    with out.open("w", newline="") as fh:
        fh.write("# TP sublayer GEMM shapes of the t3sim model zoo; by gen_zoo_shapes.py.\n")
        fh.write("# Source: /work/shared/reference/workloads.md §10 [inferred]; M = tokens;\n")
        fh.write("# N = h; KV heads replicated when kv < tp (§10.4).\n")
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["model", "tp", "tokens", "sublayer", "m", "n", "k"])
        for name, (h, f, swiglu, q_dim, kv, d) in MODELS.items():
            for t in TPS:
                for tokens in TOKENS:
                    for sub, k in sublayers(h, f, swiglu, q_dim, kv, d, t):
                        w.writerow([name, t, tokens, sub, tokens, h, k])
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
