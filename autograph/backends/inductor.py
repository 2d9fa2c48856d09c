"""Delegate to torch's own compiler (TorchInductor) for users who ask for it.

A graph is compiled with ``torch._inductor.standalone_compile`` into an artifact file in
``<cache_dir>/inductor/`` (the same checked files the background compiles of ``auto`` write,
see ``inductor_artifacts.py``), then loaded. A second run of the program finds the file and
loads it: no AOTAutograd trace and no inductor compile, which is what makes its first call as
cheap as ``torch.compile``'s warm start (``compile_fx`` would trace the graph again before its
FX graph cache could answer). A file that is stale or damaged is refused by its header and
compiled again; a cache that cannot be written puts the file in a private temporary directory.
A graph whose compiled file cannot be made (torch saves nothing, or AOTAutograd's cache refuses
a function it calls) is compiled by the same ``standalone_compile`` and used without a file,
so it is compiled again on each start. A graph the artifact path cannot take (symbolic sizes,
a call that cannot be named) is compiled with ``compile_fx`` as before, with the reason in the
``backend`` log.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable

import torch

log = logging.getLogger("autograph.kernels")  # the ``backend`` log channel

REQUEST_DEFAULTS: dict = {}  # entries every request gets (tests name another compiler and loader)


def make_inductor_backend(cache_dir: Path | None) -> Callable[..., Callable]:
    """The ``inductor`` backend with its artifact files in ``cache_dir`` (None: the default cache)."""

    def inductor(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Callable:
        return _compile(gm, example_inputs, cache_dir)

    return inductor


def inductor(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Callable:
    """Compile ``gm`` with inductor, through the artifact cache of the default cache directory.

    Imported lazily: inductor is heavy and most users never pick it.
    """
    return _compile(gm, example_inputs, None)


def _compile(gm: torch.fx.GraphModule, example_inputs: list, cache_dir: Path | None) -> Callable:
    from autograph.backends.functionalize import run_as_captured
    from autograph.backends.inductor_artifacts import compile_lock
    as_captured = run_as_captured(gm, "inductor")
    if as_captured is not None:
        return as_captured
    with compile_lock():  # not while auto's loader thread compiles or loads (inductor's globals)
        loaded = through_artifact(gm, example_inputs, cache_dir)
        if loaded is not None:
            return loaded
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, example_inputs)


def through_artifact(gm: torch.fx.GraphModule, example_inputs: list, cache_dir: Path | None) -> Callable | None:
    """The graph loaded from its artifact file, compiled (here, now) and written first when the
    cache has no usable one; None when the artifact path cannot take the graph."""
    from autograph.backends.compile_worker import import_object
    from autograph.backends.inductor_artifacts import (NotCacheable, NothingSaved, Unsupported, request, serialize,
                                                      with_constants)

    directory = cache_dir if cache_dir is not None else _default_cache_dir()
    try:
        req = request(gm, example_inputs, directory)
    except Unsupported as exc:
        log.info("inductor: compile_fx, not the artifact cache: %s", exc)
        return None
    req.update(REQUEST_DEFAULTS)
    if _uses_cpu(example_inputs, req["constants"]):
        from autograph.backends.inductor_preload import prepare_inductor
        prepare_inductor(directory)  # inductor's imports and its CPU ISA check, overlapped (once per process)
    load = import_object(req["loader"])
    path = req["path"]
    if Path(path).is_file():
        try:
            compiled = load(path, req)
            log.info("inductor: loaded the compiled graph from %s", path)
            return compiled
        except Exception as exc:  # noqa: BLE001 - a stale or damaged file is compiled again
            log.info("inductor: cached file %s not used (%s: %s); compiling again", path, type(exc).__name__, exc)
    try:
        sent = serialize(req)
        path = import_object(req["compiler"])(sent)
    except NothingSaved as exc:  # compiled, only not saved: run it rather than compile it again
        log.info("inductor: compiled, not in the artifact cache (compiled again on each start): %s", exc)
        return with_constants(exc.compiled, req["constants"])
    except NotCacheable as exc:  # refused before compiling: compiled here, with the artifacts' options
        log.info("inductor: compiled, not in the artifact cache (compiled again on each start): %s", exc)
        return import_object(req["compiler_here"])(sent)
    except Unsupported as exc:
        log.info("inductor: compile_fx, not the artifact cache: %s", exc)
        return None
    except Exception as exc:  # noqa: BLE001 - standalone_compile failed: compile_fx decides
        log.warning("inductor: the standalone compile failed (%s: %s); compiling with compile_fx",
                    type(exc).__name__, exc)
        return None
    return load(path, req)


def _uses_cpu(example_inputs: list, constants: list) -> bool:
    """Whether the graph has a CPU tensor among its inputs or held tensors (inductor then
    needs its CPU ISA check)."""
    return any(isinstance(v, torch.Tensor) and v.device.type == "cpu" for v in (*example_inputs, *constants))


def _default_cache_dir() -> Path:
    from autograph.settings import Settings
    return Settings().cache_path()
