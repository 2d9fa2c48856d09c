"""A logging call that reaches handlers runs at its place in the program (families/side_effects.py).

Deferred past the graph, a handler's effects came after the rest of the function: the count of
records a ``logging.Handler`` subclass kept, read right after the call, was the count before it.
A call the logger drops (level below the logger's) is still deferred, under a guard that the
logger keeps dropping it.
"""
from __future__ import annotations

import logging

import torch

import autograph


class _ListHandler(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


_LOG = logging.getLogger("tests.logging_handlers_in_order")
_HANDLER = _ListHandler()
_LOG.addHandler(_HANDLER)
_LOG.propagate = False


def logs_then_reads_the_handler(x):
    y = x * 2
    _LOG.info("y=%s", y)
    seen = len(_HANDLER.messages)
    y.add_(100)
    _LOG.debug("debug %d", seen)
    return y + seen, len(_HANDLER.messages)


def test_a_handler_has_run_when_the_function_reads_what_it_did():
    compiled = autograph.compile(logs_then_reads_the_handler, backend="eager")
    for level in (logging.INFO, logging.INFO, logging.WARNING, logging.DEBUG, logging.INFO, logging.ERROR):
        _LOG.setLevel(level)
        _HANDLER.messages.clear()
        want = logs_then_reads_the_handler(torch.ones(2))
        want_messages = list(_HANDLER.messages)
        _HANDLER.messages.clear()
        got = compiled(torch.ones(2))
        assert torch.equal(want[0], got[0]) and want[1] == got[1], logging.getLevelName(level)
        assert _HANDLER.messages == want_messages, logging.getLevelName(level)
