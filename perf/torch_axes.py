#!/usr/bin/env python3
"""PyTorch on rk_bench_axes's shapes (perf/bench/axes.cu): torch.sum(x, dim=...) and
torch.var_mean over float x of 2^26 items, timed with CUDA events (median of 31 runs after 5
warm-ups, L2 not flushed: at 256 MB a call, L2 holds little of it). Prints a markdown table; run
on the device beside rk_bench_axes and put both in perf/RESULTS.md."""
import sys

try:
    import torch
except ImportError:
    print("torch_axes.py: PyTorch is not installed here; skipped")
    sys.exit(0)

M = 1 << 20
CASES = [
    ("row sums", (8192, 8192), (1,), False),
    ("column sums", (8192, 8192), (0,), False),
    ("last axis, 4 per output", (M * 16, 4), (1,), False),
    ("last axis, 64 per output", (M, 64), (1,), False),
    ("last axis, 1024 per output", (65536, 1024), (1,), False),
    ("first axis, tall", (M * 8, 8), (0,), False),
    ("first axis, tall", (M, 64), (0,), False),
    ("first axis, wide", (64, M), (0,), False),
    ("first axis, wide", (8, M * 8), (0,), False),
    ("middle axis", (64, 1024, 1024), (1,), False),
    ("axes 0 and 2", (32, 256, 8192), (0, 2), False),
    ("axes 0 and 2", (256, 512, 512), (0, 2), False),
    ("layer norm (var_mean)", (65536, 1024), (1,), True),
    ("batch norm (var_mean)", (32, 256, 8192), (0, 2), True),
]


def time_us(fn, runs=31, warm=5):
    for _ in range(warm):
        fn()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def main():
    if not torch.cuda.is_available():
        print("torch_axes.py: no CUDA device; skipped")
        return
    print(f"# torch_axes.py: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}\n")
    print("| case | shape, reduced axes | torch µs |")
    print("| --- | --- | ---: |")
    for name, shape, dims, stats in CASES:
        x = (torch.arange(x_items(shape), device="cuda") % 7).float().reshape(shape)
        if stats:
            fn = lambda: torch.var_mean(x, dim=dims, correction=0)
        else:
            fn = lambda: torch.sum(x, dim=dims)
        us = time_us(fn)
        print(f"| {name} | {' × '.join(map(str, shape))}, axes {' '.join(map(str, dims))} | {us:.1f} |")
        del x
        torch.cuda.empty_cache()


def x_items(shape):
    n = 1
    for e in shape:
        n *= e
    return n


if __name__ == "__main__":
    main()
