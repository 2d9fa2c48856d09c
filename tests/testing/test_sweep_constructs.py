"""The construct sweep's generator: every construct, every hazard, loadable programs."""
from __future__ import annotations

import torch

from autograph.testing.fuzz.loading import load_program, unload_program
from autograph.testing.sweeps import constructs, runner


def test_every_construct_has_a_hazard_place_and_every_hazard_is_written():
    names = [c.name for c in constructs.cases(0)]
    assert len(names) == len(set(names))
    for construct in constructs.CONSTRUCTS:
        assert constructs._markers(construct) >= 1, construct.name
        for hazard in constructs.HAZARDS:
            assert any(n.startswith(f"constructs:{construct.name}:{hazard}@") for n in names)


def test_every_case_is_a_loadable_program_with_its_calls():
    for case in constructs.cases(0):
        if not case.name.endswith("@0") or ":error@" not in case.name:
            continue
        module = load_program(case.source)
        try:
            args, kwargs = module.make_call(1)
            assert isinstance(args[0], torch.Tensor) and kwargs == {}
            assert set(module.world()) >= {"log", "d", "obj"}
        finally:
            unload_program(module)


def test_a_wrong_global_iterator_read_is_caught():
    """The class it found first (two reads of one global iterator) is checked by a case."""
    case = next(c for c in constructs.cases(0) if c.name == "constructs:module_iterator:none@0")
    outcome = runner.check_case(case)
    assert outcome.ok, outcome.difference or outcome.error
