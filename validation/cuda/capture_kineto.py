#!/usr/bin/env python3
"""Captures a PyTorch profiler (Kineto) trace of one tensor-parallel sublayer: a GEMM [T,K] x [K,H]
in FP16 followed by an NCCL all-reduce of its [T,H] output, written as Chrome trace JSON (--out).

Fidelity: a real framework trace (record_shapes=True, CPU + CUDA activities) for t3sim's trace
readers; world size 1 (one GPU; NCCL still launches its kernel) or more under torchrun. Default
shape: GPT-3 OP sublayer at TP 8 (T 8192, K 1536, H 12288; workloads.md §10.6). Needs torch+CUDA.
"""
import argparse
import os
import sys


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True,
                   help="Chrome trace JSON to write (rank suffix if world size > 1)")
    p.add_argument("--tokens", type=int, default=8192, help="T, GEMM M (default 8192)")
    p.add_argument("--k", type=int, default=1536, help="GEMM K = h/t (default 1536)")
    p.add_argument("--hidden", type=int, default=12288, help="H, GEMM N (default 12288)")
    p.add_argument("--warmup", type=int, default=3, help="profiler warm-up steps (default 3)")
    p.add_argument("--iters", type=int, default=5, help="recorded steps (default 5)")
    return p.parse_args()


def main():
    args = parse_args()
    try:
        import torch
        import torch.distributed as dist
    except ImportError as e:
        sys.exit(f"capture_kineto: PyTorch is required (pip install torch) but cannot be "
                 f"imported: {e}")
    if not torch.cuda.is_available():
        sys.exit("capture_kineto: torch.cuda.is_available() is False - a CUDA GPU is required")
    if not dist.is_nccl_available():
        sys.exit("capture_kineto: this torch build has no NCCL backend")

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    out = args.out if world == 1 else f"{os.path.splitext(args.out)[0]}.rank{rank}.json"

    x = torch.randn(args.tokens, args.k, device="cuda", dtype=torch.float16)
    w = torch.randn(args.k, args.hidden, device="cuda", dtype=torch.float16)
    prof_sched = torch.profiler.schedule(wait=0, warmup=args.warmup, active=args.iters, repeat=1)
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(
        activities=activities,
        schedule=prof_sched,
        record_shapes=True,
        on_trace_ready=lambda prof: prof.export_chrome_trace(out),
    ) as prof:
        for _ in range(args.warmup + args.iters):
            with torch.profiler.record_function("t3_sublayer_gemm"):
                y = torch.matmul(x, w)
            with torch.profiler.record_function("t3_sublayer_allreduce"):
                dist.all_reduce(y)
            torch.cuda.synchronize()
            prof.step()
    dist.destroy_process_group()
    print(f"capture_kineto: rank {rank}/{world} wrote {out}")


if __name__ == "__main__":
    main()
