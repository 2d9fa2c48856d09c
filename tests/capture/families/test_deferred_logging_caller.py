"""A logging call replayed after the graph is made from the user's line (families/side_effects.py).

Logging takes a record's ``funcName``, ``lineno``, ``pathname`` and ``module`` from the first
frame outside logging. Replayed from the transformed code, that frame was autograph's generated
code: ``work:3`` instead of ``work:<the line of the call>``.
"""
from __future__ import annotations

import inspect
import io
import logging

import torch

import autograph

_STREAM = io.StringIO()
_LOG = logging.getLogger("tests.deferred_logging_caller")
_HANDLER = logging.StreamHandler(_STREAM)
_HANDLER.setFormatter(logging.Formatter("%(funcName)s %(lineno)d %(module)s %(filename)s %(message)s"))
_LOG.addHandler(_HANDLER)
_LOG.setLevel(logging.INFO)
_LOG.propagate = False


def logs_between_graph_ops(x, k):
    y = x * k
    _LOG.info("start %d", k)
    z = y.sum()
    _LOG.warning("sum %s", z)
    return z + 1


def _helper_that_logs(y):
    _LOG.info("helper %s", y)
    return y * 2


def logs_in_an_inlined_callee(x):
    return _helper_that_logs(x + 1) - 1


def _records(fn, *args):
    _STREAM.seek(0)
    _STREAM.truncate()
    out = fn(*args)
    return out, _STREAM.getvalue()


def test_a_deferred_logging_call_names_the_users_function_line_and_file():
    compiled = autograph.compile(logs_between_graph_ops, backend="eager")
    for k in (1, 2, 3):
        want, want_text = _records(logs_between_graph_ops, torch.ones(2), k)
        got, got_text = _records(compiled, torch.ones(2), k)
        assert torch.equal(want, got)
        assert got_text == want_text
    lines, first = inspect.getsourcelines(logs_between_graph_ops)
    assert f"logs_between_graph_ops {first + 2} " in want_text


def test_a_deferred_logging_call_in_an_inlined_callee_names_the_callee():
    compiled = autograph.compile(logs_in_an_inlined_callee, backend="eager")
    for _ in range(2):
        want, want_text = _records(logs_in_an_inlined_callee, torch.ones(2))
        got, got_text = _records(compiled, torch.ones(2))
        assert torch.equal(want, got)
        assert got_text == want_text
    assert want_text.startswith("_helper_that_logs ")
