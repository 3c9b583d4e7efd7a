#!/usr/bin/env python3
"""PyTorch on rk_bench_axes's shapes (perf/bench/axes.cu): torch.sum(x, dim=...) and
torch.var_mean over float and double x of 2^26 and 2^28 items in three layouts, timed with CUDA
events (median of 31 runs after 5 warm-ups, L2 not flushed: at 256 MB or more a call, L2 holds
little of it). Prints a markdown table; run
on the device beside rk_bench_axes and put both in perf/RESULTS.md."""
import sys

try:
    import torch
except ImportError:
    print("torch_axes.py: PyTorch is not installed here; skipped")
    sys.exit(0)

M = 1 << 20
# rk_bench_axes's cases at 2^26 items (name, shape, reduced axes, statistics); at 2^28 the largest
# extent (the first of equals) is four times longer, as there.
CASES = [
    ("all axes, 8192 x 8192", (8192, 8192), (0, 1), False),
    ("rows, 8192 x 8192", (8192, 8192), (1,), False),
    ("columns, 8192 x 8192", (8192, 8192), (0,), False),
    ("last axis, 2^24 x 4", (M * 16, 4), (1,), False),
    ("last axis, 2^23 x 8", (M * 8, 8), (1,), False),
    ("last axis, 2^20 x 64", (M, 64), (1,), False),
    ("last axis, 65536 x 1024", (65536, 1024), (1,), False),
    ("first axis, 2^23 x 8", (M * 8, 8), (0,), False),
    ("first axis, 2^20 x 64", (M, 64), (0,), False),
    ("first axis, 64 x 2^20", (64, M), (0,), False),
    ("first axis, 8 x 2^23", (8, M * 8), (0,), False),
    ("middle axis, 64 x 1024 x 1024", (64, 1024, 1024), (1,), False),
    ("axes 0 and 2, 32 x 256 x 8192", (32, 256, 8192), (0, 2), False),
    ("axes 0 and 2, 256 x 512 x 512", (256, 512, 512), (0, 2), False),
    ("layer norm, 65536 x 1024", (65536, 1024), (1,), True),
    ("batch norm, 32 x 256 x 8192", (32, 256, 8192), (0, 2), True),
]
LAYOUTS = ("right", "left", "stride")


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


def shape_at(shape, log2_items):
    grown = list(shape)
    largest = max(range(len(grown)), key=lambda k: (grown[k], -k))
    grown[largest] <<= log2_items - 26
    return tuple(grown)


def view(shape, layout, dtype):
    """x(i...) = (i's row-major index) % 7, stored as layout_right, layout_left, or with its two
    leading axes swapped in memory (rk_bench_axes's layout_stride view)."""
    n = 1
    for e in shape:
        n *= e
    x = (torch.arange(n, device="cuda") % 7).to(dtype).reshape(shape)
    if layout == "left":
        order = tuple(reversed(range(len(shape))))
    elif layout == "stride":
        order = (1, 0) + tuple(range(2, len(shape)))
    else:
        return x
    # The same values, laid out in memory in `order` (outermost first), seen in x's axis order.
    stored = x.permute(order).contiguous()
    back = [0] * len(order)
    for j, k in enumerate(order):
        back[k] = j
    return stored.permute(back)


def main():
    if not torch.cuda.is_available():
        print("torch_axes.py: no CUDA device; skipped")
        return
    print(f"# torch_axes.py: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}\n")
    print("| case | T | n | layout | shape, reduced axes | torch µs |")
    print("| --- | --- | --- | --- | --- | ---: |")
    for dtype, tname in ((torch.float32, "float"), (torch.float64, "double")):
        for log2_items in (26, 28):
            for name, shape0, dims, stats in CASES:
                shape = shape_at(shape0, log2_items)
                for layout in LAYOUTS:
                    x = view(shape, layout, dtype)
                    if stats:
                        fn = lambda: torch.var_mean(x, dim=dims, correction=0)
                    else:
                        fn = lambda: torch.sum(x, dim=dims)
                    us = time_us(fn)
                    print(f"| {name} | {tname} | 2^{log2_items} | {layout} | "
                          f"{' × '.join(map(str, shape))}, axes {' '.join(map(str, dims))} | {us:.1f} |", flush=True)
                    del x
                    torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
