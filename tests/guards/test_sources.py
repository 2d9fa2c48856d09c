"""Sources: readable expressions and fetching the value from a call of the function."""
import pytest
import torch

from autograph.guards.sources import (AttrSource, ClosureSource, GlobalSource, GlobalStateSource, GradModeSource,
                                      ItemSource, LocalSource, root_of)

LIMIT = 7


def make():
    w = {"k": [10, 20]}

    def fn(self, xs):
        return self, xs, w, LIMIT

    return fn


class Obj:
    training = True


def test_expr_and_fetch_of_every_source():
    fn = make()
    frame = {"self": Obj(), "xs": (1, 2)}
    cases = [
        (LocalSource("xs"), "xs", (1, 2)),
        (ItemSource(LocalSource("xs"), 0), "xs[0]", 1),
        (AttrSource(LocalSource("self"), "training"), "self.training", True),
        (GlobalSource("LIMIT"), "G['LIMIT']", 7),
        (GlobalSource("len"), "G['len']", len),  # falls back to builtins like LOAD_GLOBAL
        (ItemSource(ItemSource(ClosureSource("w"), "k"), 1), "w['k'][1]", 20),
        (GradModeSource(), "torch.is_grad_enabled()", torch.is_grad_enabled()),
        (AttrSource(LocalSource("self"), "class"), "getattr(self, 'class')", None),
    ]
    for source, expr, value in cases:
        assert source.expr == expr == str(source)
        if value is not None:
            assert source.fetch(frame, fn) == value
    assert root_of(cases[5][0]) == ClosureSource("w")


def test_sources_are_hashable_values():
    a = AttrSource(LocalSource("self"), "training")
    assert a == AttrSource(LocalSource("self"), "training") and hash(a) == hash(AttrSource(LocalSource("self"), "training"))
    assert len({a, AttrSource(LocalSource("self"), "training"), ItemSource(LocalSource("x"), 0)}) == 2


def test_errors_name_the_problem():
    with pytest.raises(KeyError, match="no free variable 'nope'"):
        ClosureSource("nope").fetch({}, make())
    with pytest.raises(ValueError, match="unknown global state"):
        GlobalStateSource("bogus")
