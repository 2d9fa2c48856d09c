#!/usr/bin/env python
"""Kernel sources of a few representative graphs, saved and compared across a change.

A refactor of the Triton backend's lowering or code generator should not change the kernels
it writes: save them before (``save before.json`` on the old tree), compare after
(``compare before.json`` on the new tree). Each graph is generated for the CPU interpreter and
for CUDA (no GPU needed: only the source is made), forward and, for some, backward (AOTAutograd).

Kernels are compared as text, and, when the text differs, as Python syntax trees (which ignore
redundant parentheses and spacing): ``compare`` exits 1 if a kernel's name, count or tree
differs, and prints the first differing lines of each.

    PYTHONPATH=. python scripts/triton_golden.py save /tmp/before.json
    PYTHONPATH=. python scripts/triton_golden.py compare /tmp/before.json
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TRITON_INTERPRET", "1")


def graphs():
    """(name, fn, inputs, with_backward, symbolic) for each representative graph."""
    import torch
    import torch.nn.functional as F

    def gelu_mlp(x, w1, b1, w2):
        return F.linear(F.gelu(F.linear(x, w1, b1)), w2)

    def layer_norm(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b)

    def softmax(x, m):
        return torch.softmax(x.masked_fill(m, float("-inf")), -1), torch.log_softmax(x * 0.5, -1)

    def cat_pad(x, y):
        return F.pad(torch.cat([x, y * 2, x.sin()], 1), (1, 2), value=0.5), torch.cat([x, y], 0).t() + 1

    def argmax(x):
        return x.argmax(-1), x.argmin(0), x.max(-1).values, x.amin(-1)

    def elementwise(x, i, h):
        return (torch.where(x > 0, x, x * 0.1).clamp(-1, 1), x.clamp_min(0.2), x.pow(3), x.pow(-2),
                x.sign(), torch.div(x, 0.3, rounding_mode="trunc"), torch.div(x, 0.3, rounding_mode="floor"),
                torch.maximum(x, x.flip(0)), x.relu(), x.tanh() + x.log1p().abs(), i * 3 + 1, i // 2,
                h * 2, h.float() + x, x.half(), (x > 0.5) & (i > 2), ~(x > 0), i.to(torch.bool), x.isnan())

    def elementwise_more(x, i, b):
        return (torch.logical_and(x > 0, i), torch.logical_or(b, x < 0), torch.logical_xor(i, b), i & 6, i | 1, i ^ 3,
                x == 0.5, x <= 0.1, x >= i, -i, i.abs(), x.exp2() + x.log2() + x.log10() + x.expm1(),
                x.abs().sqrt() + x.abs().rsqrt() + x.sigmoid() + x.erf() + x.cos() + x.reciprocal(),
                x.floor() + x.ceil() + x.trunc(), torch.minimum(x, x * 2), x.clamp_max(0.3),
                x.clamp(x * 0.5, x * 2), i.clamp(2, 5), i.relu() + torch.maximum(i, 3 - i), x.pow(0) + x.pow(0.5) + x.pow(-0.5) + x.abs().pow(2.5),
                torch.pow(2.0, x), b.float() * 2, b.to(torch.float16), x.to(torch.float64), i.to(torch.float16),
                torch.rsub(x, 1.0, alpha=2), torch.add(x, x, alpha=3), torch.sub(i, i, alpha=2),
                torch.where(b, 1.0, x), torch.where(b, x, 0), torch.scalar_tensor(2.0) + x, x.sign() + i.sign())

    def fills(x):
        n = x.shape[0]
        return (torch.arange(n, device=x.device) * x[:, 0], torch.arange(0.0, n, 0.5, device=x.device)[:n] + x[:, 1],
                torch.full_like(x, 3.0) + x, torch.ones(n, 4, dtype=torch.int64) + x.long())

    def scatter(x, y):
        return torch.slice_scatter(x, y, 1, 2, 6, 2), x.var(-1), torch.var_mean(x, 0), (x > 0).any(-1), (x > 0).all(0)

    def reductions(x):
        return x.sum(-1), x.mean(0), x.prod(-1), (x * 0.5 + 1).prod(-1), x.amax(-1)

    yield "gelu_mlp", gelu_mlp, [torch.randn(8, 32), torch.randn(64, 32), torch.randn(64), torch.randn(16, 64)], True, False
    yield "layer_norm", layer_norm, [torch.randn(8, 64), torch.randn(64), torch.randn(64)], True, False
    yield "softmax", softmax, [torch.randn(8, 64), torch.rand(8, 64) > 0.7], True, False
    yield "softmax_long", softmax, [torch.randn(4, 3000), torch.rand(4, 3000) > 0.7], False, False
    yield "cat_pad", cat_pad, [torch.randn(4, 8), torch.randn(4, 8)], True, False
    yield "argmax", argmax, [torch.randn(8, 64)], False, False
    yield "elementwise", elementwise, [torch.randn(16, 8), torch.randint(0, 9, (16, 8)), torch.randn(16, 8).half()], False, False
    yield "elementwise_more", elementwise_more, [torch.randn(16, 8), torch.randint(0, 9, (16, 8)),
                                                 torch.rand(16, 8) > 0.5], False, False
    yield "fills", fills, [torch.randn(6, 4)], False, False
    yield "scatter", scatter, [torch.randn(8, 10), torch.randn(8, 2)], False, False
    yield "reductions", reductions, [torch.randn(8, 2000)], False, False
    yield "layer_norm_symbolic", layer_norm, [torch.randn(6, 40), torch.randn(40), torch.randn(40)], False, True
    yield "softmax_symbolic", softmax, [torch.randn(6, 40), torch.rand(6, 40) > 0.7], False, True
    yield "cat_pad_symbolic", cat_pad, [torch.randn(4, 8), torch.randn(4, 8)], False, True


def aten_graphs(fn, inputs, with_backward: bool, symbolic: bool) -> list:
    """The aten graphs the backend compiles for ``fn``: forward (and backward) via AOTAutograd."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    from autograph.backends.triton.backend import decompositions

    if not with_backward:
        mode = "symbolic" if symbolic else "real"
        return [make_fx(fn, decomposition_table=decompositions(), tracing_mode=mode)(*inputs)]
    from functorch.compile import aot_function, make_boxed_func

    out: list = []

    def keep(gm, _):
        out.append(gm)
        return make_boxed_func(gm.forward)

    leaves = [t.detach().requires_grad_(t.is_floating_point()) for t in inputs]
    result = aot_function(fn, fw_compiler=keep, bw_compiler=keep, decompositions=decompositions())(*leaves)
    sum(r.float().sum() for r in torch.utils._pytree.tree_leaves(result) if r.requires_grad).backward()
    return out


