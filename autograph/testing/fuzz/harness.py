"""Running a program eagerly and compiled, call after call, and comparing what a caller sees."""
from __future__ import annotations

import contextlib
import inspect
import io
import itertools
import re
import signal
import threading
import time
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import torch

from autograph.testing.fuzz.diff import DEFAULT_TOLERANCE, Pairing, Tolerance, diff_values, same_type as _same_type
from autograph.testing.fuzz.loading import _MODULE_PREFIX, load_program, unload_program
from autograph.testing.fuzz.program import (ALIAS_CALL, ALT_INT_CALL, ALT_SHAPE_CALL, ALT_STR_CALL, BETWEEN_CALLS,
                                            CALLS, ENTRY, Compiler, Param, Program, make_inputs)


@dataclass(frozen=True)
class Difference:
    """One way the compiled run differed from eager, at call number ``call``.

    kind: ``result``, ``exception``, ``stdout``, ``input_mutation`` (arguments, incl. the
    position of iterators passed in), ``global_state`` (module globals and the objects
    they hold), ``process_state`` (grad and inference mode after the call), ``timeout``, ``compiler_error``, ``crash``. ``eager_exception`` is the type name
    eager raised on that call (None when it returned), used to keep minimisation
    from wandering onto a different failure.
    """
    call: int
    kind: str
    detail: str
    eager_exception: str | None = None

    def __str__(self) -> str:
        return f"call {self.call}: {self.kind}: {self.detail}"

    def signature(self) -> str:
        """A short key that groups differences with the same cause (numbers and
        generated names removed)."""
        detail = re.sub(r"\b(?:[tklfpdvijsy]|dv|dd|sd|buf|flag|tags|acc|info|box|err|marker)\d+\b", "<var>",
                        self.detail)
        detail = re.sub(r"'\w+'", "'<name>'", detail)
        detail = re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "N", detail)
        detail = re.sub(r"0x[0-9a-f]+", "ADDR", detail)
        return f"{self.kind}: {detail[:160]}"


