"""The C fast path, its plan twin and the generated Python check make identical decisions."""
import collections

import pytest
import torch

from autograph.guards import extension, native, tensor_layout
from autograph.guards.check import GuardSet
from autograph.guards.model import (equals_match, global_state, global_state_guard, id_match, key_absent, length_match,
                                    no_hooks, python_guard, shape_relation, tensor_match, type_match)
from autograph.guards.sources import (AttrSource, ClosureSource, GlobalSource, ItemSource, LocalSource)

from tests.guards.native_build import load_or_build

_native = load_or_build()
needs_native = pytest.mark.skipif(_native is None, reason="autograph._native not built and no C compiler")

SCALE = 2


class Box:
    def __init__(self, w, k, training=True):
        self.w = w
        self.k = k
        self.training = training
        self.hooks = {}
        self.pre_hooks = collections.OrderedDict()


def make_fn():
    cell = {"s": 1}

    def fn(a, b=3, c=None, *rest, flag=True, **kw):
        return a, b, c, rest, flag, kw, cell, SCALE

    return fn, cell


def guard_sets(fn):
    t = torch.ones(4, 3)
    box = Box(torch.zeros(2), 5)
    A, B, C = LocalSource("a"), LocalSource("b"), LocalSource("c")
    sets = {
        "tensor": [tensor_match(A, t)],
        "tensor_dynamic": [tensor_match(A, t, dynamic_dims=[0])],
        "const": [equals_match(B, 3), equals_match(C, None), equals_match(LocalSource("flag"), True)],
        "tuple_const": [equals_match(B, (1, "x", (2.5, None)))],
        "type_id_len": [type_match(C, box), id_match(GlobalSource("torch"), torch), length_match(LocalSource("rest"), 0)],
        "attrs": [type_match(C, box), tensor_match(AttrSource(C, "w"), box.w), equals_match(AttrSource(C, "k"), 5),
                  equals_match(AttrSource(C, "training"), True)],
        "items": [length_match(LocalSource("rest"), 1), equals_match(ItemSource(LocalSource("rest"), 0), 7)],
        "globals": [equals_match(GlobalSource("SCALE"), 2), id_match(GlobalSource("len"), len)],
        "closure": [equals_match(ItemSource(ClosureSource("cell"), "s"), 1)],
        "state": global_state(),
        "relations": [shape_relation("a.size(0) == b.size(0)", lambda a, b: a.size(0) == b.size(0), [A, B]),
                      python_guard("a.is_contiguous()", lambda a: a.is_contiguous(), [A])],
        "kwargs_len": [length_match(LocalSource("kw"), 0)],
        "key_absent": [key_absent(LocalSource("kw"), "extra"), key_absent(AttrSource(C, "__dict__"), "z")],
        "no_hooks": [no_hooks(C, ("hooks", "pre_hooks"))],
        "mixed": [tensor_match(A, t), equals_match(B, 3), type_match(C, box),
                  tensor_match(AttrSource(C, "w"), box.w), *global_state(["grad_enabled"])],
    }
    return sets, t, box


def calls(t, box):
    other = Box(torch.zeros(3), 5)
    yield (t,), {}
    yield (t, 3), {}
    yield (t, 3, box), {}
    yield (t, 3, box, 7), {}
    yield (t, 3, box, 8), {}
    yield (t, 3.0, box), {}
    yield (t, True, box), {}
    yield (t, (1, "x", (2.5, None))), {}
    yield (t, (True, "x", (2.5, None))), {}
    yield (t, (1, "x", (2.5, 0))), {}
    yield (t.double(),), {}
    yield (t.t(),), {}
    yield (torch.ones(5, 3),), {}
    yield (torch.ones(5, 4),), {}
    yield (torch.ones(4, 3, requires_grad=True),), {}
    yield (torch.ones(4, 3, device="meta"),), {}
    yield (torch.nn.Parameter(torch.ones(4, 3)),), {}
    yield (t, torch.ones(4)), {}
    yield (t, torch.ones(5)), {}
    yield (t, 3, other), {}
    yield (t, 3, Box(torch.zeros(2), 5, training=False)), {}
    yield (t, 3, Box(torch.zeros(2), 6)), {}
    shadowed = Box(torch.zeros(2), 5)
    shadowed.z = 1
    yield (t, 3, shadowed), {}
    yield (t, 3, object()), {}
    hooked = Box(torch.zeros(2), 5)
    hooked.pre_hooks[0] = print
    yield (t, 3, hooked), {}
    listed = Box(torch.zeros(2), 5)
    listed.hooks = []  # not a dict: its length decides
    yield (t, 3, listed), {}
    listed = Box(torch.zeros(2), 5)
    listed.hooks = [print]
    yield (t, 3, listed), {}
    missing = Box(torch.zeros(2), 5)
    del missing.pre_hooks
    yield (t, 3, missing), {}
    yield ([1, 2],), {}
    yield (t,), {"flag": False}
    yield (t,), {"extra": 1}
    yield (t,), {"b": 3, "c": box}


