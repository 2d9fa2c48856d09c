"""Python semantics inside captured functions, each compared with eager (no graph break expected)."""
from __future__ import annotations

import math
import operator

import pytest
import torch
import torch.nn.functional as F

from tests.capture.checks import check
from tests.capture.harness import Harness


def t(*shape):
    return lambda: (torch.randn(*shape),)


def t2(*shape):
    return lambda: (torch.randn(*shape), torch.randn(*shape))


# --- arithmetic and constants ---------------------------------------------------
def f_add_const(x): return x + 1
def f_rsub(x): return 1 - x
def f_rdiv(x): return 2.0 / (x.abs() + 1)
def f_pow(x): return x ** 2
def f_rpow(x): return 2 ** x
def f_floordiv(x): return x // 0.5
def f_mod(x): return x % 0.7
def f_neg(x): return -x
def f_pos(x): return +(x * 2)  # `+x` alone is x itself (torch.positive returns its input)
def f_matmul(x): return x @ x.t()
def f_inplace_add(x):
    y = x * 1
    y += 2
    return y
def f_inplace_mul(x):
    y = x.clone()
    y *= 3
    return y
def f_const_fold(x):
    k = (3 * 4 + 1) // 2 - 2 ** 2
    return x * k
def f_float_ops(x):
    k = math.sqrt(16.0) + math.pi
    return x * k
def f_operator_module(x): return operator.add(x, operator.mul(2, 3))
def f_compare_chain(x):
    n = 3
    if 1 < n < 5:
        return x + 1
    return x - 1
def f_bool_ops(x):
    a, b = True, False
    if a and not b:
        return x * 2
    return x
def f_or_default(x, y=None):
    y = y or 4
    return x * y
def f_ternary(x):
    k = 2 if x.dim() == 2 else 3
    return x * k
def f_isinstance(x):
    if isinstance(x, torch.Tensor):
        return x + 1
    return x
def f_is_none(x, y=None):
    if y is None:
        return x * 1
    return x + y
def f_abs_builtin(x): return abs(x)
def f_min_max_const(x): return x * min(3, 4) + max(1, 2, 0)
def f_round_divmod(x):
    q, r = divmod(17, 5)
    return x * q + round(2.6) + r
def f_string_ops(x):
    name = "layer" + str(3)
    if name.startswith("layer") and name.upper() == "LAYER3":
        return x * len(name)
    return x
def f_fstring(x):
    s = f"{3}-{'a'}"
    return x * len(s)
def f_int_float(x):
    return x * float(int(3.7))


# --- tensor metadata -------------------------------------------------------------
def f_shape(x): return x.reshape(x.shape[0], -1)
def f_size_call(x): return x.view(x.size(0) * x.size(1))
def f_dim_ndim(x): return x * (x.dim() + x.ndim)
def f_dtype_branch(x):
    if x.dtype == torch.float32:
        return x.double()
    return x
def f_device(x): return torch.zeros(3, device=x.device) + x
def f_numel(x): return x.sum() / x.numel()
def f_shape_unpack(x):
    a, b = x.shape
    return x.new_zeros(b, a) + x.t()
def f_len_tensor(x): return x * len(x)
def f_requires_grad(x):
    if x.requires_grad:
        return x * 2
    return x * 3
def f_is_floating(x):
    return x * 2 if x.is_floating_point() else x
def f_T(x): return x.T @ x


# --- tensor ops ------------------------------------------------------------------
def f_methods(x): return x.relu().sum(dim=1, keepdim=True).exp().mean()
def f_torch_fns(x): return torch.cat([torch.sin(x), torch.cos(x)], dim=0).sum(0)
def f_functional(x): return F.softmax(F.gelu(x), dim=-1)
def f_getitem_int(x): return x[0] + x[-1]
def f_getitem_slice(x): return x[1:, ::2]
def f_getitem_none(x): return x[None, ..., 0]
def f_getitem_tensor(x): return x[torch.arange(2)]
def f_setitem(x):
    y = x.clone()
    y[0] = 0.0
    return y
def f_setitem_slice(x):
    y = x.clone()
    y[:, 1] = y[:, 0] * 2
    return y
def f_chunk_unpack(x):
    a, b = x.chunk(2, dim=1)
    return a * b
def f_split_loop(x):
    total = 0
    for part in x.split(1, dim=0):
        total = total + part.sum()
    return total
