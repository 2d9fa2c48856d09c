"""Mutation and aliasing through the functionalizing backends (triton: interpreter on CPU; inductor).

The caller's tensors end as eager leaves them (values *and* sizes, strides, requires_grad),
in-place results and views of inputs keep eager's identity and liveness, the same tensor
passed twice gets its own entry, and nothing depends on PYTHONHASHSEED.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import autograph

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["triton", pytest.param("inductor", marks=pytest.mark.slow)]


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path):
    from autograph.settings import current_settings, loaded_settings, set_current_settings

    if request.param == "triton":
        pytest.importorskip("triton")
    before = loaded_settings()
    set_current_settings(current_settings().model_copy(update={"cache_dir": tmp_path / "cache"}))
    autograph.reset()
    yield request.param
    autograph.reset()
    set_current_settings(before)


def _state(t: torch.Tensor):
    return tuple(t.shape), t.stride(), t.requires_grad, t.detach().flatten().tolist()


def assert_like_eager(fn, make_args, backend, calls=2, same_args=False):
    """Compiled and eager calls leave equal results and equal arguments (values and metadata).

    ``same_args``: call repeatedly with the *same* tensors (each call sees the last one's effects)."""
    cf = autograph.compile(fn, backend=backend)
    args = make_args()
    eager_args = [a.clone() for a in args]
    for i in range(calls):
        if not same_args and i:
            args = make_args()
            eager_args = [a.clone() for a in args]
        expected = fn(*eager_args)
        got = cf(*args)
        assert [_state(a) for a in args] == [_state(a) for a in eager_args], f"call {i}: arguments differ"
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = got if isinstance(got, tuple) else (got,)
        for g, e in zip(got, expected):
            if isinstance(e, torch.Tensor):
                assert (tuple(g.shape), g.stride(), g.requires_grad) == (tuple(e.shape), e.stride(), e.requires_grad)
                assert torch.allclose(g.detach(), e.detach())
            else:
                assert g == e
    assert all(e.startswith("dynamic capture failed, compiled with static sizes") for e in cf.stats.errors), \
        cf.stats.errors
    return cf


def _arange(*shapes):
    return lambda: [torch.arange(float(torch.Size(s).numel())).reshape(s) for s in shapes]


# --- 1. a mutating call whose result is unused ---------------------------------------------

def f_add_out(x, o):
    torch.add(x, 1, out=o)
    return x * 2


def f_matmul_out(a, b, o):
    torch.matmul(a, b, out=o)
    return a + 1


def f_cat_sum_addmm_out(a, b, c, o1, o2, o3):
    torch.cat([a, b], out=o1)
    torch.sum(a, 0, out=o2)
    torch.addmm(c, a, b, out=o3)
    return a + 1


def f_relu_inplace(x, t):
    F.relu(t, inplace=True)
    return x + 1


def f_inplace_through_a_view(x, t):
    t[0].mul_(2)
    t.add_(x)
    return x * 3


MUTATING = [
    (f_add_out, _arange((3,), (3,))),
    (f_matmul_out, _arange((2, 2), (2, 2), (2, 2))),
    (f_cat_sum_addmm_out, lambda: [torch.randn(2, 2), torch.randn(2, 2), torch.randn(2, 2),
                                   torch.zeros(4, 2), torch.zeros(2), torch.zeros(2, 2)]),
    (f_relu_inplace, lambda: [torch.randn(4), torch.randn(4)]),
    (f_inplace_through_a_view, _arange((2, 3), (2, 3))),
]


@pytest.mark.parametrize("fn, make_args", MUTATING, ids=[f.__name__ for f, _ in MUTATING])
def test_mutating_call_with_unused_result_reaches_the_callers_tensor(backend, fn, make_args):
    torch.manual_seed(0)
    assert_like_eager(fn, make_args, backend)


# --- 2. identity of in-place results, live views of inputs ---------------------------------

def test_inplace_result_is_the_input(backend):
    def f(x):
        y = x.add_(1)
        return y is x, y

    x = torch.ones(3)
    same, y = autograph.compile(f, backend=backend)(x)
    assert same is True and y is x and torch.equal(x, torch.full((3,), 2.0))


@pytest.mark.parametrize("view", [lambda x: x[0], lambda x: x.view(-1), lambda x: x.t()], ids=["getitem", "view", "t"])
def test_returned_view_of_an_input_is_live(backend, view):
    cf = autograph.compile(lambda x: (x * 2, view(x)), backend=backend)
    x = torch.ones(2, 2)
    _, v = cf(x)
    v.add_(5)
    expected = torch.ones(2, 2)
    view(expected).add_(5)
    assert torch.equal(x, expected)


# --- 3. the same tensor for two parameters ---------------------------------------------------

def f_write_a_read_b(a, b):
    a.add_(1)
    return b * 2


def test_same_tensor_twice_after_an_entry_for_distinct_tensors(backend):
    cf = autograph.compile(f_write_a_read_b, backend=backend)
    assert torch.equal(cf(torch.zeros(3), torch.zeros(3)), torch.zeros(3))
    a = torch.zeros(3)
    assert torch.equal(cf(a, a), torch.full((3,), 2.0))
    assert torch.equal(a, torch.ones(3))
    assert torch.equal(cf(torch.zeros(3), torch.zeros(3)), torch.zeros(3))  # the first entry still serves


@pytest.mark.parametrize("views", [lambda x: (x[:6], x[:6]), lambda x: (x[:6], x[2:8]), lambda x: (x[4:10], x)],
                         ids=["same-view", "overlapping", "view-and-base"])
def test_inputs_sharing_memory(backend, views):
    cf = autograph.compile(f_write_a_read_b, backend=backend)
    cf(torch.zeros(6), torch.zeros(6))  # an entry for separate tensors first
    x, y = torch.zeros(12), torch.zeros(12)
    got = cf(*views(x))
    expected = f_write_a_read_b(*views(y))
    assert torch.equal(got, expected) and torch.equal(x, y)


class _WithBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.zeros(3))

    def forward(self, x):
        x.add_(1)
        return self.w * 2


