"""What one capture produces (the ``capture ← runtime`` contract)."""
from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any, Callable

from autograph.capture.core.breaks import BreakRecord


@dataclass
class GraphRecord:
    name: str
    gm: Any                      # torch.fx.GraphModule
    compiled: Callable
    op_count: int


@dataclass
class ResumeRecord:
    name: str
    function: Callable
    original_code: types.CodeType
    offset: int
    lineno: int | None


@dataclass
class CaptureResult:
    fn: Callable
    guards: Any                  # autograph.guards.check.GuardSet
    transformed_code: types.CodeType | None
    graphs: list[GraphRecord] = field(default_factory=list)
    resumes: list[ResumeRecord] = field(default_factory=list)
    breaks: list[BreakRecord] = field(default_factory=list)
    no_tensor_work: bool = False
    run_eagerly: str | None = None  # why the whole function must run as plain Python (then no code)
    capture_seconds: float = 0.0
    compile_seconds: float = 0.0
    transformed_source: str = ""   # readable Python of the transformed entry
    backend: str | None = None     # the backend that compiled the graphs ("auto → eager", ...); None: no graph