def decisions(gs, plan, args, kwargs):
    out = [gs.index_fn(*args, **kwargs), native.check_python(plan, args, kwargs)]
    if _native is not None:
        out.append(_native.check(plan, args, kwargs))
    return out


def test_all_paths_agree_on_every_guard_set_and_call():
    fn, cell = make_fn()
    sets, t, box = guard_sets(fn)
    checked = 0
    for name, guards in sets.items():
        gs = GuardSet(fn, guards)
        plan = native.plan_for(gs)
        assert isinstance(plan, tuple), name
        for args, kwargs in calls(t, box):
            got = decisions(gs, plan, args, kwargs)
            assert len(set(got)) == 1, (name, args, kwargs, got, gs.source_text)
            checked += 1
    # state-dependent decisions: grad mode, closure contents, a global
    gs = GuardSet(fn, sets["state"] + sets["closure"] + sets["globals"])
    plan = native.plan_for(gs)
    assert decisions(gs, plan, (t,), {}) == [-1] * len(decisions(gs, plan, (t,), {}))
    with torch.no_grad():
        assert set(decisions(gs, plan, (t,), {})) == {0}
    for ctx in (torch.inference_mode(), torch.device("meta"), torch.autocast("cpu")):
        with ctx:
            got = decisions(gs, plan, (t,), {})
        assert len(set(got)) == 1 and got[0] >= 0, (ctx, got)
    with torch.autocast("cpu"):
        gs_on = GuardSet(fn, global_state() + [global_state_guard("dispatch_tls")])
    plan_on = native.plan_for(gs_on)
    got = decisions(gs_on, plan_on, (t,), {})
    assert len(set(got)) == 1 and got[0] >= 0
    cell["s"] = 2
    assert set(decisions(gs, plan, (t,), {})) == {len(sets["state"])}
    cell["s"] = 1
    fn.__globals__["SCALE"] = 3
    try:
        assert set(decisions(gs, plan, (t,), {})) == {len(sets["state"]) + 1}
    finally:
        fn.__globals__["SCALE"] = 2
    assert checked > 300


def test_binding_errors_raise_like_python():
    fn, _ = make_fn()
    gs = GuardSet(fn, [equals_match(LocalSource("b"), 3)])
    plan = native.plan_for(gs)
    with pytest.raises(TypeError):
        native.check_python(plan, (), {})
    if _native is not None:
        with pytest.raises(TypeError):
            _native.check(plan, (), None)


@needs_native
def test_dispatch_picks_first_passing_entry():
    fn, _ = make_fn()
    plans = tuple(native.plan_for(GuardSet(fn, [equals_match(LocalSource("b"), v)])) for v in (1, 2, 3, 2))
    for b, want in [(1, 0), (2, 1), (3, 2), (4, -1)]:
        assert _native.dispatch(plans, (None, b), None) == want == native.dispatch_python(plans, (None, b), None)


@needs_native
def test_inexpressible_plan_uses_python_check_inside_native_dispatch():
    def kwonly(a, *, k):
        return a

    gs = GuardSet(kwonly, [equals_match(LocalSource("k"), 1)])
    plan = native.plan_for(gs)
    assert plan is gs.index_fn
    assert _native.dispatch((plan,), (0,), {"k": 1}) == 0
    assert _native.dispatch((plan,), (0,), {"k": 2}) == -1


