"""``copy.deepcopy`` of plain data during capture (families/private.py): the copy is made for real
from the guarded original, edited for real, and never leaks into the graph's outside world."""
from __future__ import annotations

import copy

import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


class Config:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def width(self):
        return self.hidden * 2


CFG = Config(hidden=3, decoder_layers=2, names=["a", "b"], sub=Config(scale=2.0))


def p_edit_copy(x):
    c = copy.deepcopy(CFG)
    for key in list(c.__dict__):
        if key.startswith("decoder_"):
            value = getattr(c, key)
            delattr(c, key)
            setattr(c, key[len("decoder_"):], value)
    c.names.append("c")
    return x * c.layers * c.sub.scale + c.width, len(c.names), hasattr(c, "decoder_layers")


def test_deep_copy_is_edited_on_the_copy_only_and_stays_in_the_graph():
    x = torch.randn(3)
    h = Harness()
    f = h.compile(p_edit_copy)
    assert_same(p_edit_copy(x), f(x))
    assert not h.breaks and len(h.backend.graphs) == 1
    assert CFG.names == ["a", "b"] and CFG.decoder_layers == 2 and not hasattr(CFG, "layers")
    n = h.captures
    assert_same(p_edit_copy(x), f(x))
    assert h.captures == n


def test_a_change_of_the_original_recaptures():
    x = torch.randn(3)
    h = Harness()
    f = h.compile(p_edit_copy)
    f(x)
    try:
        CFG.sub.scale = 5.0  # deep inside: the copy would differ
        assert_same(p_edit_copy(x), f(x))
    finally:
        CFG.sub.scale = 2.0
    assert h.captures == 2


def p_returns_copy(x):
    c = copy.deepcopy(CFG)
    c.hidden = 7
    return x * c.hidden, c


def test_a_copy_that_leaves_the_capture_is_made_in_python():
    x = torch.randn(3)
    h = Harness()
    f = h.compile(p_returns_copy)
    out, c = f(x)
    ref, rc = p_returns_copy(x)
    assert_same(ref, out)
    assert c is not CFG and c.hidden == rc.hidden == 7 and CFG.hidden == 3
    assert c.__dict__.keys() == rc.__dict__.keys()
    assert any("graph breaks earlier" in b.reason for b in h.breaks)
    assert f(x)[1] is not c  # a fresh copy per call