class ProgramTimeout(Exception):
    """A call ran longer than the checker's per-call time limit."""


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    stdout: str = ""
    seconds: float = 0.0
    modes: tuple = (True, False, False, torch.float32)  # the process state after the call (_MODES)


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _expired(signum: int, frame: Any) -> None:
        raise ProgramTimeout(f"call did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# what a call may leave changed in the process, compared after every call
_MODES = "(grad mode, inference mode, CPU autocast, default dtype)"


def _modes() -> tuple:
    return (torch.is_grad_enabled(), torch.is_inference_mode_enabled(), torch.is_autocast_enabled("cpu"),
            torch.get_default_dtype())


def run_call(fn: Callable[..., Any], args: list[Any], timeout_s: float | None = None) -> Outcome:
    """Call ``fn(*args)`` capturing stdout and the exception, if any."""
    buffer = io.StringIO()
    outcome = Outcome()
    grad_before = torch.is_grad_enabled()
    autocast_before, dtype_before = torch.is_autocast_enabled("cpu"), torch.get_default_dtype()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _time_limit(timeout_s):
                outcome.value = fn(*args)
    except ProgramTimeout as error:
        outcome.error = error
    except Exception as error:  # noqa: BLE001 - the user's exception is the observation
        outcome.error = error
    outcome.seconds = time.perf_counter() - start
    outcome.stdout = buffer.getvalue()
    outcome.modes = _modes()
    torch._C._set_grad_enabled(grad_before)  # a call that left it changed does not change the next one
    torch.set_autocast_enabled("cpu", autocast_before)
    torch.set_default_dtype(dtype_before)
    return outcome


def _user_state(module: types.ModuleType) -> dict[str, Any]:
    """Module globals a program's run can change (no dunders, modules, functions, classes)."""
    state = {}
    for name, value in vars(module).items():
        if name.startswith("__") or isinstance(value, (types.ModuleType, types.FunctionType, type)):
            continue
        if callable(value) and not isinstance(value, torch.nn.Module):
            continue
        state[name] = value
    return state


def _describe_error(error: BaseException | None) -> str:
    return "returned normally" if error is None else f"raised {type(error).__module__}.{type(error).__qualname__}: {error}"


def _position(iterator: Any) -> tuple[str, list[Any]]:
    """Where an iterator passed in stands after a call: its state and what is left (consumed)."""
    state = inspect.getgeneratorstate(iterator) if inspect.isgenerator(iterator) else "iterator"
    try:
        return state, list(itertools.islice(iterator, 64))
    except Exception as error:  # noqa: BLE001 - e.g. a generator left running
        return f"{state}, next() raised {type(error).__name__}: {error}", []


def compare_call(call: int, eager: Outcome, compiled: Outcome, eager_args: list[Any], compiled_args: list[Any],
                 params: Sequence[Param], eager_module: types.ModuleType, compiled_module: types.ModuleType,
                 tol: Tolerance = DEFAULT_TOLERANCE, pairing: Pairing | None = None) -> list[Difference]:
    """Every observable difference between the two runs of call number ``call``.

    ``pairing`` carries object identity over the calls of one check (a fresh one pairs
    only this call's arguments).
    """
    found: list[Difference] = []
    eager_exc = type(eager.error).__name__ if eager.error is not None else None
    names = [p.name for p in params if p.kind != "float"]
    kinds = [p.kind for p in params if p.kind != "float"]
    if pairing is None:
        pairing = Pairing()
        for name, a, b in zip(names, eager_args, compiled_args):
            pairing.pair(a, b, f"argument {name!r} of call {call}")

    def add(kind: str, detail: str) -> None:
        found.append(Difference(call, kind, detail, eager_exc))

    if isinstance(compiled.error, ProgramTimeout):
        add("timeout", str(compiled.error))
        return found
    if (eager.error is None) != (compiled.error is None) or (
            eager.error is not None and (not _same_type(type(eager.error), type(compiled.error))
                                         or str(eager.error) != str(compiled.error))):
        add("exception", f"eager {_describe_error(eager.error)}; compiled {_describe_error(compiled.error)}")
    elif eager.error is not None:  # same type and message: the same arguments, attributes, a fresh object
        why = diff_values(eager.error, compiled.error, f"exception of call {call}", tol, pairing)
        if why:
            add("exception", why)
    else:
        why = diff_values(eager.value, compiled.value, f"result of call {call}", tol, pairing)
        if why:
            add("result", why)
    if eager.modes != compiled.modes:
        add("process_state", f"{_MODES} after the call: eager {eager.modes}, compiled {compiled.modes}")
    if eager.stdout != compiled.stdout:
        add("stdout", f"eager printed {eager.stdout!r}, compiled printed {compiled.stdout!r}")
    for name, kind, a, b in zip(names, kinds, eager_args, compiled_args):
        if kind in ("iter", "gen"):
            (state_a, rest_a), (state_b, rest_b) = _position(a), _position(b)
            why = None if state_a == state_b else f"iterator {name!r} after call {call}: {state_a} vs {state_b}"
            why = why or diff_values(rest_a, rest_b, f"items left in iterator {name!r} after call {call}", tol)
        else:
            why = diff_values(a, b, f"argument {name!r} after call {call}", tol, pairing)
        if why:
            add("input_mutation", why)
    state_e, state_c = _user_state(eager_module), _user_state(compiled_module)
    why = diff_values(state_e, state_c, f"module globals after call {call}", tol, pairing)
    if why:
        add("global_state", why)
    return found


def touch(value: Any, call: int, depth: int = 1) -> None:
    """Change what a call returned or raised, as a caller may: a compiled function that hands
    out one object on every call (or keeps one it made) shows the change on the next call."""
    marker = f"touched after call {call}"
    children = list(value.values()) if isinstance(value, dict) else list(value) if isinstance(value, (list, tuple)) else []
    if isinstance(value, set):
        value.add(marker)
    elif isinstance(value, list):
        value.append(marker)
    elif isinstance(value, dict):
        value[marker] = call
    elif isinstance(value, BaseException) or (type(value).__module__.startswith(_MODULE_PREFIX)
                                               and not isinstance(value, type)):
        try:
            value.touched = call
        except Exception:  # noqa: BLE001 - objects with __slots__ or read-only attributes
            pass
    if depth:
        for child in children:
            touch(child, call, depth - 1)


def _between_calls(module: types.ModuleType, call: int) -> None:
    hook = getattr(module, BETWEEN_CALLS, None)
    if hook is not None:
        hook(call)


def check_program(program: Program, compiler: Compiler, *, tol: Tolerance = DEFAULT_TOLERANCE,
                  timeout_s: float | None = 60.0) -> list[Difference]:
    """Run every planned call eagerly and compiled; the differences of the first call
    that differs (later calls would only repeat it), or [] when all agree.

    Before each call the module's ``between_calls(call)`` runs in both modules; after
    each call the returned/raised objects are touched (``touch``); object identity is
    paired across all calls (``Pairing``).
    """
    try:
        eager_module, compiled_module = load_program(program.source), load_program(program.source)
    except Exception:  # noqa: BLE001 - an invalid program (e.g. a minimisation step): nothing to compare
        return []
    try:
        eager_fn = getattr(eager_module, ENTRY)
        try:
            compiled_fn = compiler(getattr(compiled_module, ENTRY))
        except Exception as error:  # noqa: BLE001
            return [Difference(-1, "compiler_error", f"the compiler raised {_describe_error(error)}")]
        pairing = Pairing()
        names = [p.name for p in program.params if p.kind != "float"]
        for call in range(CALLS):
            try:
                _between_calls(eager_module, call)
                _between_calls(compiled_module, call)
                eager_args = make_inputs(program, call, eager_module)
                compiled_args = make_inputs(program, call, compiled_module)
            except Exception:  # noqa: BLE001 - an invalid program (e.g. a minimisation step)
                return []
            for name, a, b in zip(names, eager_args, compiled_args):
                pairing.pair(a, b, f"argument {name!r} of call {call}")
            eager = run_call(eager_fn, eager_args, timeout_s)
            if isinstance(eager.error, ProgramTimeout):
                return []  # the program itself is too slow: nothing to compare
            compiled = run_call(compiled_fn, compiled_args, timeout_s)
            found = compare_call(call, eager, compiled, eager_args, compiled_args, program.params,
                                 eager_module, compiled_module, tol, pairing)
            if found:
                return found
            for outcome in (eager, compiled):
                touch(outcome.error if outcome.error is not None else outcome.value, call)
        return []
    finally:
        unload_program(eager_module)
        unload_program(compiled_module)
        reset = getattr(compiler, "reset", None)
        if callable(reset):
            reset()


def eager_outcomes(program: Program) -> list[Outcome]:
    """The eager outcome of each planned call (for statistics and sanity checks)."""
    module = load_program(program.source)
    try:
        outcomes = []
        for call in range(CALLS):
            _between_calls(module, call)
            outcomes.append(run_call(getattr(module, ENTRY), make_inputs(program, call, module), 30.0))
            touch(outcomes[-1].error if outcomes[-1].error is not None else outcomes[-1].value, call)
        return outcomes
    finally:
        unload_program(module)


def format_failure(program: Program, differences: Sequence[Difference]) -> str:
    """A readable failure report: what differed, the inputs plan, the program."""
    lines = ["compiled run differs from eager:"] + [f"  - {d}" for d in differences]
    plan = (f"dims {dict(program.dims)}, batch {program.alt_a} on call {ALT_SHAPE_CALL}, "
            f"ints {program.ints} (second on call {ALT_INT_CALL})")
    if any(p.kind == "str" for p in program.params):
        plan += f", strings {program.strings} (second on call {ALT_STR_CALL})"
    if program.alias_inputs:
        plan += f", the same tensor for both (A, B) tensor parameters on call {ALIAS_CALL}"
    lines.append(plan + f", inputs_seed {program.inputs_seed}, generator_seed {program.generator_seed}")
    lines.append("program:")
    lines += [f"  {i + 1:3d} | {line}" for i, line in enumerate(program.source.splitlines())]
    return "\n".join(lines)
