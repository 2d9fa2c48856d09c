"""The loop IR is target-neutral: lowerings compute with the ops protocol (``ops.py``) only.

Only ``codegen.py`` writes Triton; lowering never imports it. Here a second ops handler,
written with torch scalars, runs the same lowered IR as a reference interpreter and must give
eager's results: an IR holding Triton text (or reaching into the kernel writer) could not run.
"""
from __future__ import annotations

import ast
import itertools
import math
import subprocess
import sys
from pathlib import Path

import pytest
import sympy
import torch

import autograph
from autograph.backends.triton.indexing import FloorDiv, ModularIndexing
from autograph.backends.triton.ir import ExternItem, PointwiseItem, ReductionItem
from autograph.backends.triton.ops import HALF_DTYPES, OpsHandler, compute_dtype, op_names

PACKAGE = Path(autograph.__file__).resolve().parent / "backends" / "triton"
PREFIX = "autograph.backends.triton"
# the lowering side of the backend: aten graph -> loop IR, with no knowledge of the target
LOWERING_MODULES = ["lower.py", *sorted(f"lowerings/{p.name}" for p in (PACKAGE / "lowerings").glob("*.py"))]


# -- imports ------------------------------------------------------------------------------------
def _imports(path: Path) -> list[tuple[str, int]]:
    """Modules ``path`` imports anywhere (top level, inside functions, ``importlib.import_module``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))  # the package itself ...
            found += [(f"{node.module}.{a.name}", node.lineno) for a in node.names]  # ... or its submodules
        elif isinstance(node, ast.ImportFrom):
            raise AssertionError(f"{path}:{node.lineno}: relative import (this test reads absolute ones)")
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)):
            found.append((node.args[0].value, node.lineno))
    return found


def _module_path(name: str) -> Path | None:
    if not name.startswith(PREFIX + "."):
        return None
    rel = Path(*name[len(PREFIX) + 1:].split("."))
    for candidate in (PACKAGE / rel.with_suffix(".py"), PACKAGE / rel / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


@pytest.mark.parametrize("module", LOWERING_MODULES)
def test_lowering_modules_do_not_import_codegen(module):
    """Neither the module nor anything of the backend it imports (transitively) imports codegen."""
    start = PACKAGE / module
    seen, stack, offending = {start}, [(start, [])], []
    while stack:
        path, chain = stack.pop()
        for name, line in _imports(path):
            where = chain + [f"{path.relative_to(PACKAGE)}:{line}"]
            if name == f"{PREFIX}.codegen":
                offending.append(" -> ".join(where))
            target = _module_path(name)
            if target is not None and target not in seen:
                seen.add(target)
                stack.append((target, where))
    assert offending == [], f"{module} reaches codegen through " + "; ".join(offending)


def test_importing_the_lowerings_loads_no_codegen():
    """The same, as Python sees it: a fresh interpreter importing lower.py never loads codegen."""
    code = ("import sys, autograph.backends.triton.lower as l; "
            "assert l.LOWERINGS; print('autograph.backends.triton.codegen' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False"


def test_triton_handler_implements_every_op():
    from autograph.backends.triton.codegen import TritonOps

    missing = [n for n in op_names() if getattr(TritonOps, n) is getattr(OpsHandler, n)]
    assert missing == []


# -- a second handler: the IR evaluated element by element with torch scalars ---------------------
def _concrete(expr) -> int:
    expr = sympy.sympify(expr).replace(FloorDiv, lambda a, b: a // b).replace(ModularIndexing, lambda a, b: a % b)
    return int(expr)


class EvalOps(OpsHandler):
    """Each value is a 0-d tensor in its compute dtype; loads read real tensors (``memory``).

    Inside a ``masked`` body whose mask is false, loads read 0 (no memory is touched), as the
    target's masked loads do."""

    def __init__(self, memory: dict[str, torch.Tensor]):
        self.memory = memory
        self.masked_off = 0

    def load(self, buffer, index):
        dtype = compute_dtype(buffer.dtype)
        if self.masked_off:
            return torch.zeros((), dtype=dtype)
        t = self.memory[buffer.name]
        return torch.as_strided(t, (), (), t.storage_offset() + _concrete(buffer.flat_index(index))).to(dtype)

    def constant(self, value, dtype):
        return torch.tensor(value, dtype=compute_dtype(dtype))

    def index_expr(self, expr, dtype):
        return torch.tensor(_concrete(expr), dtype=dtype)

    def masked(self, mask, body, other):
        if bool(mask):
            return body()
        self.masked_off += 1
        try:
            value = body()
        finally:
            self.masked_off -= 1
        return value if other is None else other.to(value.dtype)

    def to_dtype(self, x, dtype, src_dtype=None):
        if dtype == torch.bool:
            return x != 0
        if dtype in HALF_DTYPES:
            return x.to(dtype).to(torch.float32)
        return x.to(compute_dtype(dtype))

    def where(self, cond, a, b):
        return torch.where(cond, a, b)

    def mod(self, a, b):
        return torch.remainder(a, b)

    def fmod(self, a, b):
        return torch.fmod(a, b)

    def reciprocal(self, x):
        return 1 / x

    def isnan(self, x):
        return torch.isnan(x)

    def logical_not(self, x):
        return x == 0


