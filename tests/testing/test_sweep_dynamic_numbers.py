"""The dynamic-number sweep's generator: every group, source, use and mode, loadable programs
that compile with the case's own options."""
from __future__ import annotations

import torch

from autograph.testing.fuzz.loading import load_program, unload_program
from autograph.testing.sweeps import dynamic_numbers as dn
from autograph.testing.sweeps import runner


def test_every_group_source_use_and_mode_is_written_once():
    names = [c.name for c in dn.cases(0)]
    assert len(names) == len(set(names))
    for mode in dn.MODES:
        for group in dn.GROUPS:
            for source in dn.SOURCES:
                for use in dn.uses_of(group):
                    assert f"dynamic_numbers:{group.name}:{source}:{use}:{mode}" in names
                    assert f"dynamic_numbers:{group.name}:{source}:{use}:{mode}:break" in names
        for source in dn.STRIDE_SOURCES:
            for use in dn.STRIDE_USES:
                assert f"dynamic_numbers:strides:{source}:{use}:{mode}:break" in names


def test_every_use_meets_each_kind_of_number():
    """Python and NumPy ints of every class walk across 0, 1 and their bounds; sizes get small ones."""
    sized = [g for g in dn.GROUPS if g.sizes]
    assert {"py_small", "np_small"} <= {g.name for g in sized}
    assert all(set(dn.SIZE_USES) <= set(dn.uses_of(g)) for g in sized)
    assert not any(set(dn.SIZE_USES) & set(dn.uses_of(g)) for g in dn.GROUPS if not g.sizes)
    text = " ".join(v for g in dn.GROUPS for v in g.values)
    for cls in ("int8", "uint8", "int16", "int32", "int64", "uint64"):
        assert f"np.{cls}(0)" in text and f"np.{cls}(1)" in text
    assert "np.int8(127)" in text and "np.uint8(255)" in text and f"np.uint64({2 ** 64 - 1})" in text


def test_cases_load_and_run_plainly_with_their_compile_options():
    for case in dn.cases(0):
        if not case.name.endswith((":repr:dynamic", ":repr:default", ":stride:dynamic")):
            continue
        module = load_program(case.source)
        try:
            assert module.COMPILE_OPTIONS == ({"dynamic": True} if ":dynamic" in case.name else {})
            seen = [module.fn(*args, **kwargs) for args, kwargs in map(module.make_call, range(module.CALLS))]
            assert len(seen) == module.CALLS
            if ":repr:" in case.name:
                assert all(isinstance(s[0], torch.Tensor) and isinstance(s[1], str) for s in seen)
        finally:
            unload_program(module)


def test_the_runner_compiles_with_the_case_options():
    """A case's COMPILE_OPTIONS reach the compile call: with dynamic=True an int argument is
    symbolic from the first capture, so four values capture once."""
    case = next(c for c in dn.cases(0) if c.name == "dynamic_numbers:py_small:arg:add:dynamic")
    module = load_program(case.source)
    try:
        compiled = runner.autograph_compile(module.fn, **module.COMPILE_OPTIONS)
        for i in range(module.CALLS):
            args, kwargs = module.make_call(i)
            compiled(*args, **kwargs)
        assert compiled.stats.captures == 1
    finally:
        unload_program(module)


def test_a_symbolic_uint64_at_its_bound_is_checked():
    """The class it found: np.uint64(2 ** 64 - 1) met the entry of a symbolic uint64 and
    ``x * n`` was a Tensor instead of NumPy's ndarray."""
    case = next(c for c in dn.cases(0) if c.name == "dynamic_numbers:uint64:kwarg:scalar_mul:default")
    assert dn.known_difference(case) is None
    outcome = runner.check_case(case)
    assert outcome.ok, outcome.difference or outcome.error


def test_known_differences_are_numpy_results_and_keys_only():
    known = [c.name for c in dn.cases(0) if dn.known_difference(c)]
    assert known and not any(":strides:" in n or ":py_small:arg:add:" in n for n in known)
    assert all(n.split(":")[3] in dn._NUMPY_RESULTS | {"dict_key"} or n.split(":")[3].startswith("np_")
               for n in known)
