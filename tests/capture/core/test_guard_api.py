"""Capture records guards only through the guard builder's public methods
(capture/core/guard_builder.py), and the recurring checks are guard kinds of their own
(guards/kinds.py): SAME_OBJECT, DISTINCT_OBJECTS, DICT_KEYS, ITER_REMAINING, PINNED_IDENTITY,
each with readable text, words, a Python check and a native plan that all decide alike."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch

import autograph
from autograph.capture.core.guard_builder import GuardRecorder
from autograph.guards import extension, native
from autograph.guards.check import GuardSet
from autograph.guards.kinds import GuardKind
from autograph.guards.sources import LocalSource
from autograph.settings import Settings, set_current_settings

PACKAGE = Path(autograph.__file__).parent


def private_add_uses(path: Path) -> list[str]:
    """Every ``x._add`` in ``path`` except ``self._add`` inside a class that defines ``_add``."""
    tree = ast.parse(path.read_text())
    own: set[int] = set()
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and any(
                isinstance(f, ast.FunctionDef) and f.name == "_add" for f in cls.body):
            own |= {id(n) for n in ast.walk(cls) if isinstance(n, ast.Attribute) and n.attr == "_add"
                    and isinstance(n.value, ast.Name) and n.value.id == "self"}
    return [f"{path.relative_to(PACKAGE.parent)}:{n.lineno}" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr == "_add" and id(n) not in own]


def test_guards_are_recorded_only_through_the_public_api():
    builder = PACKAGE / "capture" / "core" / "guard_builder.py"
    uses = [u for path in sorted(PACKAGE.rglob("*.py")) if path != builder for u in private_add_uses(path)]
    assert uses == [], "call the guard builder's public methods, not GuardRecorder._add: " + ", ".join(uses)


def _is_recorder_list(node: ast.AST) -> bool:
    """``<x>.guards.guards``: the guard builder's list itself."""
    return (isinstance(node, ast.Attribute) and node.attr == "guards"
            and isinstance(node.value, ast.Attribute) and node.value.attr == "guards")


def test_the_recorded_list_is_written_only_by_the_builder():
    builder = PACKAGE / "capture" / "core" / "guard_builder.py"
    writes = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == builder:
            continue
        for n in ast.walk(ast.parse(path.read_text())):
            mutates = (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                       and n.func.attr in ("append", "extend", "insert", "remove", "pop", "clear", "sort")
                       and _is_recorder_list(n.func.value))
            stores = (isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del))
                      and (_is_recorder_list(n.value) or _is_recorder_list(n)))
            if mutates or stores:
                writes.append(f"{path.relative_to(PACKAGE.parent)}:{n.lineno}")
    assert writes == [], "record guards through the guard builder's methods: " + ", ".join(writes)


def test_the_scan_sees_a_private_call(tmp_path):
    bad = PACKAGE / "capture" / "_scan_probe.py"
    try:
        bad.write_text("def f(tx):\n    tx.guards._add(('k',), lambda: None)\n")
        assert private_add_uses(bad) == ["autograph/capture/_scan_probe.py:2"]
    finally:
        bad.unlink()


# ---------------------------------------------------------------- the kinds, on every path

def two(a, b):
    return a, b


def one(d):
    return d


def none():
    return None


class Key:
    pass


K1, K2 = Key(), Key()
X = torch.ones(2)
Y = torch.ones(2)
CELL = {"obj": X}


def _builder_guards(record) -> list:
    g = GuardRecorder()
    record(g)
    return g.guards