def f_max_dim(x):
    values, idx = x.max(dim=1)
    return values + idx.float()
def f_factories(x):
    return x + torch.ones(x.shape) * torch.full((1,), 2.0) + torch.arange(x.shape[-1])
def f_where(x): return torch.where(x > 0, x, torch.zeros_like(x))
def f_type_conversion(x): return x.to(torch.float64).float().int().float()
def f_stack_list(x):
    parts = [x * i for i in range(3)]
    return torch.stack(parts)
def f_einsum(x): return torch.einsum("ij,kj->ik", x, x)
def f_iter_tensor(x):
    out = []
    for row in x:
        out.append(row.sum())
    return torch.stack(out)
def f_tensor_method_kwargs(x): return x.transpose(dim0=0, dim1=1).contiguous()
def f_tensor_ops_chain(x, y): return (x * y + x / (y.abs() + 1)).clamp(min=-1, max=1)
def f_comparison_tensors(x, y): return (x > y).float() + (x <= y).float() * 2
def f_unary_not_tensor_ok(x): return ~(x > 0)


# --- containers --------------------------------------------------------------------
def f_tuple_return(x): return x + 1, x - 1
def f_list_return(x): return [x, x * 2]
def f_dict_return(x): return {"a": x, "b": x.sum()}
def f_list_ops(x):
    xs = [x, x + 1]
    xs.append(x * 2)
    xs.extend([x * 3])
    xs.insert(0, x - 1)
    last = xs.pop()
    return sum(xs) + last
def f_list_index_len(x):
    xs = [1, 2, 3]
    xs[1] = 5
    return x * xs[1] * len(xs) + xs.index(3)
def f_dict_ops(x):
    d = {"a": 1}
    d["b"] = 2
    d.update(c=3)
    total = 0
    for _k, v in d.items():
        total += v
    return x * total + len(d) + d.get("z", 7)
def f_dict_iteration(x):
    d = {"s": x, "c": x * 2}
    return d["s"] + d["c"]
def f_dict_keys_values(x):
    d = {"a": 1, "b": 2}
    return x * sum(d.values()) + len(list(d.keys()))
def f_nested_containers(x):
    cfg = {"layers": [(1, 2), (3, 4)]}
    total = 0
    for a, b in cfg["layers"]:
        total += a * b
    return x * total
def f_tuple_concat(x):
    t = (1, 2) + (3,)
    return x * sum(t) * len(t * 2)
def f_unpack_star(x):
    a, *rest = (1, 2, 3, 4)
    return x * a + sum(rest)
def f_slice_list(x):
    xs = [x, x * 2, x * 3, x * 4]
    return sum(xs[1:3]) + xs[-1]
def f_contains(x):
    names = ("a", "b")
    if "a" in names and "z" not in names:
        return x + 1
    return x
def f_dict_in(x):
    d = {"k": 1}
    return x * 2 if "k" in d else x
def f_list_comprehension(x): return sum([x * i for i in range(4)])
def f_dict_comprehension(x):
    d = {i: x * i for i in range(3)}
    return d[2]
def f_generator_sum(x): return sum([x * i for i in range(3)])
def f_sorted_reversed(x):
    vals = sorted([3, 1, 2])
    return x * vals[0] + x * list(reversed(vals))[0]
def f_enumerate(x):
    out = x
    for i, k in enumerate([2, 3]):
        out = out + i * k
    return out
def f_zip(x, y):
    out = 0
    for a, b in zip([x, y], [1, 2]):
        out = out + a * b
    return out
def f_range_step(x):
    for i in range(10, 0, -3):
        x = x + i
    return x
def f_while_loop(x):
    i = 0
    while i < 3:
        x = x * 1.5
        i += 1
    return x
def f_break_continue(x):
    for i in range(10):
        if i == 1:
            continue
        if i == 4:
            break
        x = x + i
    return x
def f_nested_loops(x):
    for i in range(2):
        for j in range(2):
            x = x + i * j
    return x
def f_for_else(x):
    for _i in range(3):
        x = x + 1
    else:
        x = x * 2
    return x
def f_all_any(x):
    if all([True, 1]) and not any([0, False]):
        return x + 1
    return x
def f_map_filter(x):
    vals = list(map(lambda v: v * 2, [1, 2]))
    odd = list(filter(lambda v: v % 2, [1, 2, 3]))
    return x * sum(vals) + len(odd)
