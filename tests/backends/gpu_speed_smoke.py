"""On a CUDA machine: do the fast paths engage, stay exact, and how much do they save?

``python -m tests.backends.gpu_speed_smoke`` prints one JSON line per workload: per-call
latency (CUDA events, median) with triton's ``kernel[grid]`` launches, with direct launches,
and with CUDA graphs, how many launches went direct, whether the CUDA graph replayed, and the
largest difference to eager. Exits 0 whatever happens (errors are printed)."""
from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
import traceback


def _latency_ms(fn, x, runs=50):
    import torch

    for _ in range(5):
        fn(x)
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(x)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return round(statistics.median(times), 4)


def main() -> None:
    import torch

    from autograph.backends.triton import launch
    from autograph.backends.triton.backend import TritonBackend
    from autograph.backends.triton.cudagraphs import CudaGraphCall

    instances = []
    original_init = launch.FastLaunch.__init__

    def counting_init(self, kernel):
        original_init(self, kernel)
        instances.append(self)

    launch.FastLaunch.__init__ = counting_init
    layer = torch.nn.LayerNorm(1024).cuda().to(torch.bfloat16)
    workloads = {
        "softmax 8192x1024 bf16": (lambda x: torch.softmax(x, -1), torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16)),
        "layernorm+gelu 4096x1024 bf16": (lambda x: torch.nn.functional.gelu(layer(x)), torch.randn(4096, 1024, device="cuda", dtype=torch.bfloat16)),
    }
    for name, (fn, x) in workloads.items():
        row = {"workload": name}
        try:
            with torch.no_grad():
                row["eager_ms"] = _latency_ms(fn, x)
                expected = fn(x).float()
                for label, env, graphs in (("kernel[grid]", "0", False), ("direct", "1", False), ("cuda graphs", "1", True)):
                    os.environ["AUTOGRAPH_TRITON_FAST_LAUNCH"] = env
                    instances.clear()
                    torch._dynamo.reset()
                    backend = TritonBackend(tempfile.mkdtemp(prefix="gpu-speed-"), cuda_graphs=graphs)
                    compiled = torch.compile(fn, backend=backend)
                    t0 = time.perf_counter()
                    compiled(x)
                    torch.cuda.synchronize()
                    row[f"{label} cold_s"] = round(time.perf_counter() - t0, 2)
                    row[f"{label} ms"] = _latency_ms(compiled, x)
                    row[f"{label} max_diff"] = (compiled(x).float() - expected).abs().max().item()
                    row[f"{label} direct_launches"] = sum(k.fast_calls for k in instances)
                    row[f"{label} fallbacks"] = [g.fallback_reason for g in backend.compiled if g.fallback_reason]
                    if graphs:
                        row["cuda graph replays"] = sum(
                            o.replays for o in __import__("gc").get_objects() if isinstance(o, CudaGraphCall))
        except Exception as exc:  # noqa: BLE001 - report and go on
            row["error"] = f"{type(exc).__name__}: {exc}"
            row["trace"] = traceback.format_exc()[-1500:]
        finally:
            os.environ.pop("AUTOGRAPH_TRITON_FAST_LAUNCH", None)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
