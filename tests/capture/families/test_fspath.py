"""``os.fspath`` in captured code (families/stdlib.py ``_fspath``): constants and ``pathlib`` paths
from outside are answered now (a path that changes recaptures), a user ``__fspath__`` is
inlined, and a wrong result or argument raises Python's own TypeError."""
from __future__ import annotations

import os
import pathlib

import torch

from tests.capture.checks import check


class UserPath:
    def __init__(self, text):
        self.text = text

    def __fspath__(self):
        return self.text


def paths(x, p, q):
    return x + 1, os.fspath(p), os.fspath("plain"), os.fspath(q), os.fspath(UserPath("made"))


def test_fspath_without_a_break():
    h = check(paths, lambda: (torch.randn(2), pathlib.Path("/tmp/a"), UserPath("u")), calls=1)
    check(paths, lambda: (torch.randn(2), pathlib.Path("/tmp/b"), UserPath("v")), calls=1, harness=h)
    assert h.breaks == [] and h.captures == 2


def wrong_results(x, p):
    return x + 1, os.fspath(p)


def test_fspath_errors_are_pythons():
    h = check(wrong_results, lambda: (torch.randn(2), UserPath(3)), calls=1)
    check(wrong_results, lambda: (torch.randn(2), 3), calls=1, harness=h)
    assert [b.kind for b in h.breaks] == ["python-exception", "python-exception"]
