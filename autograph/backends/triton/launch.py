"""Launching compiled GPU kernels without triton's per-call Python work.

``kernel[grid](*args)`` binds and specialises every argument in Python, runs the autotuner's
key lookup and canonicalises the grid on every call (tens of microseconds). As Inductor's
``CachingAutotuner`` does, :class:`FastLaunch` lets the first call of each specialisation go
through triton (it compiles and autotunes), keeps the ``CompiledKernel`` that call launched and
from then on calls its launcher directly with the grid, block sizes and metadata computed
once.

A specialisation is what triton's own cache key depends on for our arguments: the exact value
of each integer argument (triton specialises ``== 1``, divisibility by 16 and the integer
width; autotune keys are sizes) and, for each tensor, whether its address is 16-byte aligned.
Any other argument, an unexpected triton (older than 3.3, where launchers take another
argument list), a launch hook, or any error while preparing the direct launch turns the fast
path off for that kernel: it then always launches through ``kernel[grid]``, which is correct
everywhere. Set ``AUTOGRAPH_TRITON_FAST_LAUNCH=0`` to turn it off entirely.
"""
from __future__ import annotations

import functools
import logging
import os
from typing import Any, Callable

log = logging.getLogger("autograph.kernels")


def fast_launch_enabled() -> bool:
    return os.environ.get("AUTOGRAPH_TRITON_FAST_LAUNCH", "1") != "0"


@functools.lru_cache(maxsize=None)
def triton_supports_direct_launch() -> bool:
    """Triton >= 3.3: ``CompiledKernel.run(g0, g1, g2, stream, function, packed_metadata,
    launch_metadata, enter_hook, exit_hook, *all_args)`` with constexprs among ``all_args``."""
    try:
        import triton
        from triton.compiler.compiler import CompiledKernel
    except Exception:  # noqa: BLE001 - no triton, no fast path
        return False
    try:
        major, minor = (int(p) for p in triton.__version__.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (3, 3) and hasattr(CompiledKernel, "launch_metadata")


def _launch_hooks_installed() -> bool:
    """Whether triton would call a launch hook (a profiler's): direct launches call none. A hook
    is None, or (triton >= 3.7) a ``HookChain`` that is empty unless a hook was added. Checked
    when a direct launcher is built, as Inductor does."""
    try:
        from triton import knobs
    except ImportError:
        return True
    hooks = (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook)
    return any(h is not None and (not hasattr(h, "calls") or h.calls) for h in hooks)


def _current_device() -> int:
    import torch

    return torch._C._cuda_getDevice()


def _current_stream(device: int) -> int:
    import torch

    return torch._C._cuda_getCurrentRawStream(device)


class _NotDirect(Exception):
    """This kernel (or this call) cannot be launched directly."""


def specialization_key(args: tuple) -> tuple:
    """What triton specialises a compiled kernel on, for our kernels' arguments: int values and
    tensor alignment. Raises :class:`_NotDirect` for any other kind of argument."""
    try:
        return tuple([a if a.__class__ is int else a.data_ptr() % 16 == 0 for a in args])
    except AttributeError:
        raise _NotDirect(f"argument types {[type(a).__name__ for a in args]}") from None


class FastLaunch:
    """A GPU kernel as the generated wrapper calls it: ``kernel[grid](*args, **constexprs)``."""

    def __init__(self, kernel: Any):
        self.kernel = kernel
        self.direct = fast_launch_enabled() and triton_supports_direct_launch()
        self.launchers: dict[tuple, Callable] = {}
        self.fast_calls = 0  # counted for tests and explain

    def __getitem__(self, grid) -> Callable:
        return functools.partial(self.run, grid)

    def run(self, grid, *args, **constexprs):
        if self.direct:
            try:
                key = (_current_device(), specialization_key(args), tuple(constexprs.items()))
            except _NotDirect as why:
                self._give_up(str(why))
            else:
                launcher = self.launchers.get(key)
                if launcher is not None:
                    self.fast_calls += 1
                    return launcher(args)
                compiled = self.kernel[grid](*args, **constexprs)
                try:
                    self.launchers[key] = self._direct_launcher(compiled, grid, args, constexprs, key[0])
                except Exception as exc:  # noqa: BLE001 - the slow path stays correct
                    self._give_up(f"{type(exc).__name__}: {exc}")
                return compiled
        return self.kernel[grid](*args, **constexprs)

    def _give_up(self, why: str) -> None:
        self.direct = False
        self.launchers.clear()
        log.debug("triton backend: kernel %s launches through triton: %s", _name(self.kernel), why)

    def _direct_launcher(self, compiled, grid, args: tuple, constexprs: dict, device: int) -> Callable:
        """The launch the first call made, as a closure over everything but the tensors."""
        if hasattr(compiled, "result"):  # an asynchronously compiled kernel
            compiled = compiled.result()
        if _launch_hooks_installed():
            raise _NotDirect("a triton launch hook is installed")
        config = getattr(self.kernel, "best_config", None)
        if config is not None and getattr(config, "pre_hook", None) is not None:
            raise _NotDirect("the chosen config has a pre-hook")
        values = dict(getattr(config, "kwargs", {}) or {})
        values.update(constexprs)
        arg_names = list(getattr(self.kernel, "arg_names", None) or compiled.src.fn.arg_names)
        rest = arg_names[len(args):]
        if len(args) > len(arg_names) or any(n not in values for n in rest):
            raise _NotDirect(f"arguments {arg_names} do not match the call")
        tail = tuple(values[n] for n in rest)
        if callable(grid):
            grid = grid(dict(zip(arg_names, args + tail)))
        g0, g1, g2 = (tuple(grid) + (1, 1))[:3]
        run = compiled.run
        function, metadata = compiled.function, compiled.packed_metadata
        current_stream = _current_stream

        def launch(call_args: tuple):
            run(g0, g1, g2, current_stream(device), function, metadata, None, None, None, *call_args, *tail)
            return compiled

        return launch


def _name(kernel) -> str:
    fn = getattr(kernel, "fn", kernel)
    return getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", repr(kernel))
