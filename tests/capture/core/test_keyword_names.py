"""Keyword arguments named by a Python keyword (``t.random_(from=2, to=5)``, written
``**{"from": 2}``) are captured (capture/core/keyword_args.py): the FX node calls a ``KeywordCall``
target that takes them as a dict, and Python text made at a break passes them with ``**{...}``."""
from __future__ import annotations

import contextlib
import io

import torch

from tests.capture.harness import Harness


def random_from(x):
    a = x.clone().random_(**{"from": 2, "to": 50})
    b = torch.empty(3).uniform_(**{"from": -1.0, "to": 3.0})
    return a * 2, b + 1


def test_keyword_named_from_in_the_graph():
    h = Harness()
    compiled = h.compile(random_from)
    for seed in range(2):
        torch.manual_seed(seed)
        expected = random_from(torch.ones(3))
        torch.manual_seed(seed)
        got = compiled(torch.ones(3))
        for g, e in zip(got, expected):
            torch.testing.assert_close(g, e)
    assert h.breaks == []
    assert len(h.backend.graphs) == 1


def counting(**kwargs):
    yield kwargs["from"]
    yield kwargs["from"] + 1


def generator_at_a_break(x):
    gen = counting(**{"from": 3})
    print("break")
    return x + next(gen)


def test_keyword_named_from_rebuilt_at_a_break():
    h = Harness()
    compiled = h.compile(generator_at_a_break)
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(2):
            torch.testing.assert_close(compiled(torch.ones(2)), generator_at_a_break(torch.ones(2)))
    assert h.breaks[0].kind == "side-effect"  # the print; the generator is rebuilt there
