"""What a capture accumulates lives in its declared ``CaptureState`` (capture/core/state.py): no
attribute appears on the translator or on torch's ShapeEnv during a capture, and every family
slot is declared once, through the registry, with its owner."""
from __future__ import annotations

import collections
import importlib

import pytest
import torch

import autograph
from autograph.capture.engine import interpreter
from autograph.capture.core.state import CaptureState
from autograph.capture.core import registry
from autograph.capture.families import side_effects
from autograph.settings import Settings, set_current_settings


@pytest.fixture(autouse=True)
def _fresh():
    set_current_settings(Settings(backend="eager"))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)


@pytest.fixture
def watched(monkeypatch):
    """Per capture: the attributes its run added to the translator, and autograph's on the ShapeEnv."""
    seen = []
    run = interpreter.Translator.run

    def watching_run(tx):
        before = set(vars(tx))
        env = tx.graph.fake_mode.shape_env
        env_before = set(vars(env)) if env is not None else set()
        try:
            return run(tx)
        finally:
            env_after = set(vars(env)) if env is not None else set()
            ours = {a for a in env_after - env_before if "autograph" in a}  # torch adds caches of its own
            seen.append((set(vars(tx)) - before, ours, tx.state))

    monkeypatch.setattr(interpreter.Translator, "run", watching_run)
    return seen


Point = collections.namedtuple("Point", "x y")
OUTSIDE: list = []


def touches_every_family(x, it, d, q):
    m = q[0]                              # a deque from outside: its mirror
    P = collections.namedtuple("P", "a b")  # a namedtuple class made during the call
    p = P(x * m, x * 2)
    first = next(it)                      # an iterator from outside, advanced
    OUTSIDE.append(first)                 # an outside list changed (a replayed side effect)
    d["k"] = 1                            # an outside dict changed
    n = x.size(0)
    return p.a + p.b + first + n, Point(1, 2)


def test_no_attribute_appears_on_the_translator_or_the_shape_env(watched):
    f = autograph.compile(touches_every_family, dynamic=True)
    for n in (3, 5):
        OUTSIDE.clear()
        d: dict = {}
        x = torch.ones(n)
        got = f(x, iter([torch.ones(n), torch.zeros(n)]), d, collections.deque([2]))
        OUTSIDE.clear()
        expected = touches_every_family(x, iter([torch.ones(n), torch.zeros(n)]), {}, collections.deque([2]))
        assert torch.equal(got[0], expected[0]) and got[1] == expected[1] and d == {"k": 1}
    assert watched
    for new_on_tx, new_on_env, state in watched:
        assert new_on_tx == set()
        assert new_on_env == set()
        assert isinstance(state, CaptureState)
    used = {slot.name for _, _, state in watched for slot in state.slots}
    assert {"container_mirrors", "made_namedtuple_classes", "outside_iterators", "outside_containers",
            "side_effects"} <= used
    assert any(state.slots.get(side_effects.SIDE_EFFECTS) for _, _, state in watched)


def test_every_slot_is_declared_once_by_the_module_that_owns_it():
    assert set(registry.STATE_SLOTS) >= {"container_mirrors", "outside_containers", "private_objects",
                                         "real_stand_ins", "made_namedtuple_classes", "outside_iterators",
                                         "live_iterators", "side_effects"}
    for name, slot in registry.STATE_SLOTS.items():
        assert slot.name == name
        owner = importlib.import_module(slot.owner)
        assert any(v is slot for v in vars(owner).values()), (name, slot.owner)
    with pytest.raises(ValueError, match="already declared"):
        registry.state_slot("container_mirrors", dict, __name__)


def test_a_slot_is_made_on_first_use_and_peek_makes_nothing():
    class Tx:
        state = CaptureState()

    slot = registry.STATE_SLOTS["outside_iterators"]
    assert slot.peek(Tx) is None and Tx.state.slots == {}
    slot.of(Tx).append(1)
    assert slot.of(Tx) == [1] and slot.peek(Tx) == [1]
