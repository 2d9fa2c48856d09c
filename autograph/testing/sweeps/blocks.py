"""Block sweep: every stdlib context manager we can enumerate, ``try``/``finally`` and
``try``/``except``, around a tensor index that is out of range on odd calls, with a graph break
before, inside or after the block and effects on the world inside it.

Each case is one block kind (sometimes nested in a second one) x one break position x one
operation that can raise only at run time. The runner compares results, exceptions, the
touched objects (``world()``) and the process state after every call: streams, warning filters,
working directory, grad mode, default dtype.
"""
from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from typing import Iterator

from autograph.testing.sweeps.case import SweepCase

PRELUDE = '''\
import contextlib
import io
import os
import sys
import tempfile
import warnings

import torch

TMP = tempfile.gettempdir()
LOG = []


class State:
    n = 0


STATE = State()


class Tracked:
    """A user context manager; ``swallow`` says which exception type its exit swallows."""

    def __init__(self, name, swallow=None):
        self.name, self.swallow = name, swallow

    def __enter__(self):
        LOG.append(("enter", self.name))
        return self

    def __exit__(self, typ, value, tb):
        LOG.append(("exit", self.name, typ.__name__ if typ else None))
        return self.swallow is not None and typ is not None and issubclass(typ, self.swallow)


class Closer:
    def close(self):
        LOG.append("closed")


class DtypeScope:
    def __enter__(self):
        self.old = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)

    def __exit__(self, *exc):
        torch.set_default_dtype(self.old)


@contextlib.contextmanager
def plain_cm():
    LOG.append("cm enter")
    yield 1
    LOG.append("cm exit")


@contextlib.contextmanager
def finally_cm():
    LOG.append("cm enter")
    try:
        yield 2
    finally:
        LOG.append("cm finally")


@contextlib.contextmanager
def swallowing_cm():
    try:
        yield 3
    except IndexError as exc:
        LOG.append(("cm caught", str(exc)[:20]))


@contextlib.contextmanager
def stdout_cm():
    old = sys.stdout
    sys.stdout = io.StringIO()
    try:
        yield
    finally:
        sys.stdout = old
'''


@dataclass(frozen=True)
class Block:
    """``head`` opens the block (its body is indented under it); ``tail`` closes a ``try``."""
    name: str
    head: str
    tail: str = ""
    swallows: bool = False  # the block may end the exception (the code after it runs)


BLOCKS = [
    Block("redirect_stdout", "with contextlib.redirect_stdout(io.StringIO()):"),
    Block("redirect_stderr", "with contextlib.redirect_stderr(io.StringIO()):"),
    Block("suppress", "with contextlib.suppress(IndexError):", swallows=True),
    Block("chdir", "with contextlib.chdir(TMP):"),
    Block("nullcontext", "with contextlib.nullcontext():"),
    Block("closing", "with contextlib.closing(Closer()):"),
    Block("exitstack", "with contextlib.ExitStack() as stack:\n"
                       "    stack.callback(LOG.append, 'callback')\n"
                       "    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))"),
    Block("catch_warnings", "with warnings.catch_warnings():\n    warnings.simplefilter('ignore')"),
    Block("catch_warnings_record", "with warnings.catch_warnings(record=True) as caught:\n"
                                   "    warnings.simplefilter('always')"),
    Block("no_grad", "with torch.no_grad():"),
    Block("enable_grad", "with torch.enable_grad():"),
    Block("set_grad_enabled", "with torch.set_grad_enabled(False):"),
    Block("inference_mode", "with torch.inference_mode():"),
    Block("autocast", "with torch.autocast('cpu', dtype=torch.bfloat16):"),
    Block("user", "with Tracked('user'):"),
    Block("user_swallowing", "with Tracked('user', IndexError):", swallows=True),
    Block("dtype_scope", "with DtypeScope():"),
    Block("contextmanager", "with plain_cm():"),
    Block("contextmanager_finally", "with finally_cm():"),
    Block("contextmanager_swallowing", "with swallowing_cm():", swallows=True),
    Block("contextmanager_stdout", "with stdout_cm():"),
    Block("try_finally", "try:", "finally:\n    LOG.append('finally')"),
    Block("try_finally_stdout", "old = sys.stdout\nsys.stdout = io.StringIO()\ntry:",
          "finally:\n    sys.stdout = old"),
    Block("try_except", "try:", "except IndexError as exc:\n    LOG.append(('caught', str(exc)[:20]))",
          swallows=True),
    Block("try_except_other", "try:", "except KeyError:\n    LOG.append('wrong handler')"),
]

