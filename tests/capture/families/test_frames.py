"""frames.static_frame_read: the names a code object can load decide whether its instructions
are decoded at all (every capture asks, and decoding cost 3% of a small function's cold capture)."""
from __future__ import annotations

import dis
import inspect
import sys
import types

import pytest

from autograph.capture.families import frames


def _codes(root: types.CodeType):
    yield root
    for const in root.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _frame_readers():
    def getframe(x):
        return sys._getframe(1).f_lineno + x

    def stack_of_inspect(x):
        return len(inspect.stack()) + x

    def bare_locals(x):
        return sorted(locals())

    def bare_vars():
        return vars()

    def bare_globals(x):
        return globals()["__name__"], x

    def evaluates(x):
        return eval("x + 1")

    def captured_reader(x):
        reader = sys._getframe

        def inner():
            return reader(0)

        return inner()

    return getframe, stack_of_inspect, bare_locals, bare_vars, bare_globals, evaluates, captured_reader


def _full_scan(code, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(frames, "_names_cannot_read_frames", lambda code: False)
        return frames.static_frame_read(code)


def test_names_skip_only_code_that_reads_no_frames(monkeypatch):
    """Wherever the names rule the decoding out, decoding finds no frame read: over every
    function of a few large modules (and nested code), and the frame readers are all found."""
    import argparse
    import collections
    import logging

    import torch.nn.modules.module as module

    skipped = 0
    for mod in (argparse, collections, logging, inspect, module, dis):
        for obj in vars(mod).values():
            fns = [obj] if isinstance(obj, types.FunctionType) else [
                v for v in vars(obj).values() if isinstance(v, types.FunctionType)] if isinstance(obj, type) else []
            for fn in fns:
                for code in _codes(fn.__code__):
                    if frames._names_cannot_read_frames(code):
                        skipped += 1
                        assert _full_scan(code, monkeypatch) is None, code
    assert skipped > 100
    for fn in _frame_readers():
        found = [frames.static_frame_read(code) for code in _codes(fn.__code__)]
        assert any(found), fn.__name__
        assert found == [_full_scan(code, monkeypatch) for code in _codes(fn.__code__)]


def test_code_without_such_names_is_not_decoded(monkeypatch):
    def plain(a, b):
        x = a / (abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    def decoded(*args, **kwargs):
        raise AssertionError("instructions decoded")

    monkeypatch.setattr(frames.dis, "get_instructions", decoded)
    assert frames.static_frame_read(plain.__code__) is None
    with pytest.raises(AssertionError, match="decoded"):
        frames.static_frame_read(_frame_readers()[0].__code__)
