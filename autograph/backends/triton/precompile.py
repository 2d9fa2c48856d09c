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
    compiled: list[Any] = []
    try:
        with ThreadPoolExecutor(workers, thread_name_prefix="autograph-compile") as pool, \
                AsyncCompileMode(pool, ignore_errors=True):
            for name, args in jobs.items():
                kernel = kernels[name]
                fn, configs = getattr(kernel, "fn", None), getattr(kernel, "configs", None)
                if fn is None or not configs or len(args) + len(configs[0].kwargs) != len(arg_names[name]):
                    continue
                for config in configs:
                    compiled.append(fn.warmup(*args, grid=(1,), **config.all_kwargs()))
                    submitted += 1
    except Exception as exc:  # noqa: BLE001 - the first call compiles whatever is missing
        log.info("triton backend: parallel precompile stopped: %s: %s", type(exc).__name__, exc)
    built = prebuild_launchers(compiled, workers)
    log.info("triton backend: %d kernel compiles and %d launchers in %.2f s on %d threads", submitted, built,
             time.perf_counter() - start, workers)
    return submitted


def prebuild_launchers(compiled: list[Any], workers: int) -> int:
    """Build the launcher of each distinct kernel signature among ``compiled`` (triton's compiled
    kernels, or the futures of an asynchronous compile), in parallel; returns how many.

    Triton before 3.7 compiles a C launcher for each kernel signature with the system's C compiler
    when a kernel is first launched: 0.26 s each, one after another in the first call (2.3 s of
    a GPT-2 block's forward and backward on an H200). Built here, triton's disk cache answers
    the first launch. Best effort: any failure leaves the build to the first launch."""
    try:
        from concurrent.futures import ThreadPoolExecutor

        from triton.runtime.driver import driver

        launcher_cls = driver.active.launcher_cls
    except Exception:  # noqa: BLE001 - no driver here: nothing to build
        return 0
    distinct: dict[str, Any] = {}
    for kernel in compiled:
        if hasattr(kernel, "future"):  # a FutureKernel: its compile has finished (or failed)
            kernel = kernel.result(ignore_errors=True)
        src = getattr(kernel, "src", None)
        if src is not None and hasattr(kernel, "metadata"):
            key = repr((sorted(getattr(src, "signature", {}).items()), getattr(src, "constants", None)))
            distinct.setdefault(key, kernel)
    if not distinct or workers < 1:
        return 0

    def build(kernel) -> bool:
        try:
            launcher_cls(kernel.src, kernel.metadata)
            return True
        except Exception as exc:  # noqa: BLE001 - the first launch builds it
            log.debug("triton backend: launcher not prebuilt: %s: %s", type(exc).__name__, exc)
            return False

    with ThreadPoolExecutor(workers, thread_name_prefix="autograph-launcher") as pool:
        return sum(pool.map(build, distinct.values()))


AUTOTUNE_WARMUP_MS, AUTOTUNE_REP_MS = 1, 5


def quick_benchmark(kernel_call, quantiles=None):
    """Time one autotune config: triton's ``do_bench`` with 1 ms of warm-up and 5 ms of
    repetitions instead of its defaults (25 and 100 ms per config). Each timed call goes
    through triton's Python launch path (about 0.2 ms on the H200 machine's CPU), so 5 ms are
    still about 25 timed calls; 20 ms made autotuning 5 of a GPT-2 block's 12 s cold compile."""
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
