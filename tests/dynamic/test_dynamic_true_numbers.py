"""``dynamic=True`` makes ints and NumPy ints symbolic the way ``torch.compile`` does (issue 30):
ints reached from an argument (``n``, ``o.n``, ``l[0]``) and NumPy integers (families/numpy_ints.py)
capture once for many values, while every value Python sees keeps its exact type and value."""
from __future__ import annotations

import types
import warnings

import numpy as np
import pytest
import torch

import autograph
from tests.dynamic.exact import same

GLOBAL_N = 3


pytestmark = pytest.mark.usefixtures("eager_settings")


def run(fn, calls, dynamic=True):
    compiled = autograph.compile(fn, backend="eager", dynamic=dynamic)
    for args in calls:
        with warnings.catch_warnings(record=True) as seen_eager:
            warnings.simplefilter("always")
            try:
                expected = fn(*args)
            except Exception as exc:  # noqa: BLE001 - compared with the compiled call's below
                expected = exc
        with warnings.catch_warnings(record=True) as seen_compiled:
            warnings.simplefilter("always")
            if isinstance(expected, Exception):
                with pytest.raises(type(expected)) as info:
                    compiled(*args)
                assert str(info.value) == str(expected)
            else:
                same(compiled(*args), expected)
        assert [str(w.message) for w in seen_compiled if not issubclass(w.category, autograph.runtime.shim.RecompileLimitWarning)] \
            == [str(w.message) for w in seen_eager], args
    return compiled


def test_an_int_attribute_of_an_argument_is_symbolic_from_the_first_call():
    def f(x, o):
        return x * o.n + 1, o.n + 1

    compiled = run(f, [(torch.ones(3), types.SimpleNamespace(n=k)) for k in (3, 4, 5, 6)])
    assert compiled.stats.captures == 1


def test_an_int_item_of_a_list_argument_is_symbolic_from_the_first_call():
    def f(x, sizes):
        return x * sizes[0], sizes[0] * 2

    compiled = run(f, [(torch.ones(3), [k]) for k in (3, 4, 5, 6)])
    assert compiled.stats.captures == 1