@needs_native
def test_no_reference_leaks_on_hit_path():
    import sys

    fn, _ = make_fn()
    t = torch.ones(4, 3)
    box = Box(torch.zeros(2), 5)
    gs = GuardSet(fn, guard_sets(fn)[0]["mixed"])
    plan = native.plan_for(gs)
    args = (t, 3, box)
    for _ in range(10):
        _native.check(plan, args, None)
    before = (sys.getrefcount(t), sys.getrefcount(box), sys.getrefcount(box.w))
    for _ in range(1000):
        assert _native.check(plan, args, None) == -1
        assert _native.check(plan, (t, 4, box), None) == 1
    assert (sys.getrefcount(t), sys.getrefcount(box), sys.getrefcount(box.w)) == before


def test_missing_extension_logs_one_line_and_uses_generated_checks(monkeypatch, caplog):
    import builtins
    import logging
    import sys

    real_import = builtins.__import__

    def blocked(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "autograph" and fromlist and "_native" in fromlist:
            raise ImportError("no compiled extension")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.delitem(sys.modules, "autograph._native", raising=False)
    monkeypatch.setattr(builtins, "__import__", blocked)
    extension.load.cache_clear()
    try:
        with caplog.at_level(logging.INFO, logger="autograph.runtime"):
            assert extension.load() is None and extension.load() is None
            fn, _ = make_fn()
            gs = GuardSet(fn, [equals_match(LocalSource("b"), 3)])
            assert native.runtime_plan(gs) is gs.index_fn
            assert native.runtime_dispatch()((gs.index_fn,), (0, 3), {}) == 0
        lines = [r for r in caplog.records if "autograph._native is not available" in r.getMessage()]
        assert len(lines) == 1
    finally:
        monkeypatch.undo()
        extension.load.cache_clear()


@needs_native
def test_fast_key_and_stride_comparisons_decide_like_the_generated_check():
    """The C path compares dispatch keys as 64-bit values and strides by contiguity; both
    must reject exactly what the generated check rejects (conj bit, requires_grad, meta,
    a transposed or expanded view with equal sizes, size-1 dimensions with odd strides)."""
    assert tensor_layout.raw_keys_verified(), "pybind layout check failed: the == fallback is in use"

    def fn(a):
        return a

    def plan_and_set(example):
        gs = GuardSet(fn, [tensor_match(LocalSource("a"), example)])
        plan = native.plan_for(gs)
        assert plan[5][0][11] == torch._C._dispatch_keys(example).raw_repr()
        return gs, plan

    z = torch.ones(3, 3, dtype=torch.complex64)
    square = torch.ones(3, 3)
    cases = [
        (z, [z, z.conj(), z.conj().resolve_conj(), z.t(), z.t().contiguous(), z.clone().requires_grad_()]),
        (square, [square, square.t(), square.t().contiguous(), torch.ones(3, 1).expand(3, 3),
                  torch.ones(3, 3, device="meta"), torch.ones(3, 3, requires_grad=True),
                  torch.ones(6, 6)[::2, ::2]]),
        (torch.ones(3, 1), [torch.ones(3, 1), torch.ones(1, 3).t(), torch.ones(3, 2)[:, :1]]),
    ]
    rejected = 0
    for example, probes in cases:
        gs, plan = plan_and_set(example)
        uses_contiguity = plan[5][0][12]
        assert uses_contiguity == all(s >= 2 for s in example.shape)
        for probe in probes:
            got = decisions(gs, plan, (probe,), {})
            assert len(set(got)) == 1, (example.shape, probe.shape, probe.stride(), got)
            rejected += got[0] == 0
    assert rejected >= 8  # the probes really exercise failing paths


def _keys_probes():
    """Tensors made in ways the layout probe never saw: ops, views, nested, subclasses."""
    class Sub(torch.Tensor):
        pass

    with torch.inference_mode():
        inference_view = torch.ones(4, 4)[1:]
    return [torch.ones(3) + 1, torch.ones(3, dtype=torch.complex128).conj()[1:], inference_view,
            torch.zeros(2, 2, dtype=torch.int8).unsqueeze(0), torch.ones(3).as_subclass(Sub),
            torch.nested.as_nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.strided), torch.ones(2, device="meta").neg(),
            torch.ones(3, requires_grad=True) * 2, torch.ones(2, 2).to_sparse()]


