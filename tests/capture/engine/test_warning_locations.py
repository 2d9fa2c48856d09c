"""A warning issued by an operation of a compiled function is the user's instruction's: shown
from the user's file and line at every call the user's filters allow, counted by the user's
module's ``__warningregistry__`` (``"default"``: once per location), raised by an ``"error"``
filter at that point -- as plain Python does. Found by the attribute sweep: a constant fold
showed NumPy's divide-by-zero ``RuntimeWarning`` once, at capture, from autograph's own line;
a method call left pending at a break showed it from autograph's python_methods.py."""
from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
import torch

import autograph

SINK = io.StringIO()


def folded_constant(x, a, log):
    v = np.float64(1.0)
    r = v.__truediv__(0)
    return x + 1, r


def pending_method(x, a, log):
    r = a.__truediv__(0)
    return x + 1, r


def method_after_break(x, a, log):
    print("break", file=SINK)
    r = a.__mod__(0)
    return x + 1, r


def call_at_break(x, a, log):
    log.append(1)
    r = divmod(a, 0)
    return x + 1, r


def effects_around(x, a, log):
    log.append("before")
    y = x * 2
    r = a.__floordiv__(0)
    log.append("after")
    return y, r


def graph_op_that_warns(x, a, log):
    r = x.reshape(1, 2).resize_as(x)  # torch's "non-inplace resize_as is deprecated" UserWarning
    return r + 1


FUNCTIONS = [folded_constant, pending_method, method_after_break, call_at_break, effects_around]


def _arguments():
    return torch.ones(2), np.arange(4), []


def _run(fn, action: str, calls: int = 3):
    """What ``calls`` calls show under ``action``: (file, line, category, text) of each warning,
    and each call's exception type (None when it returned)."""
    globals().pop("__warningregistry__", None)
    outcomes = []
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter(action)
        for _ in range(calls):
            x, a, log = _arguments()
            try:
                fn(x, a, log)
                outcomes.append((None, log))
            except Exception as exc:  # noqa: BLE001 - compared with plain Python's
                outcomes.append((type(exc), log))
    where = [(w.filename, w.lineno, w.category, str(w.message)) for w in shown]
    return where, outcomes


@pytest.fixture(autouse=True)
def _fresh():
    autograph.reset()
    yield
    autograph.reset()


@pytest.mark.parametrize("action", ["always", "default"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_warning_location_and_count_match_plain_python(fn, action):
    expected = _run(fn, action)
    got = _run(autograph.compile(fn, backend="eager"), action)
    assert expected[0] and all(w[0] == __file__ for w in expected[0])
    assert got == expected


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_error_filter_raises_at_the_operation(fn):
    expected = _run(fn, "error")
    got = _run(autograph.compile(fn, backend="eager"), "error")
    assert all(kind is RuntimeWarning for kind, _ in expected[1])
    assert got == expected


def test_nothing_is_shown_at_capture():
    compiled = autograph.compile(folded_constant, backend="eager")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        compiled(*_arguments())
    assert [(w.filename, w.lineno) for w in shown] == [(__file__, folded_constant.__code__.co_firstlineno + 2)]


@pytest.mark.parametrize("action", ["always", "default"])
def test_a_graph_operation_warns_only_when_the_graph_runs(action):
    """The run on fake tensors at capture shows nothing; the graph's run shows it at each call."""
    expected = _run(graph_op_that_warns, action)
    got = _run(autograph.compile(graph_op_that_warns, backend="eager"), action)
    assert expected[0] and got == expected


def test_a_user_filter_for_the_users_module_applies():
    """``module=`` filters match the user's module name, as in plain Python."""
    compiled = autograph.compile(method_after_break, backend="eager")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=__name__)
        compiled(*_arguments())
        compiled(*_arguments())
    assert shown == []


@pytest.mark.parametrize("fn", [graph_op_that_warns, method_after_break, folded_constant],
                         ids=["graph", "break", "fold"])
def test_the_users_module_registry_counts_compiled_and_plain_calls_alike(fn):
    """Under ``"default"`` a location warns once per module registry: a plain call after a
    compiled one (same line, same module) shows nothing more, as after a plain one."""
    compiled = autograph.compile(fn, backend="eager")
    globals().pop("__warningregistry__", None)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("default")
        compiled(*_arguments())
        fn(*_arguments())
    assert all(w.filename == __file__ for w in shown)
    assert len(shown) == len({(w.lineno, str(w.message)) for w in shown}) > 0


def test_a_module_filter_applies_to_a_graph_operation():
    compiled = autograph.compile(graph_op_that_warns, backend="eager")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UserWarning, module=__name__)
        compiled(*_arguments())
    assert shown == []


def doubled(x, n):
    return x + 1, n * np.int64(2)


def test_a_capture_between_two_warnings_does_not_show_the_second_again():
    """Under ``"default"`` the second overflow at the same line is not shown, although a capture
    (of the new value) ran NumPy between them: capture silences NumPy without bumping the
    filters' version, which would clear the user's module registry. Found by the
    dynamic_numbers sweep (``np.int64(2 ** 63 - 1) * 2`` then ``np.int64(-2 ** 63) * 2``)."""
    def shown_by(fn):
        globals().pop("__warningregistry__", None)
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("default")
            results = [fn(torch.ones(2), np.int64(k))[1] for k in (0, 1, 2 ** 63 - 1, -(2 ** 63), 4)]
        return [(w.lineno, str(w.message)) for w in shown], results

    expected = shown_by(doubled)
    assert len(expected[0]) == 1
    assert shown_by(autograph.compile(doubled, backend="eager")) == expected