def test_an_int_attribute_of_a_module_is_static_at_first_as_in_dynamo():
    class Scale(torch.nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k

    def f(m, x):
        return x * m.k

    compiled = run(f, [(Scale(k), torch.ones(2)) for k in (3, 4, 5)])
    assert compiled.stats.captures == 2  # a module's structure: static, until it changes (automatic dynamic)


def test_a_global_int_stays_static_as_in_dynamo():
    def f(x):
        return x * GLOBAL_N

    compiled = autograph.compile(f, backend="eager", dynamic=True)
    for k in (3, 4, 5):
        globals()["GLOBAL_N"] = k
        same(compiled(torch.ones(2)), f(torch.ones(2)))
    assert compiled.stats.captures == 3


@pytest.mark.parametrize("cls", [np.int64, np.int32, np.int16, np.uint8])
def test_numpy_int_arguments_capture_once_and_keep_their_type(cls):
    def f(x, n):
        m = n + 1
        return x * n, m, m * 2 - n, n // 2, n % 3, type(n), n > 3, n == m - 1

    compiled = run(f, [(torch.arange(4.0), cls(k)) for k in (4, 5, 6, 7, 9, 12)])
    assert compiled.stats.captures == 1


def test_numpy_int32_overflow_wraps_as_numpy_does():
    def f(x, n):
        return x + 1, n + 1, n * 2

    big = np.iinfo(np.int32).max
    compiled = run(f, [(torch.ones(1), np.int32(k)) for k in (3, 4, big, 5, big - 1, 6)])
    # 3 to 6 share one symbolic entry (guarded: no wraparound); a wrapping call fails that guard
    # and runs NumPy's own op (its wraparound and warning), not one capture per value
    assert compiled.stats.captures <= 3


def test_a_numpy_int_observed_by_python_is_a_numpy_int():
    def f(x, n):
        return (x * n, type(n) is np.int64, isinstance(n, np.integer), isinstance(n, int), n.__class__,
                type(n).__name__, str(n), repr(n), hash(n), n / 2, n.dtype, {n: 1}, -n)

    compiled = run(f, [(torch.ones(2), np.int64(k)) for k in (3, 4, 5)])
    assert compiled.stats.captures >= 1  # text, hashing and `/` specialise: exact, per value


def test_a_numpy_int_changing_type_recompiles():
    def f(x, n):
        return x * n, n + 1

    run(f, [(torch.ones(2), np.int64(3)), (torch.ones(2), np.int32(4)), (torch.ones(2), 5),
            (torch.ones(2), np.int64(6))])


def test_a_numpy_int_in_an_attribute_and_in_a_list():
    def f(x, o, items):
        return x * o.n + items[0], o.n * items[0], items[0] - 1

    compiled = run(f, [(torch.ones(2), types.SimpleNamespace(n=np.int64(k)), [np.int64(k + 2)])
                       for k in (3, 4, 5)])
    assert compiled.stats.captures == 1


def test_a_numpy_int_used_as_a_size_and_in_a_branch():
    def f(x, n):
        if n > 2:
            y = x[:n] * 2
        else:
            y = x
        return y, x.view(n, -1).sum(0), n

    compiled = run(f, [(torch.arange(12.0), np.int64(k)) for k in (3, 4, 6)])
    assert compiled.stats.captures == 1


def test_a_numpy_int_that_changes_value_becomes_symbolic_in_the_default_mode():
    """Automatic dynamic, as for Python ints: static first, then one symbolic capture."""
    def f(x, n):
        return x * n, n + 1, type(n)

    compiled = run(f, [(torch.ones(2), np.int64(k)) for k in (3, 4, 5, 6, 7)], dynamic=None)
    assert compiled.stats.captures == 2


def test_a_numpy_int_stays_constant_in_the_static_mode():
    def f(x, n):
        return x * n, n + 1

    compiled = run(f, [(torch.ones(2), np.int64(k)) for k in (3, 4, 5)], dynamic=False)
    assert compiled.stats.captures == 3


ZERO_ONE_PROGRAMS = {
    "scale": lambda x, n: (x * n, n + 1, n * 2),
    "slice": lambda x, n: x[:n] + 1,
    "zeros": lambda x, n: torch.zeros(n) + x.sum(),
    "repeat-list": lambda x, n: (x + 1, [7] * n),
    "truth": lambda x, n: x + 1 if n else x - 1,
    "divide": lambda x, n: (x + 1, 10 // n),
    "loop": lambda x, n: sum(x * i for i in range(n + 1)),
}


@pytest.mark.parametrize("program", list(ZERO_ONE_PROGRAMS.values()), ids=list(ZERO_ONE_PROGRAMS))
@pytest.mark.parametrize("cls", [int, np.int64])
def test_zero_and_one_are_exact_as_symbolic_ints(program, cls):
    """0 and 1 are not specialised for an int (Dynamo does not either): values, exceptions exact."""
    compiled = autograph.compile(program, backend="eager", dynamic=True)
    for k in (0, 1, 2, 5, 0, 1):
        x = torch.arange(6.0)
        with warnings.catch_warnings(record=True) as eager_warnings:
            warnings.simplefilter("always")
            try:
                expected = program(x, cls(k))
            except Exception as exc:  # noqa: BLE001
                expected = exc
        with warnings.catch_warnings(record=True) as compiled_warnings:
            warnings.simplefilter("always")
            if isinstance(expected, Exception):
                with pytest.raises(type(expected)) as info:
                    compiled(x, cls(k))
                assert str(info.value) == str(expected)
            else:
                same(compiled(x, cls(k)), expected)
        assert [str(w.message) for w in compiled_warnings] == [str(w.message) for w in eager_warnings]


def test_an_int_argument_taking_zero_and_one_captures_once():
    def f(x, n):
        return x * n, n + 1

    compiled = run(f, [(torch.ones(2), k) for k in (0, 1, 2, 3, 0, 1)])
    assert compiled.stats.captures == 1


NUMPY_SCALE = np.int32(3)
NUMPY_HALF = np.float64(0.5)


def test_numpy_constants_with_a_dynamic_int_keep_numpy_types():
    """``np.int32(3) * n`` is an np.int32 (NEP 50), ``np.float64(0.5) * n`` an np.float64: not the
    ``int``/``float`` of torch's symbolic algebra."""
    def f(x, n):
        return x * n, NUMPY_SCALE * n, n - NUMPY_SCALE, NUMPY_HALF * n, NUMPY_SCALE < n, n // NUMPY_SCALE

    run(f, [(torch.ones(2), k) for k in (4, 5, 6, 2 ** 31 + 5)])


def test_mixed_numpy_and_dynamic_python_ints():
    def f(x, n, m):
        return x * m, n * m, n + m, m - n, type(n * m), n < m, n * 2 - m

    run(f, [(torch.ones(2), np.int32(k), k + 1) for k in (3, 4, 5)])


@pytest.mark.parametrize("dynamic", [True, None])
def test_a_symbolic_uint64_does_not_take_a_value_torch_rejects(dynamic):
    """``np.uint64(2 ** 64 - 1)`` is no number to torch (``x * n`` is NumPy's ndarray, ``x.mul(n)``
    a TypeError): the entry where ``n`` is a symbol is not reused for it (found by the
    dynamic_numbers sweep)."""
    def f(x, n):
        product, total = x * n, x.int() + n  # a tensor, or NumPy's ndarray
        return type(product).__name__, product.tolist(), str(total.dtype), total.tolist()

    def g(x, n):
        return x.mul(n)

    values = [np.uint64(k) for k in (5, 6, 2 ** 64 - 1, 7, 2 ** 62, 2 ** 62 - 1)]
    run(f, [(torch.arange(3.0), v) for v in values], dynamic=dynamic)
    run(g, [(torch.arange(3.0), v) for v in values], dynamic=dynamic)


def test_a_symbolic_numpy_int_returned_or_stored_is_the_callers_object():
    """``f(n) is n`` as in plain Python (it was rebuilt as ``np.int64(int(n))``), also when the
    function replaces ``o.n`` after reading it (found by the dynamic_numbers sweep)."""
    def f(x, n, o):
        m = o.n
        o.n = np.int8(9)
        return x + 1, n, [n], m

    compiled = autograph.compile(f, backend="eager", dynamic=True)
    for k in (3, 4, 0, 1):
        n, o = np.int64(k), types.SimpleNamespace(n=np.int8(k))
        m = o.n
        _, got, listed, read = compiled(torch.ones(2), n, o)
        assert got is n and listed[0] is n and read is m and o.n == np.int8(9)
    assert compiled.stats.captures == 1


def test_a_specialised_numpy_int_input_returned_is_the_callers_object():
    """A NumPy int specialised by a use Python sees (``repr``, ``hash``) and then returned is the
    caller's object, not the one capture made (which every later call returned)."""
    def f(x, n):
        return x + 1, (n, repr(n), hash(n))

    compiled = autograph.compile(f, backend="eager", dynamic=True)
    for k in (3, 4, 3):
        n = np.int16(k)
        _, (got, text, hashed) = compiled(torch.ones(2), n)
        assert got is n and text == repr(n) and hashed == hash(n)


def test_a_static_numpy_int_input_returned_is_the_callers_object():
    """In the default mode the first captures keep a NumPy int input constant (guarded by class
    and value); returned or stored it is the caller's object, not the one the capture met (a
    later call with an equal value got that one: found by the dynamic_numbers sweep)."""
    def f(x, n):
        return x + 1, [n], (n, 5) if n else None

    compiled = autograph.compile(f, backend="eager")
    for k in (0, 1, 0, 1):
        n = np.uint8(k)
        _, listed, pair = compiled(torch.ones(2), n)
        assert listed[0] is n and (pair is None if k == 0 else pair[0] is n)
