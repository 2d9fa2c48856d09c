"""Graph-break signalling and records.

``Unsupported`` is raised by any handler or value that cannot be represented in
the graph; the interpreter turns it into a :class:`BreakRecord` at the root
instruction it happened under (a break inside an inlined callee breaks at the
call site in the caller).
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class BreakKind:
    """A stable category of graph break: what it means in plain words and what the user can do."""

    name: str
    explanation: str
    hint: str


# Every kind of graph break, by stable name (the report counts breaks by kind, `explain` shows
# the hint, docs list them). Register new kinds with :func:`break_kind`; raise
# ``Unsupported(reason, kind="name")``, where ``reason`` carries the per-site detail.
BREAK_KINDS: dict[str, BreakKind] = {}


def break_kind(name: str, explanation: str, hint: str) -> str:
    """Register a break kind once; returns its name for use in ``Unsupported(kind=...)``.

    A name registered twice with other words is a programming error (two modules would each
    believe their text is the one users read)."""
    kind = BreakKind(name, explanation, hint)
    if BREAK_KINDS.setdefault(name, kind) != kind:
        raise ValueError(f"break kind {name!r} is already registered with other words")
    return name


UNSUPPORTED = break_kind(
    "unsupported", "capture met a Python construct it cannot represent in a graph",
    "the code around it runs in Python; if it matters, report it with `autograph.explain(f)`'s output")

# The kinds shared by many raise sites (a family's own kinds are registered in its module).
# Raise sites name them by string: ``Unsupported(reason, kind="data-dependent-branch")``.
break_kind(
    "data-dependent-branch", "Python needs the value inside a tensor to go on (an `if` on a tensor, "
    "`.item()`, `.tolist()`, `int(t)`), which is only known when the graph has run",
    "keep the decision in tensor code (`torch.where`, masks, `torch.clamp`) or move it out of the "
    "compiled function; the graph returns the value and Python decides")
break_kind(
    "data-dependent-operation", "a torch operation whose output shape depends on tensor values "
    "(`nonzero`, `unique`, boolean-mask indexing) cannot be traced with fake tensors",
    "use a fixed-shape form (`torch.where(mask, x, 0)` instead of `x[mask]`) or accept the break")
break_kind(
    "python-exception", "the code raises a Python exception here (capture predicted it); the raising "
    "code runs in Python so the exception, its message and the handlers are exactly Python's",
    "nothing if the exception is intended; otherwise fix the error the message names")
break_kind(
    "side-effect", "the code changes state that outlives the call (a global, a list/dict/set or object "
    "from outside, a call with unknown effects) in a way capture does not replay after the graph",
    "return the new value instead of storing it, or keep the mutation outside the compiled function")
break_kind(
    "unsupported-call", "a call capture cannot follow into: a C function or library call with no model, "
    "or a callable without Python code; it runs in Python between two graphs",
    "move the call out of the hot path, or wrap the tensor work around it in its own function")
break_kind(
    "unsupported-operation", "an operation (operator, attribute, indexing, iteration, formatting) on a "
    "value capture does not model",
    "rewrite it with plain containers, constants or tensors; `autograph.explain(f)` names the value")
break_kind(
    "object-construction", "creating an object whose construction capture cannot model (a C type, a "
    "class with a C `__new__`, a module with parameters or random state made inside the function)",
    "create the object once outside the compiled function and pass it in")
break_kind(
    "cannot-rebuild", "a value made during capture is still in use at a graph break and cannot be "
    "rebuilt in Python there",
    "avoid keeping such values (closures, partials, copies) alive across a graph break")
break_kind(
    "unsupported-bytecode", "an instruction the capture interpreter has no handler for (async code, "
    "pattern matching, class bodies; tests/bytecode/test_opcode_inventory.py lists them)",
    "move that construct into a function that is not compiled")
break_kind(
    "import-in-function", "an `import` statement runs inside the compiled function",
    "move the import to module level")
break_kind(
    "call-depth", "calls are nested deeper than capture inlines",
    "flatten the call chain, or compile an inner function on its own with `autograph.compile`")
break_kind(
    "unsupported-torch-value", "a torch operation takes or returns a value capture does not represent "
    "(tensor subclasses, NumPy scalars, tensors without a guardable source, unusual result types)",
    "pass plain tensors and Python numbers to torch operations inside the compiled function")
break_kind(
    "tensor-op-in-try", "a tensor operation is covered by the user's `except`: fake tensors cannot "
    "predict every run-time error, so it runs in Python where the handler can catch it",
    "move the tensor code out of the `try` block when the `except` is not meant for it")
break_kind(
    "fake-tensor-failure", "a torch operation failed on the capture's fake tensors (it may still work on "
    "real ones)", "report it with `autograph.explain(f)`'s output; the operation runs in Python meanwhile")
break_kind(
    "dynamic-shape", "a dynamic (symbolic) size or Python number is used where capture needs its fixed "
    "value", "mark the dimension static (`autograph.mark_static`) or set `dynamic: static`")
break_kind(
    "module-hooks", "the module has hooks registered (FSDP2's fully_shard, user hooks) or a forward set "
    "on the instance: its call runs in Python, the hooks around its forward, and the forward is "
    "compiled on its own (one capture per class)",
    "nothing to do for forward hooks; remove other hooks (backward, global) if the module's "
    "forward should be compiled too")

FRAME_INSPECTION = break_kind(
    "frame-inspection", "the code inspects the interpreter's call frames (`sys._getframe`, "
    "`inspect.currentframe`/`stack`, `traceback.extract_stack`, `warnings.warn`'s location) or its "
    "namespace (`globals()`, `locals()`, `eval`/`exec` without globals): compiled "
    "code runs in frames of its own, so the whole function runs as plain Python, where every frame is "
    "the one Python would have",
    "move the frame inspection out of the compiled function (or the function out of the selected "
    "packages) if the rest of it should be compiled")


class Unsupported(Exception):
    """Capture cannot continue here; ``reason`` is in the user's language, ``kind`` a
    :data:`BREAK_KINDS` name."""

    def __init__(self, reason: str, *, kind: str = UNSUPPORTED, generic: bool = False,
                 exc: BaseException | None = None):
        super().__init__(reason)
        if kind not in BREAK_KINDS:
            raise KeyError(f"unknown break kind {kind!r}: register it with break_kind()")
        self.kind = kind
        self.reason = reason
        # the real exception, when capture knows exactly what Python raises here
        self.exc = exc
        # user stack of (filename, lineno, function name), innermost last
        self.user_stack: list[tuple[str, int, str]] = []
        self.generic = generic
        # planning a break failed: the root step (see Translator.step) where breaking instead
        # avoids the cause (where the value that cannot be rebuilt was made), if known
        self.retry_step: int | None = None
        # the value of ``exc`` raised into user code (interpreter.py), and whether it was chained
        # to the handled exception already (a re-raise keeps its context as it is)
        self.exc_value: Any = None
        self.chained = False


class CaptureBug(Exception):
    """An internal inconsistency: the capture of this function is abandoned."""


@dataclass
class BreakRecord:
    reason: str
    filename: str
    lineno: int | None
    source_line: str
    user_stack: list[tuple[str, int, str]] = field(default_factory=list)
    offset: int | None = None
    kind: str = UNSUPPORTED

    def __str__(self) -> str:
        return f"{self.reason} ({self.filename}:{self.lineno})"


def source_line(filename: str, lineno: int | None) -> str:
    """The stripped text of ``filename:lineno`` ('' when unavailable)."""
    if not lineno:
        return ""
    return linecache.getline(filename, lineno).strip()
