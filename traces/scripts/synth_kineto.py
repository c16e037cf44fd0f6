#!/usr/bin/env python3
"""Writes a synthetic PyTorch profiler (Kineto) trace of N iterations of a GEMM + all-reduce
step, shaped like a real profile (python_function stacks, cpu_ops with record_shapes, runtime
launches, kernels with their launch args), to measure `t3sim trace import-kineto` and
`t3sim check` on large inputs. Usage: synth_kineto.py OUT.json KERNELS (about 1.5 KB per kernel).
Deterministic: the same arguments write the same bytes."""
import json
import sys


def main():
    out, kernels = sys.argv[1], int(sys.argv[2])
    w = open(out, "w")
    w.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100"}],\n')
    w.write(' "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},\n')
    w.write(' "traceEvents": [\n')
    first = True

    def emit(e):
        nonlocal first
        w.write(("" if first else ",\n") + json.dumps(e, separators=(",", ":")))
        first = False

    ts = 1000.0
    for i in range(kernels):
        comm = i % 4 == 3
        corr = 100000 + i
        for d in range(3):  # python stack around the op
            emit({"ph": "X", "cat": "python_function", "name": f"model.py({120 + d}): forward_{d}",
                  "pid": 7, "tid": 7, "ts": ts + d * 0.1, "dur": 30.0 - d,
                  "args": {"Python parent id": i * 3 + d, "Python id": i * 3 + d + 1,
                           "Python thread": 0}})
        if comm:
            emit({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7,
                  "ts": ts + 1, "dur": 20.0,
                  "args": {"External id": i, "Collective name": "allreduce",
                           "In msg nelems": 4194304, "Out msg nelems": 4194304,
                           "dtype": "BFloat16", "Group size": 8, "Record function id": 0,
                           "Sequence number": 0, "Fwd thread id": 0}})
            name = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
            stream = 20
            dur = 180.0
        else:
            emit({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7,
                  "ts": ts + 1, "dur": 20.0,
                  "args": {"External id": i, "Input Dims": [[4096, 12288], [12288, 1536]],
                           "Input type": ["c10::BFloat16", "c10::BFloat16"],
                           "Input Strides": [[12288, 1], [1, 12288]],
                           "Concrete Inputs": ["", ""], "Record function id": 0,
                           "Sequence number": i, "Fwd thread id": 0, "Ev Idx": i}})
            name = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1"
            stream = 7
            dur = 250.0
        emit({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7,
              "ts": ts + 2, "dur": 5.0,
              "args": {"External id": i, "cbid": 211, "correlation": corr}})
        emit({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts + 10,
              "dur": dur,
              "args": {"External id": i, "queued": 0, "device": 0, "context": 1,
                       "stream": stream, "correlation": corr, "registers per thread": 232,
                       "shared memory": 98304, "blocks per SM": 1.0, "warps per SM": 8.0,
                       "grid": [96, 32, 1], "block": [256, 1, 1],
                       "est. achieved occupancy %": 13}})
        emit({"ph": "f", "id": corr, "pid": 0, "tid": stream, "ts": ts + 10, "cat": "ac2g",
              "name": "ac2g", "bp": "e"})
        ts += 300.0
    w.write("\n]}\n")
    w.close()


if __name__ == "__main__":
    main()
