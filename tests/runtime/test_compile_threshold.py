"""Hotness policy: import-hook functions are captured on their ``compile_threshold``-th call."""
from __future__ import annotations

import functools
import itertools

import pytest
import torch

import autograph
from autograph.runtime import shim as shim_mod
from autograph.runtime.cache import own_code
from autograph.runtime.shim import Shim
from tests.runtime.fakes import FakeCapture, runtime_settings

_ids = itertools.count()


def make_fn(source: str = "def f(a, b):\n    return a * 2 + b\n", name: str = "f"):
    """A fresh function with its own code object (code state is kept per code object)."""
    ns = {"torch": torch, "functools": functools}
    exec(compile(source, f"<threshold {next(_ids)}>", "exec"), ns)
    return ns[name]


@pytest.fixture
def runtime():
    state = {"capture": FakeCapture()}

    def setup(**settings):
        state["capture"] = FakeCapture()
        shim_mod.configure(settings_provider=lambda: runtime_settings(**settings), capture=state["capture"])
        return state["capture"]

    previous = shim_mod.configure(settings_provider=runtime_settings, capture=state["capture"])
    yield setup
    shim_mod.restore(previous)


def test_hook_function_is_captured_on_its_nth_call(runtime):
    cap = runtime(compile_threshold=3)
    s = Shim(make_fn())  # what the import hook makes (not explicit)
    x, y = torch.ones(3), torch.ones(3)
    for expected_captures in (0, 0, 1, 1):
        assert torch.equal(s(x, y), x * 2 + y)
        assert cap.calls == expected_captures
    assert s.stats.cold_calls == 2 and s.stats.compile_threshold == 3
    assert s.stats.calls == 4 and s.stats.captures == 1 and s.entries[0].hits == 1


def test_threshold_one_captures_on_the_first_call(runtime):
    cap = runtime(compile_threshold=1)
    s = Shim(make_fn())
    s(torch.ones(2), torch.ones(2))
    assert cap.calls == 1 and s.stats.cold_calls == 0


def test_explicit_compile_targets_are_captured_on_their_first_call(runtime):
    cap = runtime(compile_threshold=5)
    f = autograph.compile(make_fn())
    f(torch.ones(2), torch.ones(2))
    assert cap.calls == 1 and f.stats.cold_calls == 0


def test_resume_shims_are_captured_on_their_first_call(runtime):
    cap = runtime(compile_threshold=5)
    outer = Shim(make_fn())
    resume = outer._wrap_nested(make_fn())  # how capture asks for a resume function's shim
    resume(torch.ones(2), torch.ones(2))
    assert cap.calls == 1 and resume.stats.cold_calls == 0


def test_reset_starts_the_warm_up_again(runtime):
    cap = runtime(compile_threshold=2)
    s = Shim(make_fn())
    x = torch.ones(2)
    s(x, x), s(x, x)
    assert cap.calls == 1
    autograph.reset()
    s(x, x)
    assert cap.calls == 1 and s.stats.cold_calls == 1
    s(x, x)
    assert cap.calls == 2


def test_misses_after_the_first_capture_recompile_at_once(runtime):
    cap = runtime(compile_threshold=3)
    s = Shim(make_fn())
    for _ in range(3):
        s(torch.ones(2), torch.ones(2))
    s(torch.ones(4), torch.ones(4))
    assert cap.calls == 2 and s.stats.cold_calls == 2


def test_the_real_capture_with_a_break_through_a_hook_shim(monkeypatch):
    """End to end: cold calls run the original; the hot call captures; its resume function is
    captured on its first call."""
    previous = shim_mod.configure(settings_provider=lambda: runtime_settings(compile_threshold=2),
                                  capture=None)
    try:
        f = make_fn("def f(x):\n    y = x + 1\n    print('side effect')\n    return y * 2\n")
        s = Shim(f)
        x = torch.ones(3)
        assert torch.equal(s(x), (x + 1) * 2) and s.stats.captures == 0
        assert torch.equal(s(x), (x + 1) * 2) and s.stats.captures == 1
        resumes = [sh for sh in shim_mod.all_shims() if sh.fn.__qualname__.startswith("f.__resume_at_")
                   and sh.state.code.co_filename == f.__code__.co_filename]
        assert resumes and all(r.explicit and r.stats.cold_calls == 0 and r.stats.captures == 1 for r in resumes)
    finally:
        shim_mod.restore(previous)


# ---------------------------------------------------------------- decorated functions


DECORATED = '''
def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper

@torch.no_grad()
def first(x):
    return x + 1

@torch.no_grad()
def second(x):
    return x * 2

@logged
def third(x):
    return x - 1
'''


