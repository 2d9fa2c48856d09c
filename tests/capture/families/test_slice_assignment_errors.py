"""``lst[a:b] = <not iterable>`` in compiled code raises Python's own TypeError, whose words
depend on the slice and the Python version (families/containers.py); the compiled call said
"'int' object is not iterable" where Python 3.11 says "can only assign an iterable"."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def slice_assignments(x):
    out = []
    for key, value in ((slice(1, 3), 1), (slice(None, None, 2), None), (slice(0, 0), 2.5)):
        p = list("abcdef")
        try:
            p[key] = value
        except TypeError as e:
            out.append(str(e))
        try:
            p.__setitem__(key, value)
        except TypeError as e:
            out.append(str(e))
    return x + 1, out


def test_error_words_are_pythons():
    h = check(slice_assignments, lambda: (torch.randn(2),))
    assert h.breaks == []
