"""Each guard kind passes on the captured value and fails when its property changes."""
import pytest
import torch

from autograph.guards.check import GuardSet, check_const
from autograph.guards.model import (GuardKind, equals_match, global_state, global_state_guard, id_match,
                                    length_match, python_guard, shape_relation, tensor_match, type_match)
from autograph.guards.sources import (AttrSource, ClosureSource, GlobalSource, GradModeSource, ItemSource,
                                      LocalSource)

A = LocalSource("a")


def fn(a, b=None, *rest, flag=True, **kw):
    return a


def first(guards, *args, **kwargs):
    return GuardSet(fn, guards).first_failure(*args, **kwargs)


def test_tensor_match_each_fact():
    t = torch.ones(10)
    g = tensor_match(A, t)
    assert first([g], t) is None
    assert first([g], torch.ones(10, dtype=torch.float64)) is g          # dtype
    assert first([g], torch.ones(10, device="meta")) is g                # device
    assert first([g], torch.ones(11)) is g                               # shape
    assert first([g], torch.ones(20)[::2]) is g                          # stride
    assert first([g], torch.ones(10, requires_grad=True)) is g           # requires_grad
    assert first([g], torch.nn.Parameter(torch.ones(10))) is g           # class
    assert first([g], torch.ones(10, dtype=torch.cfloat).conj()) is g    # dispatch keys (and dtype)
    assert first([g], [1.0] * 10) is g                                   # not a tensor at all
    with torch.inference_mode():
        inf = torch.ones(10)
    assert first([g], inf) is g                                          # dispatch keys only


def test_dispatch_keys_alone():
    c = torch.ones(3, dtype=torch.cfloat)
    g = tensor_match(A, c)
    assert first([g], c.conj()) is g  # same dtype/shape/stride, Conjugate key set


def test_tensor_match_dynamic_dims():
    g = tensor_match(A, torch.ones(4, 3), dynamic_dims=[0])
    assert first([g], torch.ones(7, 3)) is None
    assert first([g], torch.ones(7, 4)) is g
    assert first([g], torch.ones(7)) is g
    assert "(None, 3)" in g.src and "size (?, 3)" in g.describe()


def test_readable_src_and_describe():
    t = torch.ones(10)
    g = tensor_match(A, t)
    assert g.src == "___check_tensor(a, torch.float32, 'cpu', (10,), (1,), requires_grad=False)"
    assert g.describe() == "a: Tensor float32 cpu size (10,) stride (1,) requires_grad=False"
    assert equals_match(AttrSource(LocalSource("self"), "training"), False).src == "self.training is False"
    assert equals_match(LocalSource("n"), 3).src == "type(n) is int and n == 3"
    assert global_state_guard("grad_enabled", True).src == "torch.is_grad_enabled() == True"
    assert length_match(ItemSource(LocalSource("x"), 0), 2).src == "len(x[0]) == 2"
    assert type_match(GlobalSource("cfg"), 1).src == "type(G['cfg']) is int"
    assert id_match(GlobalSource("torch"), torch).src.startswith(f"___check_obj_id(G['torch'], {id(torch)})")


def test_equals_match_is_type_strict():
    g = equals_match(LocalSource("b"), 1)
    assert first([g], None, 1) is None
    assert first([g], None, 2) is g
    assert first([g], None, True) is g
    assert first([g], None, 1.0) is g
    gt = equals_match(LocalSource("b"), (1, "x"))
    assert first([gt], None, (1, "x")) is None
    assert first([gt], None, (True, "x")) is gt
    assert first([gt], None, [1, "x"]) is gt
    assert not check_const([1], (1,))
    with pytest.raises(TypeError):
        equals_match(A, object())


def test_equals_none_and_bool_and_kwonly():
    g = equals_match(LocalSource("flag"), True)
    assert first([g], 1) is None
    assert first([g], 1, flag=1) is g
    gn = equals_match(LocalSource("b"), None)
    assert first([gn], 1) is None and first([gn], 1, 0) is gn


def test_type_id_length():
    gt = type_match(A, [])
    gi = id_match(A, torch)
    gl = length_match(LocalSource("rest"), 2)
    assert first([gt], [1]) is None and first([gt], (1,)) is gt
    assert first([gi], torch) is None and first([gi], __import__("math")) is gi
    assert first([gl], 0, 1, 2, 3) is None and first([gl], 0, 1, 2) is gl


def test_global_value_and_closure():
    box = {"scale": 2}

    def g(a):
        return a * box["scale"] * torch.pi

    src = ItemSource(ClosureSource("box"), "scale")
    gs = GuardSet(g, [equals_match(src, 2), id_match(GlobalSource("torch"), torch)])
    assert gs.check(1)
    box["scale"] = 3
    assert gs.first_failure(1) is gs.guards[0]
    assert src.expr == "box['scale']"
    assert src.fetch({}, g) == 3


