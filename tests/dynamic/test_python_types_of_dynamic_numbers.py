"""A Python int that became dynamic (a SymInt inside capture) is an ``int`` for every
Python-level observation (issue 24 item 4, issue 25 class B): type, isinstance, class
attributes, text, hashing, dict keys and the values returned."""
from __future__ import annotations

import types

import pytest
import torch

import autograph
from autograph.explain.find import find_shim

module_state = types.SimpleNamespace(n=3)

OBSERVATIONS = {
    "type-is-int": lambda n: type(n) is int,
    "type-name": lambda n: type(n).__name__,
    "dict-of-types": lambda n: {int: 2.0}.get(type(n), 1.0),
    "isinstance-symint": lambda n: isinstance(n, torch.SymInt),
    "isinstance-int": lambda n: isinstance(n, int),
    "type-of-floordiv": lambda n: type(n // 2).__name__,
    "type-of-truediv": lambda n: type(n / 2).__name__,
    "class-attribute": lambda n: n.__class__.__name__,
    "type-called": lambda n: type(n)(4),
    "str": lambda n: str(n),
    "repr": lambda n: repr(n),
    "hash": lambda n: hash(n),
    "method": lambda n: n.bit_length(),
    "dict-key": lambda n: {n: 1},
}


@pytest.mark.parametrize("observe", list(OBSERVATIONS.values()), ids=list(OBSERVATIONS))
def test_a_dynamic_int_argument_is_an_int(observe):
    def fn(x, n):
        return x * n, observe(n)

    compiled = autograph.compile(fn, backend="eager")
    for n in (3, 5, 7, 9):  # the second value makes n dynamic
        got, expected = compiled(torch.ones(2), n), fn(torch.ones(2), n)
        assert type(got[1]) is type(expected[1]) and repr(got[1]) == repr(expected[1]), n
        assert torch.equal(got[0], expected[0])
    assert not compiled.stats.errors


def test_a_returned_value_made_from_a_dynamic_int_is_a_real_int():
    def fn(x, n):
        return x * n, type(n)(4), n, n * 2

    compiled = autograph.compile(fn, backend="eager")
    for n in (3, 5, 7):
        out = compiled(torch.ones(2), n)
        assert [type(v) for v in out[1:]] == [int, int, int]
        assert out[1:] == (4, n, 2 * n)


def test_a_dynamic_module_int_attribute_is_an_int():
    def fn(x):
        n = module_state.n
        return x * n, type(n) is int, isinstance(n, torch.SymInt), type(n).__name__

    compiled = autograph.compile(fn, backend="eager")
    for n in (3, 5, 7):
        module_state.n = n
        assert compiled(torch.ones(2))[1:] == (True, False, "int")


def test_text_of_a_list_holding_a_dynamic_int_is_made_at_its_program_point():
    """``str([n])`` is not deferred past the graph: the list changes after the text is made."""
    log: list = []

    def fn(x, n):
        items = [n]
        log.append(str(items))
        items.append(len(items))
        return x * n, items

    compiled = autograph.compile(fn, backend="eager")
    for n in (3, 5, 7):  # the second value makes n dynamic
        log.clear()
        got = compiled(torch.ones(2), n)
        assert log == [f"[{n}]"] and got[1] == [n, 1]


def test_a_size_plus_a_tuple_stays_symbolic():
    """``x.shape + (n,)`` is torch's own symbolic arithmetic: no specialisation, no break."""
    def fn(x):
        shape = x.shape + (1,)
        return x.reshape(shape) * 2

    compiled = autograph.compile(fn, backend="eager")
    for n in (3, 5, 7, 9):
        torch.testing.assert_close(compiled(torch.ones(n)), fn(torch.ones(n)))
    stats = find_shim(compiled).stats
    assert stats.captures <= 2 and not stats.break_reasons and not stats.errors
