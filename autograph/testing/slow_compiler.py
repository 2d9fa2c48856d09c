"""A stand-in for inductor in the compile worker, for tests of the background machinery.

``compile`` sleeps ``request["fake_sleep"]`` seconds (a compile that takes a while), fails when
``request["fake_fail"]`` says so, refuses the graph as inductor does one whose file cannot be
saved when ``request["fake_unsupported"]`` says so, compiles it but makes no file when
``request["fake_no_file"]`` says so (as inductor does a graph AOTAutograd's cache refuses), and writes an
artifact file holding a marker; ``load`` gives a callable that runs the graph eagerly and counts its calls
in ``CALLS`` (so a test sees the swap); ``compile_here`` gives the same callable without a file (running a copy of
the graph made from its bytes), and records in ``HERE`` the request's options, the grad mode, CPU autocast
and thread it ran under, and whether the compile lock was held.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable

import torch

from autograph.backends.inductor_artifacts import (NotCacheable, Unsupported, lifted_graph, read_payload,
                                                  with_constants, write_artifact)

CALLS: list[str] = []
HERE: list[dict] = []
MARKER = b"fake compiled graph"


def compile(request: dict) -> str:  # noqa: A001 - the compiler's entry point, by name
    time.sleep(request.get("fake_sleep", 0.0))
    if request.get("fake_unsupported"):
        raise Unsupported(request["fake_unsupported"])
    if request.get("fake_fail"):
        raise RuntimeError(request["fake_fail"])
    if request.get("fake_no_file"):
        raise NotCacheable(request["fake_no_file"])
    return write_artifact(Path(request["path"]), MARKER + request["key"].encode())


def load(path: str, request: dict) -> Callable[..., Any]:
    if read_payload(path) != MARKER + request["key"].encode():
        raise ValueError(f"{path}: not this graph's fake artifact")
    return _counting(request)


def compile_here(request: dict) -> Callable[..., Any]:
    """What ``inductor_artifacts.compile_here`` returns: the graph compiled in the program (here: run eagerly)."""
    HERE.append({"options": request["options"], "grad": torch.is_grad_enabled(),
                 "autocast": torch.is_autocast_enabled("cpu"), "thread": threading.current_thread().name,
                 "locked": _compile_lock_held()})
    if request.get("fake_here_fails"):
        raise RuntimeError(request["fake_here_fails"])
    gm = lifted_graph(request["graph"], request["constants"])  # a copy, as inductor's compile makes
    return _counting(request, with_constants(gm.forward, request["constants"]))


def _compile_lock_held() -> bool:
    """Whether another thread holds the compile lock (``inductor_artifacts.compile_lock``) now."""
    from autograph.backends.inductor_artifacts import compile_lock

    lock, free = compile_lock(), []

    def probe() -> None:
        free.append(lock.acquire(blocking=False))
        if free[0]:
            lock.release()

    prober = threading.Thread(target=probe)
    prober.start()
    prober.join()
    return not free[0]


def _counting(request: dict, eager: Callable[..., Any] | None = None) -> Callable[..., Any]:
    eager = eager or request["gm"].forward
    delay = request.get("fake_compiled_delay", 0.0)

    def compiled(*args: Any) -> Any:
        CALLS.append(request["key"])
        if request.get("fake_compiled_raises"):
            raise RuntimeError("the compiled graph failed")
        if delay:
            time.sleep(delay)
        return eager(*args)

    return compiled


SETTINGS = {"compiler": f"{__name__}:compile", "loader": f"{__name__}:load", "compiler_here": f"{__name__}:compile_here"}
