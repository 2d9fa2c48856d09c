"""NumPy in compiled code (families/numpy_values.py): ndarrays are tensors in the graph computed by
torch._numpy, typed by NumPy's own dry run, and real ndarrays (or NumPy scalars) where they leave it."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from autograph.capture.families.numpy_values import NUMPY
from tests.capture.harness import Harness


def same(got, expected, path="result"):
    """NumPy's exactness: same type, dtype, shape and strides; values equal (floats to rounding)."""
    assert type(got) is type(expected), f"{path}: {type(got).__name__} vs {type(expected).__name__}"
    if isinstance(expected, (np.ndarray, np.generic)):
        assert got.dtype == expected.dtype, f"{path}: dtype {got.dtype} vs {expected.dtype}"
        assert np.shape(got) == np.shape(expected), f"{path}: shape {np.shape(got)} vs {np.shape(expected)}"
        if isinstance(expected, np.ndarray):
            assert all(n <= 1 or g == e for n, g, e in zip(expected.shape, got.strides, expected.strides)), \
                f"{path}: strides {got.strides} vs {expected.strides}"
        if expected.dtype.kind in "fc":
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=path)
        else:
            assert np.array_equal(got, expected), f"{path}: {got} vs {expected}"
    elif isinstance(expected, torch.Tensor):
        torch.testing.assert_close(got, expected, msg=lambda m: f"{path}: {m}")
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected), f"{path}: length"
        for i, (g, e) in enumerate(zip(got, expected)):
            same(g, e, f"{path}[{i}]")
    else:
        assert got == expected, f"{path}: {got!r} vs {expected!r}"


def _copy(obj):
    if isinstance(obj, np.ndarray):
        return obj.copy()
    if isinstance(obj, torch.Tensor):
        return obj.clone()
    return obj


def compare(fn, make_args, calls=2, graphs=1):
    """Compiled ``fn`` against eager: results and the arguments after the call."""
    h = Harness()
    compiled = h.compile(fn)
    for i in range(calls):
        torch.manual_seed(i)
        args = make_args()
        eager_args, comp_args = [_copy(a) for a in args], [_copy(a) for a in args]
        same(compiled(*comp_args), fn(*eager_args))
        same(comp_args, eager_args, "arguments after the call")
    if graphs is not None:
        assert not h.breaks, [b.reason for b in h.breaks]
        assert len(h.backend.graphs) == graphs
    return h


def tensor():
    return (torch.randn(4, 3),)


def array():
    return (torch.randn(4, 3).numpy(),)


def ints():
    return (np.arange(12).reshape(4, 3),)


def test_tensor_numpy_round_trip():
    def f(x):
        a = x.numpy()
        b = np.mean(a, 1)
        return torch.from_numpy(a * 2), b, a.T, torch.from_numpy(np.asarray(np.sum(b)))
    compare(f, tensor)


def test_numpy_dtype_rules_not_torchs():
    def f(x):
        a = x.numpy()  # float32
        return (a + 1.5, a + np.ones(3), a * np.float32(2), np.ones(3), np.arange(5), np.linspace(0, 1, 5),
                a.astype(np.float64) + a, (a > 0).sum(), np.zeros((2, 2), dtype=np.int32) + 1)
    compare(f, tensor)


def test_reductions_return_numpy_scalars():
    def f(a):
        s = np.sum(a)
        return s, a.max(), np.argmax(a), a.mean(axis=0), s * 2 + 1, a.all(axis=0), a.std()
    compare(f, array)


def test_broadcasting_and_indexing():
    def f(a):
        return (a[:, None] * a[None, :], a[1:3], a[..., 0], a[[0, 2]], a[a.shape[0] - 1, 1], a[::2],
                a.reshape(3, 4), a.T.reshape(-1), np.expand_dims(a, 0), a[None].squeeze(0))
    compare(f, array)


def test_functions_methods_and_integers():
    def f(a, i):
        return (np.concatenate([a, a]), np.stack([a, a], axis=1), np.clip(a, 0.2, 0.4), a @ a.T,
                np.where(a > 0, a, 0), np.linalg.norm(a, axis=0), np.fft.fftshift(a), np.cumsum(a, axis=0),
                i // 2, i % 5, i * 1.5, i & 3, np.sqrt(i), i.sum(), i.astype(np.uint8) + 250, a.copy(), a.T.copy())
    compare(f, lambda: (*array(), *ints()))


def test_inplace_on_an_input_array_reaches_the_caller():
    def f(a):
        a += 1
        a[0] = 5
        b = a[1]
        b *= 2           # through a view
        return a
    h = compare(f, array)
    a = array()[0]
    assert h.compile(f)(a) is a  # the caller's array, changed


def test_copies_stay_copies():
    def f(a):
        b = a.flatten()
        b[0] = 100.0
        c = a.ravel()
        c[1] = -1.0
        return a, b
    compare(f, array)


def test_sort_fill_and_out():
    def f(a):
        b = a.copy()
        b.sort(axis=0)
        out = np.empty_like(a)
        r = np.add(a, 1, out=out)
        c = a.copy()
        c.fill(2)
        return b, r is out, out, c
    compare(f, array)


def test_torch_from_numpy_shares_memory_inside_the_graph():
    def f(a):
        t = torch.from_numpy(a)
        t.add_(1)
        u = torch.as_tensor(a, dtype=torch.float64)
        return a, t * 2, torch.tensor(a), u
    compare(f, array)


def test_ndarray_inputs_are_guarded_like_tensors():
    def f(a):
        return a * 2
    h = Harness()
    compiled = h.compile(f)
    for arr in (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32) * 3, np.ones((2, 3), np.int64),
                np.ones((3, 2), np.float32).T, np.ones((4,), np.float32)):
        same(compiled(arr), f(arr))
    assert len(h.results) == 4  # dtype, strides and shape changes recapture; new values do not