@needs_native
def test_direct_key_reads_equal_dispatch_keys_on_unseen_tensors():
    """The C path reads key_set_ from the TensorImpl at offsets found by probing; on tensors
    made in other ways it must read exactly what torch._C._dispatch_keys returns."""
    assert tensor_layout.direct_keys_enabled(), "layout probe failed: TENSOR_MATCH calls _dispatch_keys"
    for t in _keys_probes():
        assert _native.tensor_keys(t) == torch._C._dispatch_keys(t).raw_repr(), t


@needs_native
def test_direct_key_reads_decide_like_the_call_and_can_be_switched_off():
    """Decisions are the same with the direct read enabled and disabled; the plan marks
    the direct read only for torch tensor classes."""
    assert tensor_layout.direct_keys_enabled()

    def fn(a):
        return a

    probes = _keys_probes()
    for example in probes[:4] + [torch.ones(3), torch.ones(3, requires_grad=True)]:
        gs = GuardSet(fn, [tensor_match(LocalSource("a"), example)])
        plan = native.plan_for(gs)
        assert plan[5][0][13] is True
        direct = [decisions(gs, plan, (p,), {}) for p in probes + [example]]
        assert all(len(set(d)) == 1 for d in direct)
        assert direct[-1][0] == -1 and sum(d[0] == 0 for d in direct) >= len(probes) - 2
        _native.set_tensor_layout(-1, -1)
        try:
            assert _native.tensor_keys(example) is None
            assert [decisions(gs, plan, (p,), {}) for p in probes + [example]] == direct
        finally:
            tensor_layout.direct_keys_enabled.cache_clear()  # probes again and re-enables
            assert tensor_layout.direct_keys_enabled()


def _dims_probes():
    """Dense tensors the dims probe never saw (views, expands, channels-last, 0-d, 6-d, an op's
    result, an inference-mode slice, a parameter), and tensors whose sizes are not plain."""
    class Sub(torch.Tensor):
        pass

    with torch.inference_mode():
        inference_view = torch.ones(4, 6)[1:, ::3]
    dense = [torch.ones(3, 4) + 1, torch.ones(3, 4).t(), torch.ones(3, 1).expand(3, 4), torch.ones(12)[::3],
             torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last), torch.tensor(1.5), inference_view,
             torch.nn.Parameter(torch.ones(4, 3)), torch.ones(2, 3, dtype=torch.complex64).conj(),
             torch.ones(1, 2, 1, 2, 1, 2), torch.ones(4, 3).as_strided((3, 4), (1, 3))]
    other = [torch.ones(3, 4).as_subclass(Sub), torch.ones(3, 4, device="meta"), torch.ones(3, 4).to_sparse()]
    return dense, other


@needs_native
def test_direct_dims_reads_equal_size_and_stride_on_unseen_tensors():
    """The C path reads sizes and strides from the TensorImpl at an offset found by probing;
    on dense tensors made in other ways it reads exactly ``size()`` and ``stride()``, and
    nothing beyond five dimensions (c10's inline storage)."""
    assert tensor_layout.direct_dims_enabled(), "dims probe failed: TENSOR_MATCH calls size() and stride()"
    dense, _ = _dims_probes()
    for t in dense:
        want = (tuple(t.size()), t.stride()) if t.dim() <= 5 else None
        assert _native.tensor_dims(t) == want, (t.shape, t.stride())