def test_input_that_is_a_buffer_of_the_graph(backend):
    m = _WithBuffer()
    forward = autograph.compile(m.forward, backend=backend)
    assert torch.equal(forward(torch.zeros(3)), torch.zeros(3))
    assert torch.equal(forward(m.w), torch.full((3,), 2.0))  # x *is* the buffer the graph reads


# --- 4. metadata mutations of inputs ----------------------------------------------------------

def f_requires_grad_(x):
    x.requires_grad_(True)
    return x * 2


def f_t_(x):
    x.t_()
    return x * 3


def f_t_then_view(x, y):
    x.t_()
    return x.sum(1), x.transpose(0, 1)


def f_resize_(x):
    x.resize_(2, 2)
    return x + 1


def f_as_strided_(x):
    x.as_strided_((2, 2), (1, 2))
    return x * 2


def f_set_(x, y):
    x.set_(y)
    return x + 1


def f_unsqueeze_mul_(x):
    x.unsqueeze_(0).mul_(2)
    return x.sum()


def f_detach_(x):
    y = x * 2
    x.detach_()
    return y


METADATA = [
    (f_requires_grad_, _arange((3,))),
    (f_t_, _arange((2, 3))),
    (f_t_then_view, _arange((2, 3), (2, 4))),
    (f_resize_, _arange((6,))),
    (f_as_strided_, _arange((6,))),
    (f_set_, _arange((6,), (2, 2))),
    (f_unsqueeze_mul_, _arange((2, 3))),
    (f_detach_, lambda: [torch.ones(3, requires_grad=True) * 1]),
]


@pytest.mark.parametrize("fn, make_args", METADATA, ids=[f.__name__ for f, _ in METADATA])
def test_input_metadata_mutation_reaches_the_callers_tensor(backend, fn, make_args):
    assert_like_eager(fn, make_args, backend)


def test_t_on_the_same_tensor_call_after_call(backend):
    """The 2nd call sees a transposed input (a size change: a dynamic capture is attempted)."""
    assert_like_eager(f_t_, _arange((2, 3)), backend, calls=3, same_args=True)


# --- nothing depends on hash order ------------------------------------------------------------

SCRIPT = textwrap.dedent("""
    import json, os, re, sys
    os.environ["TRITON_INTERPRET"] = "1"
    import torch, autograph
    import torch.nn.functional as F

    def t_(x):
        x.t_()
        return x * 3

    def dyn(x, w):
        return F.softmax(x * w.sum(), -1) + x.mean(0, keepdim=True)

    def mut(a, b, o):
        torch.add(a, b, out=o)
        a.mul_(2).unsqueeze_(0)
        return b.t().contiguous()

    out = []
    for fn, calls in ((t_, [[torch.arange(6.).reshape(2, 3)]] * 3),
                      (dyn, [[torch.arange(float(n * 4)).reshape(n, 4) / 7, torch.ones(4)] for n in (2, 3, 5)]),
                      (mut, [[torch.arange(6.).reshape(2, 3), torch.ones(2, 3), torch.zeros(2, 3)]] * 2)):
        cf = autograph.compile(fn, backend=sys.argv[1])
        for args in calls:
            r = cf(*args)
            out.append([(tuple(t.shape), t.stride(), [round(v, 5) for v in t.flatten().tolist()])
                        for t in [r, *args]])
        text = str(autograph.inspect(cf))
        out.append(re.sub(r"0x[0-9a-f]+|\\b\\d{9,}\\b|__compiled_fn_\\d+|/tmp/\\S+", "<id>", text))
    print(json.dumps(out))
""")


def _run_with_hash_seed(seed: int, backend: str, cache_dir: Path) -> list:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=str(seed), AUTOGRAPH_CACHE_DIR=str(cache_dir),
               TORCHINDUCTOR_CACHE_DIR=str(cache_dir / "inductor"))  # both runs compile from scratch
    out = subprocess.run([sys.executable, "-c", SCRIPT, backend], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["triton", pytest.param("inductor", marks=pytest.mark.slow)])
def test_results_and_generated_code_do_not_depend_on_hash_seed(name, tmp_path):
    if name == "triton":
        pytest.importorskip("triton")
    first = _run_with_hash_seed(0, name, tmp_path / "a")
    second = _run_with_hash_seed(1, name, tmp_path / "b")
    assert first == second


# --- effects AOTAutograd does not carry over: the graph runs as captured ---------------------

def test_graph_with_a_collective_is_compiled_with_functional_collectives(backend, caplog):
    import logging
    import socket

    import torch.distributed as dist

    if not dist.is_available():
        pytest.skip("torch.distributed is not available")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(s.getsockname()[1]))
    dist.init_process_group("gloo", rank=0, world_size=1)
    try:
        def f(x, t):
            dist.all_reduce(t)
            return x + 1

        with caplog.at_level(logging.INFO, logger="autograph.kernels"):
            t = torch.ones(3)
            assert torch.equal(autograph.compile(f, backend=backend)(torch.ones(3), t), torch.full((3,), 2.0))
        # dist.all_reduce became _c10d_functional.all_reduce + copy_ (capture/families/distributed.py),
        # which AOTAutograd compiles: the graph does not fall back to running as captured
        assert "runs as captured" not in caplog.text and torch.equal(t, torch.ones(3))
    finally:
        dist.destroy_process_group()
