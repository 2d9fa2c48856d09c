"""The look-alike sweep's generator: every group, source and reader, loadable programs."""
from __future__ import annotations

import torch

from autograph.testing.fuzz.loading import load_program, unload_program
from autograph.testing.sweeps import lookalikes, runner


def test_every_group_source_and_reader_is_written_once():
    names = [c.name for c in lookalikes.cases(0)]
    assert len(names) == len(set(names))
    for group in lookalikes.GROUPS:
        for source in lookalikes.SOURCES:
            for reader in group.readers:
                assert f"lookalikes:{group.name}:{source}:{reader}" in names
                assert f"lookalikes:{group.name}:{source}:{reader}:break" in names


def test_every_case_loads_and_reads_each_value_of_its_group():
    for case in lookalikes.cases(0):
        if ":repr" not in case.name or case.name.endswith(":break"):
            continue
        module = load_program(case.source)
        try:
            group = next(g for g in lookalikes.GROUPS if f":{g.name}:" in case.name)
            seen = []
            for i in range(module.CALLS):
                args, kwargs = module.make_call(i)
                assert isinstance(args[0], torch.Tensor)
                seen.append(module.fn(*args, **kwargs)[1])
            assert len(set(seen)) == len(set(eval(v, vars(module)).__repr__() for v in group.values))
        finally:
            unload_program(module)


def test_a_signed_zero_read_after_a_break_is_checked():
    """The class it was written for: ``-0.0`` met the entry compiled for ``0.0``."""
    case = next(c for c in lookalikes.cases(0) if c.name == "lookalikes:zero:arg:copysign:break")
    outcome = runner.check_case(case)
    assert outcome.ok, outcome.difference or outcome.error
