"""A stand-in for inductor in the compile worker, for tests of the background machinery.

``compile`` sleeps ``request["fake_sleep"]`` seconds (a compile that takes a while), fails when
``request["fake_fail"]`` says so, refuses the graph as inductor does one whose file cannot be
saved when ``request["fake_unsupported"]`` says so, and writes an artifact file holding a marker; ``load`` gives a
callable that runs the graph eagerly and counts its calls in ``CALLS`` (so a test sees the swap).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from autograph.backends.inductor_artifacts import Unsupported, read_payload, write_artifact

CALLS: list[str] = []
MARKER = b"fake compiled graph"


def compile(request: dict) -> str:  # noqa: A001 - the compiler's entry point, by name
    time.sleep(request.get("fake_sleep", 0.0))
    if request.get("fake_unsupported"):
        raise Unsupported(request["fake_unsupported"])
    if request.get("fake_fail"):
        raise RuntimeError(request["fake_fail"])
    return write_artifact(Path(request["path"]), MARKER + request["key"].encode())


def load(path: str, request: dict) -> Callable[..., Any]:
    if read_payload(path) != MARKER + request["key"].encode():
        raise ValueError(f"{path}: not this graph's fake artifact")
    eager = request["gm"].forward
    delay = request.get("fake_compiled_delay", 0.0)

    def compiled(*args: Any) -> Any:
        CALLS.append(request["key"])
        if request.get("fake_compiled_raises"):
            raise RuntimeError("the compiled graph failed")
        if delay:
            time.sleep(delay)
        return eager(*args)

    return compiled


SETTINGS = {"compiler": f"{__name__}:compile", "loader": f"{__name__}:load"}