_PYTHON_OPS = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "truediv": "__truediv__", "neg": "__neg__",
               "eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__", "ge": "__ge__",
               "and_": "__and__", "or_": "__or__", "xor": "__xor__"}


def _python_op(method: str):
    return lambda self, first, *rest: getattr(first, method)(*rest)


def _torch_op(fn):
    return lambda self, *args: fn(*args)


for _name, _method in _PYTHON_OPS.items():
    setattr(EvalOps, _name, _python_op(_method))
for _name in ["abs", "maximum", "minimum", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
              "sin", "cos", "tanh", "sigmoid", "erf", "floor", "ceil", "trunc"]:
    setattr(EvalOps, _name, _torch_op(getattr(torch, _name)))

_REDUCE = {"sum": torch.sum, "prod": torch.prod, "max": torch.amax, "min": torch.amin,
           "argmax": torch.argmax, "argmin": torch.argmin}


def run_ir(lowered, inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    """Run a lowered graph's items in order with :class:`EvalOps`; its outputs."""
    memory = {buf.name: x for buf, x in zip(lowered.inputs, inputs)}
    ops = EvalOps(memory)

    def elements(value, shape):
        return [value.load(ops, [sympy.Integer(i) for i in idx]) for idx in itertools.product(*map(range, shape))]

    for item in lowered.items:
        assert not isinstance(item, ExternItem), item.reason  # the test graphs lower completely
        buf = item.buffer
        out = torch.empty_strided(buf.shape, buf.stride, dtype=buf.dtype)
        if isinstance(item, PointwiseItem):
            values = torch.stack(elements(item.value, buf.shape)) if buf.shape else elements(item.value, ())[0]
        else:
            assert isinstance(item, ReductionItem)
            x = torch.stack(elements(item.input, item.input.shape)).reshape(item.input.shape)
            keep = [d for d in range(x.dim()) if d not in item.rdims]
            x = x.permute(*keep, *item.rdims).reshape(*item.xshape, math.prod(item.rshape))
            if item.kind not in ("argmax", "argmin"):
                x = x.to(compute_dtype(buf.dtype))
            values = _REDUCE[item.kind](x, -1)
        out.copy_(values.reshape(buf.shape))
        memory[buf.name] = out
    return [memory[o.name] for o in lowered.outputs]


def _elementwise(x, i, h):
    return (torch.where(x > 0, x, x * 0.1).clamp(-1, 1), x.relu(), x.sign() + i.sign(), x.pow(3) + x.abs().pow(2.5),
            torch.maximum(x, x.flip(0)), torch.div(x, 0.3, rounding_mode="floor"), torch.div(x, 0.3, rounding_mode="trunc"),
            i * 3 + 1, (x > 0.5) & (i > 2), ~(x > 0), i.to(torch.bool), h * 2, h.float() + x, x.half(),
            x.tanh() + x.abs().log1p() + x.sigmoid() + x.erf() + x.exp2() + x.abs().rsqrt(), torch.logical_xor(i, x < 0))


def _masked(x, y):
    return (torch.nn.functional.pad(torch.cat([x, y * 2, x.sin()], 1), (1, 2), value=0.5),
            torch.slice_scatter(x, y, 1, 1, 5, 2), torch.arange(4) * x[0, :4], torch.full_like(x, 3.0) + x)


def _reductions(x):
    return (x.sum(-1), x.mean(0), (x * 0.5 + 1).prod(-1), x.amax(-1), x.argmax(-1), x.argmin(0), x.var(-1),
            torch.softmax(x, -1), (x > 0).any(-1), (x > 0).all(0), x.var(0, correction=0.5))


GRAPHS = {
    "elementwise": (_elementwise, lambda: [torch.tensor([[0.5, -2.0, float("nan")], [2.9, -0.1, 0.0]]),
                                           torch.tensor([[1, 4, -3], [0, 7, 2]]), torch.randn(2, 3).half()]),
    "masked": (_masked, lambda: [torch.randn(3, 5), torch.randn(3, 2)]),
    "reductions": (_reductions, lambda: [torch.randn(3, 5)]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_the_ir_runs_with_another_ops_handler(name):
    from torch.fx.experimental.proxy_tensor import make_fx

    from autograph.backends.triton.backend import decompositions
    from autograph.backends.triton.lower import Lowering

    fn, make_inputs = GRAPHS[name]
    torch.manual_seed(0)
    inputs = make_inputs()
    gm = make_fx(fn, decomposition_table=decompositions())(*inputs)
    got = run_ir(Lowering(gm).run(), inputs)
    want = fn(*inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5, equal_nan=True)
