"""``re`` on constant text (families/regex.py): module functions and compiled patterns' methods
run for real on the constants, a pattern passed in is guarded by identity, and a match object
made in the call is never handed to a later call."""
from __future__ import annotations

import re

import torch

from tests.capture.harness import Harness

PAT = re.compile(r"(\w)\1")


def breaks(h) -> list:
    return [(b.kind, b.reason) for r in h.results for b in r.breaks]


def test_module_functions_and_pattern_methods_fold():
    def f(x):
        p = re.compile("b+")
        m = p.search("abbc")
        return (x + 1, m.group(0), m.span(), re.escape("a.b"), re.match("x", "y") is None,
                bool(re.fullmatch(r"\d+", "123")), re.findall(r"\d", "a1b2"), p.pattern, PAT.sub("-", "aabcc"))
    h = Harness()
    cf = h.compile(f)
    for _ in range(2):
        out, ref = cf(torch.ones(2)), f(torch.ones(2))
        assert out[1:] == ref[1:] and torch.equal(out[0], ref[0])
    assert breaks(h) == [] and len(h.results) == 1


def test_pattern_passed_in_is_guarded():
    def f(x, p):
        return x + 1, bool(p.search("aa"))
    h = Harness()
    cf = h.compile(f)
    assert cf(torch.ones(1), re.compile("a"))[1] is True
    assert cf(torch.ones(1), re.compile("z"))[1] is False  # another pattern: recaptured
    assert breaks(h) == []


def test_match_made_in_the_call_is_not_shared():
    def f(x):
        return x + 1, re.search("b", "abc")
    h = Harness()
    cf = h.compile(f)
    a, b = cf(torch.ones(1))[1], cf(torch.ones(1))[1]
    assert a.span() == b.span() == (1, 2) and a is not b
    assert {kind for kind, _ in breaks(h)} == {"fresh-object"}  # the search itself was folded
