"""Serial vs threaded compile of a GPT-2-style block's CUDA kernels (every autotune config) to
PTX for sm_90, without a GPU: ``python -m tests.backends.compile_bench [threads]``.

Each mode runs in a child process with its own empty triton cache (tests/backends/ptx.py),
so neither reuses the other's work."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _child(request: Path, threads: int) -> float:
    from concurrent.futures import ThreadPoolExecutor

    import triton
    from triton.backends.compiler import GPUTarget

    from tests.backends.ptx import load_kernel_module

    record = json.loads(request.read_text())
    jobs = []
    for name, source in record["kernels"]:
        autotuner, params = load_kernel_module(request.parent, name, source)
        for config in autotuner.configs:
            signature = dict(record["signatures"][name])
            constexprs = {}
            for i, p in enumerate(params):
                if p not in signature:
                    if p in config.kwargs:
                        signature[p] = "constexpr"
                        constexprs[(i,)] = config.kwargs[p]
                    else:
                        signature[p] = "i32"
            src = triton.compiler.ASTSource(fn=autotuner.fn, signature=signature, constexprs=constexprs)
            jobs.append((src, {"num_warps": config.num_warps}))
    target = GPUTarget("cuda", 90, 32)
    start = time.perf_counter()
    if threads <= 1:
        for src, options in jobs:
            triton.compile(src, target=target, options=options)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda job: triton.compile(job[0], target=target, options=job[1]), jobs))
    return len(jobs), time.perf_counter() - start


def main() -> None:
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    from autograph.backends.triton.backend import TritonBackend, decompositions
    from tests.backends.ptx import ptx_environment
    from tests.backends.wrapper_bench import gpt2_block

    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    fn, inputs = gpt2_block(1, 64, 768)
    inputs = [t.detach() for t in inputs]
    gm = make_fx(fn, decomposition_table=decompositions())(*inputs)
    with tempfile.TemporaryDirectory() as tmp:
        record = TritonBackend(tmp)._generate(gm, gpu=True)
        for mode in (1, threads):
            work = Path(tmp) / f"mode{mode}"
            work.mkdir()
            request = work / "request.json"
            request.write_text(json.dumps({"kernels": record["kernels"], "signatures": record["signatures"]}))
            out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(Path.cwd())!r}); "
                                  f"from tests.backends.compile_bench import _child; from pathlib import Path; "
                                  f"print(_child(Path({str(request)!r}), {mode}))"],
                                 env=ptx_environment(work), capture_output=True, text=True, check=True)
            count, seconds = eval(out.stdout.strip().splitlines()[-1])
            print(f"{len(record['kernels'])} kernels, {count} compiles, {mode} thread(s): {seconds:.2f} s")
    del torch


if __name__ == "__main__":
    main()
