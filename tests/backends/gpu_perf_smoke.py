"""On a CUDA machine: the kernels that issue 28's H100 profile found slow (column sums, tanh
chains, LayerNorm) and CUDA rounding division, against eager.

``python -m tests.backends.gpu_perf_smoke`` prints one JSON line per workload: eager and
compiled per-call latency (CUDA events, median of 50), cold compile, the largest difference to
eager and whether the results are bitwise equal. Exits 0 whatever happens (errors are printed)."""
from __future__ import annotations

import json
import tempfile
import time
import traceback

from tests.backends.gpu_speed_smoke import _latency_ms


def _chain(x):
    import torch

    for _ in range(4):
        x = torch.tanh(x * 1.1 + 0.1) * torch.sigmoid(x)
    return x


def workloads() -> dict:
    import torch
    import torch.nn.functional as F

    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    w, b = torch.randn(768, **bf16), torch.randn(768, **bf16)
    small = torch.tensor([3, 15, 30, 60, 7, 200, 255, 1], device="cuda", dtype=torch.uint8)
    return {
        "column sum (4096, 768) bf16": (lambda x: x.sum(0), torch.randn(4096, 768, **bf16)),
        "bias grad sum((0,1)) (8, 512, 2304) bf16": (lambda x: x.sum((0, 1)), torch.randn(8, 512, 2304, **bf16)),
        "tanh/sigmoid chain 4096^2 bf16": (_chain, torch.randn(4096, 4096, **bf16)),
        "gelu tanh (4096, 3072) bf16": (lambda x: F.gelu(x, approximate="tanh"), torch.randn(4096, 3072, **bf16)),
        "layer_norm (4096, 768) bf16": (lambda x: F.layer_norm(x, (768,), w, b), torch.randn(4096, 768, **bf16)),
        "div trunc/floor by 0.3 uint8": (lambda x: (torch.div(x, 0.3, rounding_mode="trunc"),
                                                    torch.div(x, 0.3, rounding_mode="floor")), small),
        "div trunc/floor by 0.3 float32": (lambda x: (torch.div(x, 0.3, rounding_mode="trunc"),
                                                      torch.div(x, 0.3, rounding_mode="floor")),
                                           torch.randn(1 << 16, device="cuda") * 100),
    }


def main() -> None:
    import torch

    from autograph.backends.triton.backend import TritonBackend

    for name, (fn, x) in workloads().items():
        row = {"workload": name}
        try:
            with torch.no_grad():
                expected = fn(x)
                expected = expected if isinstance(expected, tuple) else (expected,)
                row["eager_ms"] = _latency_ms(fn, x)
                torch._dynamo.reset()
                backend = TritonBackend(tempfile.mkdtemp(prefix="gpu-perf-"))
                compiled = torch.compile(fn, backend=backend)
                t0 = time.perf_counter()
                compiled(x)
                torch.cuda.synchronize()
                row["cold_s"] = round(time.perf_counter() - t0, 2)
                row["autograph_ms"] = _latency_ms(compiled, x)
                got = compiled(x)
                got = got if isinstance(got, tuple) else (got,)
                row["max_diff"] = max((g.float() - e.float()).abs().max().item() for g, e in zip(got, expected))
                row["bitwise_equal"] = all(torch.equal(g, e) for g, e in zip(got, expected))
                row["fallbacks"] = [g.fallback_reason for g in backend.compiled if g.fallback_reason]
                row["kernels"] = sum(len(g.kernels) for g in backend.compiled)
        except Exception as exc:  # noqa: BLE001 - report and go on
            row["error"] = f"{type(exc).__name__}: {exc}"
            row["trace"] = traceback.format_exc()[-1500:]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
