"""Calls with side effects or non-determinism are never folded at capture time."""
import math
import random
import time

import torch

import autograph


def _random_offset(x):
    y = x * 2
    return y + random.random()


def _clock(x):
    start = time.perf_counter()
    return x + 1, start


def _pure_folds(x):
    return x * math.sqrt(4.0) + len("a,b,c".split(","))


def test_random_call_runs_on_every_call():
    compiled = autograph.compile(_random_offset, backend="eager")
    results = {float(compiled(torch.zeros(1))[0]) for _ in range(4)}
    assert len(results) == 4


def test_random_call_is_reported_as_a_break_in_plain_words():
    report = autograph.explain(_random_offset, torch.zeros(1))
    assert report.graph_break_count == 1
    assert report.break_reasons[0].kind == "python-random"
    assert "random.random() draws from a Python random generator" in report.break_reasons[0].reason


def test_clock_read_is_fresh_each_call():
    compiled = autograph.compile(_clock, backend="eager")
    _, first = compiled(torch.zeros(1))
    _, second = compiled(torch.zeros(1))
    assert second > first


def test_pure_builtins_still_fold_into_one_graph():
    compiled = autograph.compile(_pure_folds, backend="eager")
    x = torch.randn(3)
    assert torch.allclose(compiled(x), _pure_folds(x))
    assert autograph.explain(_pure_folds, x).graph_break_count == 0
