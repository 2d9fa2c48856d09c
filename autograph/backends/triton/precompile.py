"""Compiling a graph's GPU kernels in parallel before its first call.

Left alone, triton compiles each kernel when the wrapper first launches it, one autotune config
after another, on one core. Inductor compiles a graph's kernels in a pool instead. Here every
autotune config of every kernel whose launch arguments are known from the wrapper source
(pointers of known dtypes, integer literals: static sizes) is submitted through triton's
``warmup`` inside triton's own ``AsyncCompileMode`` with a thread pool: triton's compiler
runs its passes and ``ptxas`` in parallel, and the JIT caches each result under the key a real
launch of the same specialisation looks up, so the first call (autotuning included) finds
every config compiled.

Best effort, GPU only: a triton without ``AsyncCompileMode``, a kernel whose arguments are not
all known, or any error leaves the compiles to the first call, as before. A warm-up assumes
16-byte-aligned pointers (what the wrapper's own buffers always are); a call with an unaligned
input compiles that other specialisation then.
"""
from __future__ import annotations

import ast
import logging
import os
import re
import time
from typing import Any

import torch

log = logging.getLogger("autograph.backends.triton")

_TORCH_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "fp64": torch.float64,
                 "i64": torch.int64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8,
                 "i1": torch.bool}


def parallel_compile_workers() -> int:
    """``AUTOGRAPH_TRITON_COMPILE_WORKERS`` (0 turns parallel compiles off), else one per core, at most 16."""
    value = os.environ.get("AUTOGRAPH_TRITON_COMPILE_WORKERS")
    if value is not None and value.strip().isdigit():
        return int(value)
    return min(16, os.cpu_count() or 1)


def launch_arguments(wrapper_source: str, signatures: dict[str, dict[str, str]],
                     arg_names: dict[str, list[str]]) -> dict[str, list[Any]]:
    """For each kernel launched in ``wrapper_source`` with only buffers and integer literals, the
    warm-up arguments of its first launch: a torch dtype per pointer, the int per size."""
    out: dict[str, list[Any]] = {}
    call = re.compile(r"^\s*(\w+)\[.*\]\(([^()]*)\)\s*$")
    for line in wrapper_source.splitlines():
        match = call.match(line)
        if not match or match.group(1) not in signatures or match.group(1) in out:
            continue
        name, text = match.groups()
        params = arg_names.get(name, [])
        call_args = [a.strip() for a in text.split(",") if a.strip()]
        if len(call_args) > len(params):
            continue
        args: list[Any] = []
        for param, arg in zip(params, call_args):
            if param in signatures[name]:
                dtype = _TORCH_DTYPES.get(signatures[name][param].lstrip("*"))
                if dtype is None or not arg.isidentifier():
                    break
                args.append(dtype)
            else:
                try:
                    value = ast.literal_eval(arg)
                except (ValueError, SyntaxError):
                    break
                if value.__class__ is not int:
                    break
                args.append(value)
        else:
            out[name] = args
    return out


def precompile(kernels: dict[str, Any], record: dict, workers: int | None = None) -> int:
    """Compile every autotune config of ``kernels`` (name -> triton Autotuner) in parallel;
    returns how many compiles were submitted (0 when nothing was done). Never raises."""
    try:
        return _precompile(kernels, record, workers)
    except Exception as exc:  # noqa: BLE001 - the first call compiles whatever is missing
        log.info("triton backend: parallel precompile skipped: %s: %s", type(exc).__name__, exc)
        return 0


def _precompile(kernels: dict[str, Any], record: dict, workers: int | None) -> int:
    workers = parallel_compile_workers() if workers is None else workers
    if workers < 1 or not kernels:
        return 0
    try:
        from concurrent.futures import ThreadPoolExecutor

        from triton.runtime._async_compile import AsyncCompileMode
    except ImportError:
        return 0
    start = time.perf_counter()
    arg_names = {name: list(getattr(k, "arg_names", [])) for name, k in kernels.items()}
    jobs = launch_arguments(record["wrapper"], record.get("signatures", {}), arg_names)
    submitted = 0
    try:
        with ThreadPoolExecutor(workers, thread_name_prefix="autograph-compile") as pool, \
                AsyncCompileMode(pool, ignore_errors=True):
            for name, args in jobs.items():
                kernel = kernels[name]
                fn, configs = getattr(kernel, "fn", None), getattr(kernel, "configs", None)
                if fn is None or not configs or len(args) + len(configs[0].kwargs) != len(arg_names[name]):
                    continue
                for config in configs:
                    fn.warmup(*args, grid=(1,), **config.all_kwargs())
                    submitted += 1
    except Exception as exc:  # noqa: BLE001 - the first call compiles whatever is missing
        log.info("triton backend: parallel precompile stopped: %s: %s", type(exc).__name__, exc)
    log.info("triton backend: %d kernel compiles in %.2f s on %d threads", submitted,
             time.perf_counter() - start, workers)
    return submitted


AUTOTUNE_WARMUP_MS, AUTOTUNE_REP_MS = 5, 20


def quick_benchmark(kernel_call, quantiles=None):
    """Time one autotune config: triton's ``do_bench`` with 5 ms of warm-up and 20 ms of
    repetitions instead of its defaults (25 and 100 ms per config, which made choosing among a
    graph's configs take most of its cold compile)."""
    from triton.testing import do_bench

    return do_bench(kernel_call, warmup=AUTOTUNE_WARMUP_MS, rep=AUTOTUNE_REP_MS, quantiles=quantiles)


def shorten_autotuning(kernel: Any) -> bool:
    """Make a triton ``Autotuner`` time its configs with :func:`quick_benchmark`; False (and
    triton's own timing kept) where this triton's autotuner does not allow it."""
    # (reading ``do_bench`` would build triton's benchmarker, which needs a driver: not read here)
    if len(getattr(kernel, "configs", ())) < 2 or not (
            hasattr(type(kernel), "do_bench") or "do_bench" in getattr(kernel, "__dict__", {})):
        return False
    try:
        kernel.do_bench = quick_benchmark  # an instance value wins over triton's cached_property
    except AttributeError:
        return False
    return vars(kernel).get("do_bench") is quick_benchmark