def f_list_of_tensors_len(x):
    xs = [x, x]
    return torch.cat(xs) * len(xs)
def f_size_object(x):
    s = x.size()
    return x.reshape(s[1], s[0]) * s.numel()
def f_torch_size_ctor(x): return x.reshape(torch.Size([x.shape[1], x.shape[0]]))


# --- functions --------------------------------------------------------------------
def helper(x, k=2):
    return x * k


def helper_kw(x, *, scale=1.0, shift=0.0):
    return x * scale + shift


def helper_varargs(*xs, **kw):
    out = sum(xs)
    for v in kw.values():
        out = out + v
    return out


def f_call_helper(x): return helper(x) + helper(x, 3) + helper(x, k=4)
def f_call_kwonly(x): return helper_kw(x, scale=2.0) + helper_kw(x, shift=1.0)
def f_call_varargs(x): return helper_varargs(x, x, a=1, b=2)
def f_call_star(x):
    args = (x, x)
    kw = {"a": 3}
    return helper_varargs(*args, **kw)
def f_closure(x):
    k = 3
    def inner(y):
        return y * k
    return inner(x)
def f_closure_nonlocal(x):
    total = 0
    def add(v):
        nonlocal total
        total = total + v
    add(1)
    add(2)
    return x * total
def f_lambda(x):
    g = lambda v, w=2: v * w
    return g(x) + g(x, 3)
def f_nested_defaults(x):
    def inner(y, scale=2.5):
        return y * scale
    return inner(x) + inner(x, scale=1.0)
def f_recursive_helper(x):
    return fact(4) * x


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def make_scaler(k):
    def scaler(x):
        return x * k
    return scaler


SCALER = make_scaler(5)
GLOBAL_LIST = [1, 2, 3]
GLOBAL_CFG = {"scale": 2.0}


def f_global_closure_fn(x): return SCALER(x)
def f_global_list(x): return x * sum(GLOBAL_LIST)
def f_global_dict(x): return x * GLOBAL_CFG["scale"]
def f_global_module(x): return math.floor(2.5) * x + F.relu(x)


class Point:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def total(self):
        return self.a + self.b

    @property
    def double(self):
        return self.a * 2


PT = Point(2, 3)


def f_object_attrs(x): return x * PT.a + PT.b
def f_object_method(x): return x * PT.total()
def f_object_property(x): return x * PT.double
def f_object_arg(x, p): return x * p.a + p.total()


class Cfg:
    hidden = 4
    act = "relu"


def f_class_attrs(x):
    if Cfg.act == "relu":
        return F.relu(x) * Cfg.hidden
    return x


# --- modules ---------------------------------------------------------------------
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
        self.norm = torch.nn.LayerNorm(4)
        self.register_buffer("offset", torch.ones(4))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = torch.relu(x)
        return self.norm(x) + self.offset


class Seq(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 4))
        self.heads = torch.nn.ModuleDict({"a": torch.nn.Linear(4, 2), "b": torch.nn.Linear(4, 3)})
        self.drop = torch.nn.Dropout(0.0)

    def helper(self, x):
        return self.drop(x) * 2

    def forward(self, x):
        x = self.helper(self.body(x))
        return {k: head(x) for k, head in self.heads.items()}


class Conv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(F.relu(self.bn(self.conv(x)))).flatten(1)