@needs_native
def test_direct_dims_only_for_dense_keys_and_decide_like_the_generated_check():
    """A plan reads sizes and strides directly only for a plain tensor or parameter with a dense
    key set (checked first); every probe gets the same decision from the generated check, the
    plan twin and C with the read enabled and switched off."""
    assert tensor_layout.direct_dims_enabled()

    def fn(a):
        return a

    dense, other = _dims_probes()
    probes = dense + other
    marked = 0
    for i, example in enumerate(probes):
        gs = GuardSet(fn, [tensor_match(LocalSource("a"), example)])
        plan = native.plan_for(gs)
        direct = plan[5][0][14]
        assert direct == (i < len(dense) and example.dim() <= 5), example.shape
        marked += direct
        with_read = [decisions(gs, plan, (p,), {}) for p in probes]
        assert all(len(set(d)) == 1 for d in with_read), example.shape
        assert with_read[i][0] == -1
        _native.set_tensor_dims_layout(-1)
        try:
            assert _native.tensor_dims(example) is None
            assert [decisions(gs, plan, (p,), {}) for p in probes] == with_read
        finally:
            tensor_layout.direct_dims_enabled.cache_clear()  # probes again and re-enables
            assert tensor_layout.direct_dims_enabled()
    assert marked >= 9


def _outcome(check, *args, **kwargs):
    try:
        return check(*args, **kwargs)
    except TypeError:
        return "TypeError"


def test_keyword_calls_bind_like_python_on_every_path():
    """Keyword arguments are bound by the C path itself (HF models are called with keywords):
    positional parameters named by keyword, keyword-only ones, the rest into **kwargs in call
    order; calls that do not bind raise Python's TypeError on every path."""
    def fn(a, /, b, c=2, *, d=4, **kw):
        return a, b, c, d, kw

    def strict(a, b=1, *, d=4):
        return a, b, d

    t = torch.ones(2)
    sets = {
        fn: [tensor_match(LocalSource("a"), t), equals_match(LocalSource("b"), 1), equals_match(LocalSource("c"), 2),
             equals_match(LocalSource("d"), 4), python_guard("tuple(kw) == ('x', 'a')",
                                                            lambda kw: tuple(kw) == ("x", "a"), [LocalSource("kw")])],
        strict: [tensor_match(LocalSource("a"), t), equals_match(LocalSource("b"), 1), equals_match(LocalSource("d"), 4)],
    }
    calls = [((t,), {"b": 1, "x": 0, "a": 9}), ((t,), {"a": 9, "x": 0, "b": 1}), ((t, 1), {"x": 0, "a": 9}),
             ((t,), {"b": 1, "c": 2, "d": 4, "x": 0, "a": 9}), ((t,), {"b": 1, "d": 5, "x": 0, "a": 9}),
             ((t,), {"c": 2}), ((t, 1), {"b": 1}), ((t, 1, 2, 3), {}), ((), {"a": t, "b": 1}),
             ((t,), {}), ((t,), {"b": 1}), ((), {"a": t}), ((t,), {"d": 4}), ((t,), {"e": 1}), ((t, 1, 2), {})]
    seen = set()
    for f, guards in sets.items():
        gs = GuardSet(f, guards)
        plan = native.plan_for(gs)
        assert isinstance(plan, tuple)
        for args, kwargs in calls:
            got = [_outcome(gs.index_fn, *args, **kwargs), _outcome(native.check_python, plan, args, kwargs)]
            if _native is not None:
                got.append(_outcome(_native.check, plan, args, kwargs))
            assert len(set(got)) == 1, (f.__name__, args, kwargs, got)
            seen.add(got[0])
    assert {-1, "TypeError"} <= seen and len(seen) >= 4  # passing, failing at several guards, not binding


def test_c_plan_constants_equal_the_python_ones():
    """native/guard_eval.c exports its plan constants; an extension built from other sources is refused."""
    import types as _types

    from autograph.guards import extension as nat

    module = nat.load()
    if module is None:
        pytest.skip("autograph._native is not built")
    assert nat.constant_mismatches(module) == []
    assert all(isinstance(getattr(module, name), int) for name in nat.SHARED_CONSTANTS)
    stale = _types.SimpleNamespace(**{name: getattr(module, name) for name in nat.SHARED_CONSTANTS})
    stale.G_NO_HOOKS += 1
    del stale.MAX_NODES
    assert nat.constant_mismatches(stale) == ["G_NO_HOOKS", "MAX_NODES"]
