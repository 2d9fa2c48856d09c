"""Run sweep cases eagerly and compiled; report every difference a caller could observe.

A case's source is loaded twice, as two separate modules (each side gets its own objects and
module state). Each side starts from the same process state, with ``sys.stdout``/``sys.stderr``
replaced by the runner's own buffers, and makes the case's calls; after every call the runner
records the result (or the exception's type and message), the arguments as they are after the
call, the case's ``world()`` and the process state a later caller would meet: the streams, the
warning filters, the working directory, grad mode, the default dtype and ``os.environ``.
Between the sides and after the case the process state is put back, so one bad case does not
poison the next. Values are compared with the fuzzer's ``diff_values`` (identity included).

Sweep modules are found by name (``autograph.testing.sweeps.<name>``); a sweep whose module is
not there yet is skipped.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import logging
import os
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import torch

from autograph.testing.fuzz.diff import Pairing, diff_values
from autograph.testing.fuzz.loading import load_program, unload_program
from autograph.testing.sweeps.case import SweepCase

SWEEPS = ("attributes", "blocks", "effects", "constructs", "lookalikes", "dynamic_numbers")
DEFAULT_CALLS = 4


def load_sweep(name: str):
    """The sweep module ``autograph.testing.sweeps.<name>``, or None when it does not exist."""
    try:
        return importlib.import_module(f"autograph.testing.sweeps.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"autograph.testing.sweeps.{name}":
            return None
        raise


# --- process state -----------------------------------------------------------------------------

@dataclass
class ProcessState:
    """What a later caller meets in the process (and what the runner puts back)."""
    stdout: Any
    stderr: Any
    filters: list
    cwd: str
    grad: bool
    inference: bool
    dtype: torch.dtype
    environ: dict
    function_modes: list  # torch's function mode stack (``torch.device(...)`` as a context pushes one)

    @classmethod
    def now(cls) -> "ProcessState":
        return cls(sys.stdout, sys.stderr, list(warnings.filters), os.getcwd(), torch.is_grad_enabled(),
                   torch.is_inference_mode_enabled(), torch.get_default_dtype(), dict(os.environ),
                   _function_modes())

    def restore(self) -> None:
        sys.stdout, sys.stderr = self.stdout, self.stderr
        warnings.filters[:] = self.filters
        warnings._filters_mutated()  # type: ignore[attr-defined]
        with contextlib.suppress(OSError):
            os.chdir(self.cwd)
        torch._C._set_grad_enabled(self.grad)  # (inference mode is only observed: its guard object restores it)
        torch.set_default_dtype(self.dtype)
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        if _function_modes() != self.function_modes:
            while torch._C._len_torch_function_stack():
                torch._C._pop_torch_function_stack()
            for mode in self.function_modes:
                torch._C._push_on_torch_function_stack(mode)


def _function_modes() -> list:
    return list(torch.overrides._get_current_function_mode_stack())


def _stream(stream: Any, own: Any) -> Any:
    if stream is own:
        return "<the caller's stream>"
    if isinstance(stream, io.StringIO):
        return ("StringIO", stream.getvalue())
    return type(stream).__qualname__


def _filter(entry: tuple) -> tuple:
    action, message, category, module, lineno = entry
    pattern = lambda p: getattr(p, "pattern", p)  # noqa: E731
    return action, pattern(message), getattr(category, "__qualname__", category), pattern(module), lineno


def observed_state(out: Any, err: Any, base: ProcessState) -> dict:
    """The process state after a call, comparable between the two sides (relative to ``base``)."""
    return {
        "sys.stdout": _stream(sys.stdout, out),
        "sys.stderr": _stream(sys.stderr, err),
        "warnings.filters": [_filter(f) for f in warnings.filters],
        "os.getcwd()": os.getcwd(),
        "torch.is_grad_enabled()": torch.is_grad_enabled(),
        "torch.is_inference_mode_enabled()": torch.is_inference_mode_enabled(),
        "torch.get_default_dtype()": torch.get_default_dtype(),
        "torch function modes": [type(m).__qualname__ for m in _function_modes()[len(base.function_modes):]]
                                if _function_modes()[:len(base.function_modes)] == base.function_modes
                                else ["<modes below the call's were popped>", len(_function_modes())],
        "os.environ": {k: v for k, v in os.environ.items() if base.environ.get(k) != v}
                      | {k: None for k in base.environ if k not in os.environ},
    }


# --- running one side ---------------------------------------------------------------------------

@dataclass
class CallRecord:
    result: Any = None
    error: tuple[str, str] | None = None
    args: Any = None
    world: Any = None
    state: dict = field(default_factory=dict)
    printed: tuple[str, str] = ("", "")


def _run_side(source: str, compile_fn: Callable | None) -> list[CallRecord]:
    """The case's calls on a fresh module; ``compile_fn`` None runs ``fn`` itself."""
    base = ProcessState.now()
    out, err = io.StringIO(), io.StringIO()
    module = load_program(source)
    records: list[CallRecord] = []
    # autograph's own diagnostics ("f could not be compiled and runs eagerly") are not the
    # program's output: kept off the program's stderr (logging's last-resort handler writes there)
    quiet = logging.NullHandler()
    logging.getLogger("autograph").addHandler(quiet)
    try:
        options = getattr(module, "COMPILE_OPTIONS", {})
        fn = module.fn if compile_fn is None else compile_fn(module.fn, **options)
        world = getattr(module, "world", None)
        calls = getattr(module, "CALLS", DEFAULT_CALLS)
        sys.stdout, sys.stderr = out, err
        for i in range(calls):
            args, kwargs = module.make_call(i)
            record = CallRecord()
            torch.manual_seed(i)  # both sides draw the same random numbers (``t.normal_()``)
            try:
                record.result = fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - compared between the sides
                record.error = (type(exc).__qualname__, str(exc))
            record.args = (args, kwargs)
            record.state = observed_state(out, err, base)
            current = (sys.stdout, sys.stderr)
            sys.stdout, sys.stderr = out, err  # world() may print; the program's own streams stay as left
            record.world = world() if world is not None else None
            sys.stdout, sys.stderr = current
            record.printed = (out.getvalue(), err.getvalue())
            records.append(record)
    finally:
        logging.getLogger("autograph").removeHandler(quiet)
        base.restore()
        unload_program(module)
    return records


