"""The attribute sweep in CI: a fixed seed's first cases, eager against compiled, no difference.

Until the shared sweep runner exists, a minimal check loop lives here: each case's source is
loaded twice (one module per side), ``fn`` runs ``CALLS`` times eagerly and under
``autograph.compile(backend="eager")``, and results, exceptions and ``world()`` are compared.
"""
from __future__ import annotations

import itertools
import time
import warnings

import pytest
import torch

import autograph
from autograph.testing.fuzz.diff import Pairing, diff_values
from autograph.testing.fuzz.loading import load_program, unload_program
from autograph.testing.sweeps import attributes
from autograph.testing.sweeps.case import SweepCase

SEED = 20261127
BUDGET_S = 40.0   # the CI bound (cases are drawn in the seed's order until it is spent)
MIN_CASES = 40
def _known(case: SweepCase) -> bool:
    return attributes.known_difference(case) is not None


def _outcome(module, i: int):
    args, kwargs = module.make_call(i)
    torch.manual_seed(i)  # both sides draw the same random numbers (``t.log_normal_()``)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("value", module.fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - compared with the other side's
        return ("raised", exc)


def check_case(case: SweepCase) -> str | None:
    """None when the compiled module behaves as the eager one, else the first difference."""
    eager, compiled = load_program(case.source), load_program(case.source)
    try:
        compiled.fn = autograph.compile(compiled.fn, backend="eager")
        pairing = Pairing()
        for i in range(getattr(eager, "CALLS", 4)):
            want, got = _outcome(eager, i), _outcome(compiled, i)
            if want[0] != got[0]:
                return f"call {i}: eager {want[0]} {want[1]!r:.200}, compiled {got[0]} {got[1]!r:.200}"
            if want[0] == "raised" and type(want[1]) is not type(got[1]):
                return f"call {i}: eager raised {want[1]!r:.200}, compiled {got[1]!r:.200}"
            why = diff_values(want[1], got[1], f"call {i}", pairing=pairing)
            if why is None and hasattr(eager, "world"):
                why = diff_values(eager.world(), compiled.world(), f"world after call {i}")
            if why is not None:
                return why
        return None
    finally:
        unload_program(eager)
        unload_program(compiled)


def test_attribute_sweep_fixed_seed_has_no_difference():
    start, checked, failures = time.monotonic(), 0, []
    for case in itertools.islice(attributes.cases(SEED), 2000):
        if _known(case):
            continue
        why = check_case(case)
        checked += 1
        if why is not None:
            failures.append(f"{case.name}: {why}")
        if time.monotonic() - start > BUDGET_S and checked >= MIN_CASES:
            break
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("kind", [k.name for k in attributes.KINDS])
def test_every_kind_has_cases_for_dunders_and_every_mode(kind):
    names = {c.name for c in itertools.islice(_cases_of(kind), 100000)}
    assert any(":__class__:read:" in n for n in names)
    modes = {n.rsplit(":", 1)[1] for n in names}
    assert {"constant", "argument", "after-break"} <= modes


def _cases_of(kind_name: str):
    kind = next(k for k in attributes.KINDS if k.name == kind_name)
    namespace = attributes._namespace()
    for mode in attributes._modes(kind):
        yield from attributes._cases_for(namespace, kind, "__class__", mode)


def test_a_case_is_a_loadable_program():
    case = next(attributes.cases(SEED))
    module = load_program(case.source)
    try:
        args, kwargs = module.make_call(0)
        assert isinstance(args[0], torch.Tensor)
    finally:
        unload_program(module)


def test_hash_is_not_written_for_values_hashed_by_identity():
    """Equal fresh values whose hash depends on which object they are (an address, for a tensor or
    a plain class without ``__hash__``): the eager runs themselves disagree, so the generator must
    not write ``hash(r)``. Hashing a temporary inside the evaluated text let the allocator give the
    second temporary the first one's address, and the two hashes agreed (the 30-minute run's
    'case errors'). ``Plain`` below hashes to its rank among live instances: reuse made certain."""
    namespace = dict(attributes._namespace())
    exec(PLAIN_HASHED_BY_LIVE_RANK, namespace)  # noqa: S102
    maker = attributes.Kind("maker", "lambda: Plain(1)")
    uses = attributes._uses(namespace, maker, "argument", "v()")
    assert "r" in uses  # equal values: compared as values
    assert "hash(r)" not in uses
    tensor = next(k for k in attributes.KINDS if k.name == "tensor")
    for expr in ("v + 1", "v.clamp_max(1)", "v.abs()"):
        assert "hash(r)" not in attributes._uses(namespace, tensor, "argument", expr), expr


PLAIN_HASHED_BY_LIVE_RANK = """
class Plain:
    ranks = {}

    def __init__(self, a):
        self.a = a
        Plain.ranks[id(self)] = len(Plain.ranks)

    def __del__(self):
        del Plain.ranks[id(self)]

    def __hash__(self):
        return Plain.ranks[id(self)]
"""


def test_hash_is_written_for_values_hashed_by_content():
    int_kind = next(k for k in attributes.KINDS if k.name == "int")
    namespace = attributes._namespace()
    assert "hash(r)" in attributes._uses(namespace, int_kind, "argument", "v.__add__(1)")
    assert "hash(r)" in attributes._uses(namespace, int_kind, "argument", "v.__class__")