CASES = {
    "same": (two, lambda g: g.same_object(LocalSource("a"), LocalSource("b")),
             [((X, X), -1), ((X, Y), 0)], GuardKind.SAME_OBJECT, "a is b", "a and b are the same object"),
    "distinct": (two, lambda g: g.distinct(LocalSource("a"), LocalSource("b")),
                 [((X, Y), -1), ((X, X), 0)], GuardKind.DISTINCT_OBJECTS, "a is not b",
                 "a and b are different objects"),
    "not_object": (one, lambda g: g.not_object(LocalSource("d"), X),
                   [((Y,), -1), ((X,), 0)], GuardKind.DISTINCT_OBJECTS, "d is not <Tensor at", None),
    "keys": (one, lambda g: g.keys(LocalSource("d"), {1: 0, "a": 0, K1: 0}, by_value=[True, True, False]),
             [(({1: 5, "a": 6, K1: 7},), -1), (({True: 5, "a": 6, K1: 7},), 0), (({1: 5, "a": 6, K2: 7},), 0),
              (({1: 5, K1: 7, "a": 6},), 0), (({1: 5, "a": 6},), 0)],
             GuardKind.DICT_KEYS, "keys(d) == (1, 'a', <Key at", "d: keys (1, 'a', "),
    "iter_more": (one, lambda g: g.iterator_remaining(LocalSource("d"), tuple, 1, more=True),
                  [(([1, 2],), -1), (([1],), 0)], GuardKind.ITER_REMAINING, "len(tuple(d)) > 1",
                  "d has more than 1 item left"),
    "iter_end": (one, lambda g: g.iterator_remaining(LocalSource("d"), tuple, 2, more=False),
                 [(([1, 2],), -1), (([1, 2, 3],), 0)], GuardKind.ITER_REMAINING, "len(tuple(d)) == 2",
                 "d has 2 items left"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_kind_text_words_and_every_path_agree(name):
    fn, record, calls, kind, src, words = CASES[name]
    guards = _builder_guards(record)
    assert [g.kind for g in guards] == [kind]
    assert guards[0].src.startswith(src)
    if words is not None:
        assert guards[0].describe().startswith(words)
    gs = GuardSet(fn, guards)
    plan = native.plan_for(gs)
    assert isinstance(plan, tuple)  # expressible as a native plan
    c = extension.load()
    for args, want in calls:
        got = {gs.index_fn(*args), native.check_python(plan, args, None)}
        if c is not None:
            got.add(c.check(plan, args, None))
        assert got == {want}, (name, args)


def test_same_and_distinct_check_in_c_without_a_python_frame():
    import operator
    guards = _builder_guards(lambda g: (g.same_object(LocalSource("a"), LocalSource("b")),
                                        g.distinct(LocalSource("b"), LocalSource("a"))))
    assert [g.check_fn for g in guards] == [operator.is_, operator.is_not]


def test_pinned_identity_is_a_kind():
    g = GuardRecorder()
    g.pin = (lambda: CELL["obj"], "CELL['obj']")
    g.id_(None, X)
    (guard,) = g.guards
    assert guard.kind is GuardKind.PINNED_IDENTITY and guard.src.startswith("CELL['obj'] is <Tensor at")
    assert "same object as when compiled" in guard.describe()
    gs = GuardSet(none, [guard])
    plan = native.plan_for(gs)
    c = extension.load()
    for value, want in ((X, -1), (Y, 0)):
        CELL["obj"] = value
        try:
            got = {gs.index_fn(), native.check_python(plan, (), None)}
            if c is not None:
                got.add(c.check(plan, (), None))
        finally:
            CELL["obj"] = X
        assert got == {want}


# ---------------------------------------------------------------- captures record the kinds

@pytest.fixture
def _eager():
    set_current_settings(Settings(backend="eager"))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)


def identity_branch(x, a, b):
    return x + 1 if a is b else x - 1


def walk(x, it):
    for v in it:
        x = x + v
    return x


def lookup(x, d):
    return x * d["w"] + len(d)


def _kinds(compiled) -> set:
    return {g.kind for entry in compiled.entries for g in entry.guards.guards}


@pytest.mark.usefixtures("_eager")
def test_captures_use_the_kinds_and_recompile_when_they_fail():
    x = torch.ones(3)
    a, b = [1], [2]
    f = autograph.compile(identity_branch)
    assert torch.equal(f(x, a, b), x - 1) and torch.equal(f(x, a, a), x + 1)
    kinds = _kinds(f)
    assert {GuardKind.DISTINCT_OBJECTS, GuardKind.SAME_OBJECT} <= kinds, kinds

    g = autograph.compile(walk)
    ones = [torch.ones(3) for _ in range(3)]
    assert torch.equal(g(x, iter(ones[:2])), x + 2) and torch.equal(g(x, iter(ones)), x + 3)
    assert len(g.entries) == 2  # one item more: the ITER_REMAINING guard failed
    assert GuardKind.ITER_REMAINING in _kinds(g)


@pytest.mark.usefixtures("_eager")
def test_a_loop_over_an_outside_iterator_gets_a_native_plan():
    """``remaining(it)[k]`` (the items a live iterator still holds) is a plan node of its own, so
    the entry of a loop over an iterator from outside is checked natively, not by its generated
    Python check."""
    g = autograph.compile(walk)
    x, ones = torch.ones(3), [torch.ones(3) for _ in range(3)]
    for _ in range(2):
        assert torch.equal(g(x, iter(ones)), x + 3)
    (entry,) = g.entries
    assert isinstance(native.plan_for(entry.guards), tuple)


SETTING = {"mode": "fast", "scale": 2}


def test_pinned_values_and_types_are_native_kinds():
    """A pinned read of a constant is EQUALS_MATCH and of anything else's type TYPE_MATCH, each on
    a ``PinnedSource`` (one call of the getter in the native plan), deciding as Python does."""
    g = GuardRecorder()
    g.pin = (lambda: SETTING["mode"], "SETTING['mode']")
    g.equals(None, "fast")
    g.pin = (lambda: SETTING["scale"], "SETTING['scale']")
    g.type_(None, 2)
    assert [x.kind for x in g.guards] == [GuardKind.EQUALS_MATCH, GuardKind.TYPE_MATCH]
    gs = GuardSet(none, g.guards)
    plan = native.plan_for(gs)
    assert isinstance(plan, tuple) and [n[0] for n in plan[4]] == [extension.N_CALL] * 2
    c = extension.load()
    cases = [({"mode": "fast", "scale": 2}, -1), ({"mode": "fast", "scale": 7}, -1),
             ({"mode": "slow", "scale": 2}, 0), ({"mode": "fast", "scale": 2.0}, 1), ({"scale": 2}, 0)]
    saved = dict(SETTING)
    try:
        for state, want in cases:
            SETTING.clear()
            SETTING.update(state)
            got = {gs.index_fn(), native.check_python(plan, (), None)}
            if c is not None:
                got.add(c.check(plan, (), None))
            assert got == {want}, state
    finally:
        SETTING.clear()
        SETTING.update(saved)