# operations that raise only at run time (out of range on odd calls)
OPERATIONS = [
    ("index", "y = x[idx] * 2"),
    ("gather", "y = torch.gather(x, 0, idx) + 1"),
    ("index_select", "y = x.index_select(0, idx) - 1"),
    ("embedding", "y = torch.nn.functional.embedding(idx, x.view(-1, 1)).view(-1)"),
    ("one_hot", "y = torch.nn.functional.one_hot(idx, 4).view(-1) * x"),
    ("cross_entropy", "y = torch.nn.functional.cross_entropy(x.view(1, 4), idx).view(1) + x"),
    ("integer_division", "y = (x.long() // (idx % 2)).float()"),
]

BREAKS = ["none", "before", "inside_before", "inside_after", "after"]
BREAK_LINE = "print('graph break')"


def _indent(text: str, by: str = "    ") -> str:
    return textwrap.indent(text, by)


# where the blocks sit: in ``fn`` itself, in a helper ``fn`` calls (inlined by capture), around a
# call of a helper that holds the operation, or in a loop body
SHAPES = ["flat", "in_helper", "op_in_helper", "loop"]

_OP_HELPER = '''
def op_helper(x, idx):
    LOG.append("helper")
    {op}
    return y
'''


def _function(blocks: list[Block], op: str, where: str, shape: str = "flat") -> str:
    """``fn`` with ``blocks`` nested (outermost first) around ``op``, laid out as ``shape``."""
    helper = ""
    if shape == "op_in_helper":
        helper, op = _OP_HELPER.format(op=op), "y = op_helper(x, idx)"
    if shape == "loop":
        op = "for j in range(2):\n    " + op.replace("idx", "(idx + j)")
    body = ["LOG.append('in')", "STATE.n += 1"]
    if where == "inside_before":
        body.append(BREAK_LINE)
    body.append(op)
    if where == "inside_after":
        body.append(BREAK_LINE)
    body.append("LOG.append(('done', y.shape[0]))")
    text = "\n".join(body)
    for block in reversed(blocks):
        text = block.head + "\n" + _indent(text) + ("\n" + block.tail if block.tail else "")
    lines = ["y = x.clone()", "LOG.append('start')"]
    if where == "before":
        lines.append(BREAK_LINE)
    lines.append(text)
    if where == "after":
        lines.append(BREAK_LINE)
    lines.append("return y + STATE.n")
    if shape == "in_helper":
        return ("def block_helper(x, idx):\n" + _indent("\n".join(lines)) + "\n\n\n"
                "def fn(x, idx):\n    LOG.append('outer')\n    return block_helper(x, idx) * 2\n")
    return helper + "\n\ndef fn(x, idx):\n" + _indent("\n".join(lines)) + "\n"


_CALLS = '''

def make_call(i):
    return (torch.arange(4.0), torch.tensor([1 + 5 * (i % 2)])), {}


def world():
    return {"log": list(LOG), "n": STATE.n}
'''


def cases(seed: int) -> Iterator[SweepCase]:
    """Every block kind with every break position (one operation each, drawn by ``seed``), then
    every block kind in every other shape, then pairs of nested blocks, drawn by ``seed``. Every block comes once before any comes twice, so
    a run cut short still covers every kind."""
    rng = random.Random(seed)
    for where in BREAKS:
        for block in BLOCKS:
            op_name, op = rng.choice(OPERATIONS)
            yield SweepCase("blocks", f"blocks:{block.name}:{where}:{op_name}",
                            PRELUDE + "\n\n" + _function([block], op, where) + _CALLS)
    for shape in SHAPES[1:]:
        for block in BLOCKS:
            where = rng.choice(BREAKS)
            op_name, op = rng.choice(OPERATIONS)
            yield SweepCase("blocks", f"blocks:{block.name}:{where}:{op_name}:{shape}:{seed}",
                            PRELUDE + "\n\n" + _function([block], op, where, shape) + _CALLS)
    for _ in range(len(BLOCKS)):
        outer, inner = rng.sample(BLOCKS, 2)
        where, shape = rng.choice(BREAKS), rng.choice(SHAPES)
        op_name, op = rng.choice(OPERATIONS)
        yield SweepCase("blocks", f"blocks:{outer.name}+{inner.name}:{where}:{op_name}:{shape}:{seed}",
                        PRELUDE + "\n\n" + _function([outer, inner], op, where, shape) + _CALLS)