# --- comparing --------------------------------------------------------------------------------

def diff_records(eager: list[CallRecord], compiled: list[CallRecord]) -> str | None:
    """The first difference between the two sides' calls, or None."""
    pairing = Pairing()
    for i, (a, b) in enumerate(zip(eager, compiled)):
        if a.error != b.error:
            return f"call {i}: exception {a.error} vs {b.error}"
        for what, x, y in (("result", a.result, b.result), ("arguments after the call", a.args, b.args),
                           ("world()", a.world, b.world)):
            found = diff_values(x, y, f"call {i}: {what}", pairing=pairing)
            if found:
                return found
        for key in a.state:
            if a.state[key] != b.state[key]:
                return f"call {i}: {key} {a.state[key]!r} vs {b.state[key]!r}"
        if a.printed != b.printed:
            which = "stdout" if a.printed[0] != b.printed[0] else "stderr"
            k = 0 if which == "stdout" else 1
            return f"call {i}: text printed to {which} {a.printed[k][-200:]!r} vs {b.printed[k][-200:]!r}"
    if len(eager) != len(compiled):
        return f"{len(eager)} calls vs {len(compiled)}"
    return None


@dataclass
class Outcome:
    """One case checked: ``difference`` says what a caller would see differ (None: same);
    ``error`` is a failure of the case or the runner itself (not a compiler bug)."""
    case: SweepCase
    difference: str | None = None
    error: str | None = None
    dynamo_difference: str | None = None  # with a second opinion: torch.compile's first difference
    seconds: float = 0.0
    known: str | None = None  # not checked: the sweep lists it as a known difference (and why)

    @property
    def ok(self) -> bool:
        return self.difference is None and self.error is None


def autograph_compile(fn: Callable, **options: Any) -> Callable:
    import autograph
    return autograph.compile(fn, backend="eager", **options)


def dynamo_compile(fn: Callable, **options: Any) -> Callable:
    return torch.compile(fn, backend="eager", **options)


_WARM: set[str] = set()


def _warm_up(compile_fn: Callable) -> None:
    """Compile once before any case: the first capture imports modules that install warning
    filters of their own (sympy) and sets environment variables (torch.compile), which would
    otherwise show as differences of the first case."""
    if compile_fn.__name__ not in _WARM:
        _WARM.add(compile_fn.__name__)
        base = ProcessState.now()
        try:
            compile_fn(lambda x: x + 1)(torch.ones(1))
        finally:
            own = {k: v for k, v in os.environ.items() if k not in base.environ}
            base.restore()
            os.environ.update(own)  # the compiler's own settings (TORCHINDUCTOR_CACHE_DIR) stay


def check_case(case: SweepCase, *, second_opinion: bool = False) -> Outcome:
    """Run ``case`` eagerly and compiled (and with ``torch.compile`` when asked); compare."""
    import autograph
    _warm_up(autograph_compile)
    if second_opinion:
        _warm_up(dynamo_compile)
    t0 = time.perf_counter()
    outcome = Outcome(case)
    try:
        eager = _run_side(case.source, None)
        again = _run_side(case.source, None)
        if diff_records(eager, again) is not None:  # a case whose plain runs differ says nothing
            outcome.error = f"not deterministic: {diff_records(eager, again)}"
            return outcome
        outcome.difference = diff_records(eager, _run_side(case.source, autograph_compile))
        if second_opinion:
            import torch._dynamo
            try:
                outcome.dynamo_difference = diff_records(eager, _run_side(case.source, dynamo_compile))
            finally:
                torch._dynamo.reset()
    except Exception:  # noqa: BLE001 - a broken case must not stop the sweep
        outcome.error = traceback.format_exc(limit=6)
    finally:
        autograph.reset()
        outcome.seconds = time.perf_counter() - t0
    return outcome


def run_sweep(name: str, seed: int, *, seconds: float | None = None, max_cases: int | None = None,
              second_opinion: bool = False) -> Iterator[Outcome]:
    """Check the cases of sweep ``name`` (seeds ``seed``, ``seed + 1``, ... until ``seconds`` or
    ``max_cases`` run out; one pass over ``cases(seed)`` when neither is given)."""
    module = load_sweep(name)
    if module is None:
        return
    deadline = None if seconds is None else time.monotonic() + seconds
    known = getattr(module, "known_difference", lambda case: None)
    done, current = 0, seed
    while True:
        for case in module.cases(current):
            if (deadline is not None and time.monotonic() > deadline) or \
                    (max_cases is not None and done >= max_cases):
                return
            why = known(case)
            yield Outcome(case, known=why) if why else check_case(case, second_opinion=second_opinion)
            done += 1
        if deadline is None and max_cases is None:
            return
        current += 1
