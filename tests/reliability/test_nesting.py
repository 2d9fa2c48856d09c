"""A function with a long run of graph breaks becomes a chain of resume functions, one level
of nesting per break; past ``MAX_NESTING`` the shims run the original code, so the chain never
exhausts the interpreter's recursion limit (seen on transformers' ``post_init`` under the hook)."""
import sys

import torch

import autograph
from autograph.runtime import shim as runtime_shim

LOG = []
BREAKS = 3 * runtime_shim.MAX_NESTING


def _many_breaks():
    body = "".join(f"    x = x + {i}\n    LOG.append({i})\n" for i in range(BREAKS))
    ns = {"LOG": LOG}
    exec(compile(f"def chain(x):\n{body}    return x\n", "<chain>", "exec"), ns)
    return ns["chain"]


def test_long_break_chain_runs_without_recursion_error(eager_settings):
    fn = _many_breaks()
    compiled = autograph.compile(fn)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(600)  # well below what BREAKS unbounded levels would need
    try:
        for _ in range(2):
            LOG.clear()
            x = torch.zeros(2)
            torch.testing.assert_close(compiled(x), x + sum(range(BREAKS)))
            assert LOG == list(range(BREAKS))
    finally:
        sys.setrecursionlimit(limit)
    assert runtime_shim.nesting() == 0, "nesting is balanced after the calls"
