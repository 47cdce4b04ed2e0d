#!/usr/bin/env python3
"""Attention peers on the lent GPU, beside tesserac's kernel (tests/device/cuda_check.sh step 7).

Measures, on the shapes of cuda_device_bench.cc's attention lines (bf16,
batch 1, 16 heads of 128, S = 8192, full and causal; layout [B, H, S, D]):
PyTorch scaled_dot_product_attention with the flash and the cuDNN backends,
and FlexAttention (torch.compile -> Triton). Prints TFLOP/s per peer, then
ours / peer from the "bench: attention ..." lines of BENCH_TXT (our kernel
launched through libtesserart in the same run). Goal (issue 27): the mma.sync
path >= 0.9x FlashAttention-2 at D = 128, S = 8k. Reported, not gated.
usage: attention_peers.py BENCH_TXT
"""
import re
import sys

B, H, S, D = 1, 16, 8192, 128


def time_ms(fn, warmup=3, reps=10):
    import torch
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def peers():
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = {}
    for causal in (False, True):
        for name, backend in (("sdpa_flash", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    out[(name, causal)] = time_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal))
            except Exception as e:  # a backend this torch or GPU lacks
                print(f"peer {name} causal={causal}: unavailable ({type(e).__name__}: {str(e)[:80]})")
        try:
            from torch.nn.attention.flex_attention import create_block_mask, flex_attention
            flex = torch.compile(flex_attention)
            mask = create_block_mask(lambda b, h, qi, ki: qi >= ki, B, H, S, S) if causal else None
            out[("flex_triton", causal)] = time_ms(lambda: flex(q, k, v, block_mask=mask))
        except Exception as e:
            print(f"peer flex_triton causal={causal}: unavailable ({type(e).__name__}: {str(e)[:80]})")
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    ours = {}
    for line in open(sys.argv[1]):
        m = re.match(r"bench: attention (full|causal) .*: ([0-9.]+) ms", line)
        if m and float(m.group(2)) > 0:
            ours[m.group(1) == "causal"] = float(m.group(2))
    try:
        measured = peers()
    except ImportError as e:
        print(f"attention peers: no PyTorch here ({e}); nothing to compare")
        return 0
    for (name, causal), ms in sorted(measured.items()):
        flops = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
        line = f"peer {name} {'causal' if causal else 'full'} B={B} H={H} S={S} D={D}: {ms:.3f} ms ({flops / ms / 1e9:.1f} TFLOP/s)"
        if causal in ours:
            ratio = ms / ours[causal]
            line += f"; ours/peer {ratio:.3f}"
            if name == "sdpa_flash":
                line += f" (goal >= 0.9) {'MET' if ratio >= 0.9 else 'MISSED'}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