def test_numpy_without_a_torch_counterpart_breaks_with_its_kind():
    def f(x):
        y = x + 1
        r = np.random.rand(3)
        return y, r.shape
    h = Harness()
    out = h.compile(f)(torch.ones(2))
    assert out[1] == (3,)
    assert [b.kind for b in h.breaks] == [NUMPY]


def test_what_torch_numpy_gets_wrong_breaks_instead():
    # torch raises on // 0 and on `1 - bool array`
    for f in (lambda i: (i + 1, i // 0), lambda i: (i + 1, 1 - (i > 2))):
        h = Harness()
        out = h.compile(f)(np.arange(6))
        with np.errstate(all="ignore"):
            same(out, f(np.arange(6)))
        assert [b.kind for b in h.breaks] == [NUMPY]


def test_constants_fold_and_numpy_scalars_are_constants():
    def f(x):
        return x + np.iinfo(np.int16).max, x * np.finfo(np.float32).eps, np.dtype("float").itemsize
    compare(f, tensor)


@pytest.mark.parametrize("op", ["tolist", "item"])
def test_reading_values_into_python_breaks(op):
    def f(a):
        return getattr(a[0, :1], op)()
    h = Harness()
    a = array()[0]
    same(h.compile(f)(a), f(a))


def test_identity_of_arrays_handed_back_and_immutable_scalars():
    def f(a):
        s = np.sum(a)
        t = s
        s += 1           # a new scalar: t keeps the old value
        return np.asarray(a) is a, np.ascontiguousarray(a) is a, a.view() is a, s - t, t
    compare(f, array)


def test_reflected_operators_and_comparisons():
    def f(a):
        return 1 + a, 2.5 * a, 0.5 < a, a >= 0.1, 1 - a, -a, ~(a > 0)
    compare(f, array)


def test_integers_to_floats_give_numpys_float64():
    # torch._numpy alone gives torch's default float (float32) for `int / int`
    def f(i, n):
        return i / 2, i / i.sum(), np.divide(i, 3), i.astype(np.int32) / 2, (i > 3) / 2, np.arange(n) / n, np.mean(i)
    compare(f, lambda: (*ints(), 5))


def test_numpy_scalar_types_cast_values_known_at_run_time():
    def f(a):
        return np.float32(a.sum()), np.int32(a[0, 0]), np.float64(a[0]), np.float32(a)
    compare(f, array)


def test_abs_of_arrays_and_numpy_scalars():
    def f(a, i):
        return abs(a), abs(a.sum()), abs(i - 5)
    compare(f, lambda: (*array(), *ints()))


def test_numpy_force_detaches_and_shares_memory():
    def f(x):
        n = x.numpy(force=True)
        n += 1           # reaches x's data, as in eager
        return n * 2
    h = Harness()
    compiled = h.compile(f)
    x = torch.randn(3, requires_grad=True)
    x_eager = x.detach().clone().requires_grad_()
    same(compiled(x), f(x_eager))
    torch.testing.assert_close(x.detach(), x_eager.detach())
    assert not h.breaks and len(h.backend.graphs) == 1


def test_index_arrays_computed_in_the_graph():
    # the dry run's integer stand-ins must index in range (they are not the program's values)
    def f(a):
        b = a.copy()
        b[np.argmax(a, axis=0)] = 0.0
        return (a[np.argmax(a, axis=0), np.arange(3)], np.take_along_axis(a, np.argsort(a, axis=1), axis=1),
                np.take(a, np.argsort(a[:, 0]), axis=0), b)
    compare(f, array)


@pytest.mark.slow
def test_integer_division_stays_float64_when_a_backend_compiles_the_graph():
    # a compiler lowers `int / int` with torch's default dtype (float32) unless the graph casts first
    import autograph

    def f(i):
        return i / 3, np.divide(i, i.sum())
    i = np.arange(12).reshape(4, 3)
    same(autograph.compile(f, backend="inductor")(i), f(i))


def test_read_only_arrays_numpy_makes_stay_read_only():
    # a tensor's ndarray is writeable: np.broadcast_to's result (and its views) must not become one
    def made(a):
        b = np.broadcast_to(a[0], (2, 3))
        return b, b[1:], a.imag, b + 1

    def write(a):
        b = np.broadcast_to(a[0], (2, 3))
        b[0, 0] = 5.0
        return b
    h = compare(made, array)
    a = array()[0]
    assert [r.flags.writeable for r in h.compile(made)(a)] == [r.flags.writeable for r in made(a)]
    with pytest.raises(ValueError, match="read-only"):
        Harness().compile(write)(a)


def test_tensors_indexed_with_arrays_as_torch_reads_them():
    def f(x):
        y = x.clone()
        y[0, np.array([1, 2])] = 0.0
        y[np.arange(2), 1] += 1
        return x[:, np.arange(2)], x[np.array([2, 0], dtype=np.int32)], x[:, np.argsort(x[0].numpy())], y
    compare(f, tensor)


def test_an_array_stored_into_a_tensor_raises_as_in_eager():
    def f(x):
        x[0] = np.ones(3)
        return x
    with pytest.raises(TypeError):
        Harness().compile(f)(torch.randn(4, 3))