def generate() -> dict:
    """``{graph: [{"gpu": bool, "kernels": [[name, source]], "wrapper": str}, ...]}``."""
    from autograph.backends.triton.backend import TritonBackend

    record: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        backend = TritonBackend(tmp)
        for name, fn, inputs, with_backward, symbolic in graphs():
            entries = []
            for gm in aten_graphs(fn, inputs, with_backward, symbolic):
                for gpu in (False, True):
                    generated = backend._generate(gm, gpu=gpu)
                    entries.append({"gpu": gpu, "kernels": generated["kernels"], "wrapper": generated["wrapper"]})
            record[name] = entries
    return record


def _tree(source: str) -> str:
    return ast.dump(ast.parse(source))


def compare(before: dict, after: dict) -> list[str]:
    """Differences, one line each (plus a short diff); empty when every kernel has the same tree."""
    problems: list[str] = []
    same_text = 0
    total = 0
    for graph, old_entries in before.items():
        new_entries = after.get(graph)
        if new_entries is None or len(new_entries) != len(old_entries):
            problems.append(f"{graph}: {len(old_entries)} generated graphs before, "
                            f"{len(new_entries or [])} after")
            continue
        for old, new in zip(old_entries, new_entries):
            where = f"{graph} ({'gpu' if old['gpu'] else 'cpu'})"
            if [n for n, _ in old["kernels"]] != [n for n, _ in new["kernels"]]:
                problems.append(f"{where}: kernels {[n for n, _ in old['kernels']]} became {[n for n, _ in new['kernels']]}")
                continue
            for (kname, a), (_, b) in zip(old["kernels"] + [["wrapper", old["wrapper"]]],
                                         new["kernels"] + [["wrapper", new["wrapper"]]]):
                total += 1
                if a == b:
                    same_text += 1
                    continue
                if _tree(a) == _tree(b):
                    continue
                diff = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0))[2:14]
                problems.append(f"{where} {kname}: different program\n    " + "\n    ".join(diff))
    print(f"{total} sources compared: {same_text} identical text, "
          f"{total - same_text - len(problems)} same syntax tree, {len(problems)} different")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["save", "compare"])
    parser.add_argument("path")
    args = parser.parse_args()
    generated = generate()
    if args.action == "save":
        Path(args.path).write_text(json.dumps(generated, indent=1))
        print(f"saved {sum(len(e['kernels']) for g in generated.values() for e in g)} kernels to {args.path}")
        return 0
    problems = compare(json.loads(Path(args.path).read_text()), generated)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