def test_global_source_change(monkeypatch):
    g = id_match(GlobalSource("torch"), torch)
    gs = GuardSet(fn, [g])
    assert gs.check(1)
    monkeypatch.setitem(fn.__globals__, "torch", __import__("math"))
    assert gs.first_failure(1) is g


def test_builtin_global():
    g = id_match(GlobalSource("len"), len)
    gs = GuardSet(fn, [g])
    assert gs.check(1)
    assert GlobalSource("len").fetch({}, fn) is len


def test_grad_mode_and_global_state():
    guards = global_state()
    gs = GuardSet(fn, guards)
    assert gs.check(1)
    with torch.no_grad():
        failed = gs.first_failure(1)
    assert failed.kind is GuardKind.GLOBAL_STATE and failed.source == GradModeSource()
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert gs.first_failure(1).src == "torch.get_default_dtype() == torch.float32"
    finally:
        torch.set_default_dtype(old)
    inference_only = GuardSet(fn, global_state(["inference_mode"]))
    with torch.inference_mode():  # also turns grad off, the first guard
        assert gs.first_failure(1).src == "torch.is_grad_enabled() == True"
        assert inference_only.first_failure(1).src == "torch.is_inference_mode_enabled() == False"
    with torch.device("meta"):  # a TorchFunctionMode changes what torch calls do
        assert gs.first_failure(1).src == "torch._C._len_torch_function_stack() == 0"
    with torch.autocast("cpu"):
        assert gs.first_failure(1).src == "torch._C._is_any_autocast_enabled() == False"


def test_autocast_guards_device_and_dtype_when_enabled():
    with torch.autocast("cpu", dtype=torch.bfloat16):
        gs = GuardSet(fn, global_state())
        assert gs.check(1)
        assert "torch.get_autocast_dtype('cpu') == torch.bfloat16" in [g.src for g in gs.guards]
    assert gs.first_failure(1).src == "torch.is_autocast_enabled('cpu') == True"
    with torch.autocast("cpu", dtype=torch.float16):
        assert gs.first_failure(1).src == "torch.get_autocast_dtype('cpu') == torch.bfloat16"


def test_dispatch_tls_guard():
    g = global_state_guard("dispatch_tls")
    gs = GuardSet(fn, [g])
    assert gs.check(1)
    with torch.inference_mode():
        assert gs.first_failure(1) is g


def test_attribute_source_and_missing_attribute_fails():
    class M:
        training = True

    g = equals_match(AttrSource(A, "training"), True)
    gs = GuardSet(fn, [g])
    assert gs.check(M())
    m = M()
    m.training = False
    assert gs.first_failure(m) is g
    assert gs.first_failure(object()) is g  # AttributeError counts as a failure


def test_shape_relation_and_python_guard():
    rel = shape_relation("a.size(0) == b.size(0)", lambda a, b: a.size(0) == b.size(0), [A, LocalSource("b")])
    py = python_guard("a.is_contiguous()", lambda a: a.is_contiguous(), [A])
    gs = GuardSet(fn, [rel, py])
    assert gs.check(torch.ones(3, 2), torch.ones(3))
    assert gs.first_failure(torch.ones(3, 2), torch.ones(4)) is rel
    assert gs.first_failure(torch.ones(3, 2).t(), torch.ones(2)) is py


def test_first_failure_is_first_in_order_and_hoisting():
    class M:
        pass

    m = M()
    m.sub = M()
    m.sub.w = torch.ones(2)
    m.sub.k = 4
    w = AttrSource(AttrSource(LocalSource("a"), "sub"), "w")
    k = AttrSource(AttrSource(LocalSource("a"), "sub"), "k")
    guards = [tensor_match(w, m.sub.w), equals_match(k, 4)]
    gs = GuardSet(fn, guards)
    assert "___s0 = a.sub" in gs.source_text  # shared base read once
    assert gs.check(m)
    m.sub.k = 5
    assert gs.first_failure(m) is guards[1]
    m.sub.w = torch.ones(3)
    assert gs.first_failure(m) is guards[0]


def test_signature_binding_matches_python():
    gs = GuardSet(fn, [length_match(LocalSource("kw"), 1)])
    assert gs.check(1, x=2)
    assert not gs.check(1)
    with pytest.raises(TypeError):
        gs.check()  # missing required argument: binding error surfaces, like the real call


def test_positional_only_and_defaults():
    def h(a, b=5, /, c=7):
        return a

    gs = GuardSet(h, [equals_match(LocalSource("b"), 5), equals_match(LocalSource("c"), 7)])
    assert gs.check(1) and gs.check(1, 5, c=7) and not gs.check(1, 6) and not gs.check(1, c=8)