class Attn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.heads = 2

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(torch.ones(t, t).tril() == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return y.transpose(1, 2).contiguous().view(b, t, c)


MLP_M, SEQ_M, CONV_M, ATTN_M = MLP(), Seq(), Conv().eval(), Attn()


def f_mlp(x): return MLP_M(x)
def f_seq(x): return SEQ_M(x)
def f_conv(x): return CONV_M(x)
def f_attn(x): return ATTN_M(x)
def f_module_params(x): return x @ MLP_M.layers[0].weight.t() + MLP_M.layers[0].bias
def f_module_training(x):
    if MLP_M.training:
        return x + 1
    return x - 1


def f_tuple_is_not_none(x):
    pair = (x, x + 1, x * 2)
    return pair[0] + (1 if pair is not None else 0) + (2 if pair is None else 0)


def f_fresh_stateless_module(x):
    return torch.nn.Softmax(dim=-1)(x) + torch.nn.ReLU()(x) + torch.nn.Flatten(0)(x).sum()


CASES = [
    (f_add_const, t(4)), (f_rsub, t(4)), (f_rdiv, t(4)), (f_pow, t(4)), (f_rpow, t(4)),
    (f_floordiv, t(4)), (f_mod, t(4)), (f_neg, t(4)), (f_pos, t(4)), (f_matmul, t(3, 4)),
    (f_inplace_add, t(4)), (f_inplace_mul, t(4)), (f_const_fold, t(4)), (f_float_ops, t(4)),
    (f_operator_module, t(4)), (f_compare_chain, t(4)), (f_bool_ops, t(4)), (f_or_default, t(4)),
    (f_ternary, t(2, 3)), (f_isinstance, t(3)), (f_is_none, t(3)), (f_abs_builtin, t(3)),
    (f_min_max_const, t(3)), (f_round_divmod, t(3)), (f_string_ops, t(3)), (f_fstring, t(3)),
    (f_int_float, t(3)),
    (f_shape, t(2, 3, 4)), (f_size_call, t(2, 3)), (f_dim_ndim, t(2, 3)), (f_dtype_branch, t(3)),
    (f_device, t(3)), (f_numel, t(2, 3)), (f_shape_unpack, t(2, 3)), (f_len_tensor, t(5, 2)),
    (f_requires_grad, t(3)), (f_is_floating, t(3)), (f_T, t(3, 2)),
    (f_methods, t(3, 4)), (f_torch_fns, t(3, 4)), (f_functional, t(3, 4)), (f_getitem_int, t(3, 4)),
    (f_getitem_slice, t(4, 6)), (f_getitem_none, t(2, 3)), (f_getitem_tensor, t(4, 3)),
    (f_setitem, t(3, 2)), (f_setitem_slice, t(3, 2)), (f_chunk_unpack, t(2, 4)), (f_split_loop, t(3, 2)),
    (f_max_dim, t(3, 4)), (f_factories, t(2, 3)), (f_where, t(5)), (f_type_conversion, t(4)),
    (f_stack_list, t(3)), (f_einsum, t(2, 3)), (f_iter_tensor, t(3, 4)), (f_tensor_method_kwargs, t(2, 3)),
    (f_tensor_ops_chain, t2(3)), (f_comparison_tensors, t2(4)), (f_unary_not_tensor_ok, t(4)),
    (f_tuple_return, t(3)), (f_list_return, t(3)), (f_dict_return, t(3)), (f_list_ops, t(3)),
    (f_list_index_len, t(3)), (f_dict_ops, t(3)), (f_dict_iteration, t(3)), (f_dict_keys_values, t(3)),
    (f_nested_containers, t(3)), (f_tuple_concat, t(3)), (f_unpack_star, t(3)), (f_slice_list, t(3)),
    (f_contains, t(3)), (f_dict_in, t(3)), (f_list_comprehension, t(3)), (f_dict_comprehension, t(3)),
    (f_generator_sum, t(3)), (f_sorted_reversed, t(3)), (f_enumerate, t(3)), (f_zip, t2(3)),
    (f_range_step, t(3)), (f_while_loop, t(3)), (f_break_continue, t(3)), (f_nested_loops, t(3)),
    (f_for_else, t(3)), (f_all_any, t(3)), (f_map_filter, t(3)), (f_list_of_tensors_len, t(3)),
    (f_size_object, t(2, 3)), (f_torch_size_ctor, t(2, 3)),
    (f_call_helper, t(3)), (f_call_kwonly, t(3)), (f_call_varargs, t(3)), (f_call_star, t(3)),
    (f_closure, t(3)), (f_closure_nonlocal, t(3)), (f_lambda, t(3)), (f_nested_defaults, t(3)),
    (f_recursive_helper, t(3)), (f_global_closure_fn, t(3)), (f_global_list, t(3)), (f_global_dict, t(3)),
    (f_global_module, t(3)), (f_object_attrs, t(3)), (f_object_method, t(3)), (f_object_property, t(3)),
    (f_object_arg, lambda: (torch.randn(3), Point(1, 2))), (f_class_attrs, t(3)),
    (f_mlp, t(2, 4)), (f_seq, t(2, 4)), (f_conv, t(2, 3, 5, 5)), (f_attn, t(2, 3, 8)),
    (f_module_params, t(2, 4)), (f_module_training, t(2, 4)),
    (f_tuple_is_not_none, t(3)), (f_fresh_stateless_module, t(2, 3)),
]


@pytest.mark.parametrize("fn, make_args", CASES, ids=[c[0].__name__ for c in CASES])
def test_matches_eager_in_one_graph(fn, make_args):
    h = check(fn, make_args)
    assert h.breaks == [], [str(b) for b in h.breaks]
    assert h.captures == 1
    assert len(h.backend.graphs) == 1


def test_modules_made_in_the_function_with_state_or_escaping_run_in_python():
    """A module with parameters draws random weights per call, one returned must be a new
    object per call: both run in Python (a break), and still match eager."""
    def with_params(x):
        torch.manual_seed(0)
        return torch.nn.Linear(3, 2)(x)

    def escaping(x):
        act = torch.nn.ReLU()
        return act(x), act

    h = check(with_params, t(2, 3))
    assert any("parameters or random state" in b.reason for b in h.breaks)
    import autograph  # default on_error: the function runs eagerly, never sharing one module
    f = autograph.compile(escaping, backend="eager")
    (_y1, m1), (_y2, m2) = f(torch.randn(3)), f(torch.randn(3))
    assert isinstance(m1, torch.nn.ReLU) and m1 is not m2


class _Color(str, __import__("enum").Enum):
    RED = "red"
    BLUE = "blue"


class _Level(__import__("enum").IntEnum):
    LOW = 1
    HIGH = 2


class _Tag(str):
    pass


def _uses_enum_and_subclassed_constants(x, color, level, tag):
    return x + (1 if color == _Color.RED else 2) + level * 10 + len(tag)


def test_enum_members_and_literal_subclasses_are_guarded_by_value():
    """A str/int subclass (a str-enum, an IntEnum, a str subclass) is folded like a constant,
    so it needs a value guard, not just a type guard: each new value recaptures."""
    h = Harness()
    f = h.compile(_uses_enum_and_subclassed_constants)
    x = torch.zeros(1)
    calls = [(_Color.RED, _Level.LOW, _Tag("ab")), (_Color.BLUE, _Level.LOW, _Tag("ab")),
             (_Color.RED, _Level.HIGH, _Tag("ab")), (_Color.RED, _Level.LOW, _Tag("abcd"))]
    for args in calls:
        torch.testing.assert_close(f(x, *args), _uses_enum_and_subclassed_constants(x, *args))
    assert h.captures == len(calls)
    f(x, *calls[0])
    assert h.captures == len(calls)


def _enum_live_at_break(x, color):
    y = x + 1
    print("break", end="")  # a graph break with the enum member still live
    return y + (1 if color is _Color.RED else 2)


def test_enum_member_live_at_a_break_is_rebuilt(capsys):
    h = Harness()
    f = h.compile(_enum_live_at_break)
    torch.testing.assert_close(f(torch.zeros(1), _Color.BLUE), torch.full((1,), 3.0))
    assert h.breaks


_BY_COLOR = {_Color.RED: 10, _Color.BLUE: 20}


def _enum_keyed_lookup(x, color):
    return x + _BY_COLOR[color]


def test_dict_keyed_by_enum_members_is_read_without_a_break():
    h = Harness()
    f = h.compile(_enum_keyed_lookup)
    for color in (_Color.RED, _Color.BLUE, _Color.RED):
        torch.testing.assert_close(f(torch.zeros(1), color), _enum_keyed_lookup(torch.zeros(1), color))
    assert not h.breaks and h.captures == 2


def _uses_folded_objects(x, r, fs, mf):
    for i in r:
        x = x + i
    return x + len(fs) * 100 + (1000 if mf is torch.channels_last else 0)


def test_ranges_frozensets_and_memory_formats_are_guarded_by_value():
    h = Harness()
    f = h.compile(_uses_folded_objects)
    calls = [(range(3), frozenset({1}), torch.contiguous_format), (range(5), frozenset({1}), torch.contiguous_format),
             (range(3), frozenset({1, 2}), torch.contiguous_format), (range(3), frozenset({1}), torch.channels_last)]
    for args in calls:
        torch.testing.assert_close(f(torch.zeros(1), *args), _uses_folded_objects(torch.zeros(1), *args))
    assert h.captures == len(calls)