def test_decorated_functions_are_named_by_their_own_code():
    ns = {"torch": torch, "functools": functools}
    exec(compile(DECORATED, "<decorated>", "exec"), ns)
    first, second, third = ns["first"], ns["second"], ns["third"]
    assert first.__code__ is second.__code__  # torch's decorate_context, shared
    assert own_code(first) is first.__wrapped__.__code__ and own_code(first).co_firstlineno == 8
    assert own_code(second).co_firstlineno == 12 and own_code(third).co_firstlineno == 16
    assert own_code(make_fn()) is not None


def test_decorated_functions_keep_separate_state_and_report_rows(runtime):
    runtime(compile_threshold=1)
    ns = {"torch": torch, "functools": functools}
    exec(compile(DECORATED, "<decorated2>", "exec"), ns)
    a, b = Shim(ns["first"]), Shim(ns["second"])
    assert a.state is not b.state and a.stats is not b.stats
    shim_mod._mark_eager(a.state, "capture failed: test")
    x = torch.ones(2)
    assert torch.equal(b(x), x * 2) and b.stats.captures == 1  # b is not marked eager with a
    assert (a.stats.filename, a.stats.lineno) == ("<decorated2>", 8)


# ---------------------------------------------------------------- calls inside a cold call


def _outer_calling(inner, times: int):
    ns = {"inner": inner, "times": times}
    exec(compile("def outer(x):\n    for _ in range(times):\n        x = inner(x, x)\n    return x\n",
                 f"<outer {next(_ids)}>", "exec"), ns)
    return ns["outer"]


def test_a_function_called_in_a_loop_of_a_cold_call_compiles_on_its_own_threshold(runtime):
    """Hotness is a function's own (issue 26): a loop in a cold ``main()`` compiles its
    ``train_step`` on the step's ``compile_threshold``-th call, not after 16 times as many."""
    cap = runtime(compile_threshold=2)
    inner = Shim(make_fn())
    outer = Shim(_outer_calling(inner, 12))
    outer(torch.ones(2))
    assert cap.calls == 1 and inner.stats.captures == 1 and inner.stats.cold_calls == 1
    assert inner.entries[0].hits == 10


def _library_calling(inner, times: int):
    """A caller whose code lives in a library module (``torch.nn.Module.apply`` calling a callback)."""
    ns = {"inner": inner, "times": times, "__name__": "torch.nn.modules.fake_library"}
    exec(compile("def apply(x, _unused):\n    for _ in range(times):\n        x = inner(x, x)\n    return x\n",
                 f"<library {next(_ids)}>", "exec"), ns)
    return ns["apply"]


def test_callbacks_run_by_library_code_inside_a_cold_call_are_deferred(runtime):
    """One-off set-up (``self.apply(self._init_weights)`` in a cold ``__init__``) is not compiled:
    a callback library code runs inside a selected function's cold call waits 16 times longer,
    and the report says why."""
    cap = runtime(compile_threshold=2)
    inner = Shim(make_fn())
    outer = Shim(_outer_calling(_library_calling(inner, 12), 1))
    outer(torch.ones(2))
    assert cap.calls == 0 and inner.stats.cold_calls == 12
    reasons = [reason for reason, _ in inner.stats.eager_reasons()]
    assert reasons and all(r.startswith("cold, not compiled: a callback run by torch.nn.modules.fake_library:apply")
                           for r in reasons)


def test_a_long_run_of_callbacks_still_compiles(runtime):
    cap = runtime(compile_threshold=2)
    inner = Shim(make_fn())
    outer = Shim(_outer_calling(_library_calling(inner, 40), 1))
    outer(torch.ones(2))
    needed = 2 * shim_mod.COLD_NESTED_FACTOR
    assert cap.calls == 1 and inner.stats.captures == 1 and inner.stats.cold_calls == needed - 1
    assert inner.entries[0].hits == 40 - needed


def test_misses_of_callbacks_inside_a_cold_call_are_deferred_too(runtime):
    cap = runtime(compile_threshold=2)
    inner = Shim(make_fn())
    inner(torch.ones(2), torch.ones(2)), inner(torch.ones(2), torch.ones(2))
    assert cap.calls == 1
    outer = Shim(_outer_calling(_library_calling(inner, 1), 1))
    outer(torch.ones(3))  # the callback misses (new size) inside the outer's cold call: no recompile
    assert cap.calls == 1 and inner.stats.captures == 1
    inner(torch.ones(3), torch.ones(3))  # the same miss outside a cold call recompiles at once
    assert cap.calls == 2
