"""Effects sweep: calls whose effects later code can observe, placed before an in-place tensor
or numpy mutation, before a graph break and before an operation that raises on odd calls.

Effects: logging through a handler, ``warnings.warn``, ``print`` to a stream, ``os.environ``,
``random`` (the module's stream, seeded in the call or not, and a ``random.Random(seed)`` made
in the call), a write to a
file in a temp dir, a list append, an attribute store, a class attribute store, torch library
functions that write the dict they are given (``copy.deepcopy``'s memo through
``Tensor.__deepcopy__``, ``consume_prefix_in_state_dict_if_present``) and dict stores under keys
made in the call whose ``__hash__`` counts its calls. Each formats
or records a value (a tensor computed in the graph, the input tensor, a numpy array or a plain
int) that the code after it may change, and the function reads back what the effect did (the
handler's record count, the stream's length, ...) before it returns. The logger's level changes
between calls. The runner compares results, exceptions, ``world()``
(handler messages, stream text, file contents, ...) and the process state after every call.
"""
from __future__ import annotations

import random
import textwrap
from typing import Iterator

from autograph.testing.sweeps.case import SweepCase

PRELUDE = '''\
import copy
import io
import logging
import os
import random
import sys
import tempfile
import warnings

import numpy as np
import torch

LOG = []
BUF = io.StringIO()
DIR = tempfile.mkdtemp(prefix="autograph_sweep_")
PATH = os.path.join(DIR, "out.txt")
ENV = "AUTOGRAPH_SWEEP_VALUE"


class ListHandler(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


HANDLER = ListHandler()
LG = logging.getLogger(__name__)
LG.addHandler(HANDLER)
LG.setLevel(logging.INFO)
LG.propagate = False


class State:
    n = 0


STATE = State()
MEMO = {}
SD = {}
SEEN = {}
HASHES = [0]


class CountingKey:
    """A key whose ``__hash__`` has an effect: how many times it was hashed is observable."""

    def __init__(self, k):
        self.k = k

    def __hash__(self):
        HASHES[0] += 1
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, CountingKey) and other.k == self.k
'''

# ``{v}`` is the observed value's expression
EFFECTS = {
    "logging": "LG.info('v=%s k=%d', {v}, k)",
    "logging_fstring": "LG.warning(f'v={{{v}}}')",
    "warn": "warnings.warn('v=%s' % ({v},))",
    "print_stream": "print('v', {v}, file=BUF)",
    "print_stdout": "print('v', {v})",
    "environ": "os.environ[ENV] = str({v})",
    "random": "LOG.append(random.random())",
    "file": "with open(PATH, 'a') as fh:\n    fh.write(str({v}) + '\\n')",
    "append": "LOG.append(str({v}))",
    "attribute": "STATE.n = STATE.n + 1",
    "class_attribute": "State.n += 1",
    "seeded_random": "LOG.append(random.Random(len(LOG)).random())",
    "seeded_module_random": "random.seed(len(LOG))\nLOG.append(random.random() + random.randint(0, 9))",
    "deepcopy_memo": "LOG.append(type(copy.deepcopy({v}, MEMO)).__name__)",
    "state_dict_prefix": ("SD['p.' + str(len(SD))] = str({v})\n"
                          "torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(SD, 'p.')"),
    "counting_hash": "SEEN[CountingKey(k)] = str({v})\nSEEN[CountingKey(len(SEEN))] = 'next'",
}

# what the function itself reads back of the effect, after the hazard (a deferred effect would
# not have happened yet: a handler's records counted before the call)
READ_BACK = {
    "logging": "len(HANDLER.messages)",
    "logging_fstring": "len(HANDLER.messages)",
    "warn": "None",
    "print_stream": "len(BUF.getvalue())",
    "print_stdout": "None",
    "environ": "os.environ.get(ENV)",
    "random": "len(LOG)",
    "file": "os.path.exists(PATH)",
    "append": "len(LOG)",
    "attribute": "STATE.n",
    "class_attribute": "STATE.n",  # through the instance: the class's, unless the instance has its own
    "seeded_random": "len(LOG)",
    "seeded_module_random": "len(LOG)",
    "deepcopy_memo": "len(MEMO)",
    "state_dict_prefix": "sorted(SD)",
    "counting_hash": "HASHES[0]",
}

VALUES = {
    "graph_tensor": "y",
    "input_tensor": "x",
    "numpy": "a",
    "int": "k",
    "local_list": "items",
}

# what follows the effect
HAZARDS = {
    "mutate_graph_tensor": "y.add_(100)",
    "mutate_input": "x.mul_(3)",
    "mutate_numpy": "a += 5",
    "graph_break": "print('graph break')",
    "error": "y = y[idx]",
    "mutate_then_error": "y.sub_(7)\ny = y[idx]",
    "mutate_local_list": "items.append(len(items))",
}


def _function(effect: str, value: str, hazard: str, second: str | None, in_helper: bool = False) -> str:
    """``fn`` doing ``effect`` on ``value`` then ``hazard`` (``in_helper``: the effect is made by a
    helper ``fn`` calls, which capture inlines)."""
    effect_line = EFFECTS[effect].format(v=VALUES[value])
    helper = ""
    if in_helper:
        helper = ("def effect_helper(x, y, a, k, items):\n" + textwrap.indent(effect_line, "    ")
                  + "\n    return k\n\n\n")
        effect_line = "k = effect_helper(x, y, a, k, items)"
    lines = ["k = int(idx[0])", "items = [k]", "y = x * 2", "a = x.numpy()" if value == "numpy" else "a = None",
             effect_line, HAZARDS[hazard]]
    if second is not None:
        lines += [EFFECTS[second].format(v=VALUES[value]), "z = x[idx]"]
    lines.append(f"return y + 1, STATE.n, len(items), {READ_BACK[effect]}")
    return helper + "def fn(x, idx):\n" + textwrap.indent("\n".join(lines), "    ") + "\n"


_CALLS = '''

def make_call(i):
    random.seed(i)
    LG.setLevel(logging.ERROR if i == 2 else logging.INFO)  # the logger drops the call, then passes it on again
    return (torch.arange(4.0) + i, torch.tensor([1 + 5 * (i % 2)])), {}


def world():
    text = open(PATH).read() if os.path.exists(PATH) else None
    return {"log": list(LOG), "messages": list(HANDLER.messages), "buf": BUF.getvalue(), "file": text,
            "env": os.environ.get(ENV), "n": STATE.n, "class_n": State.n,
            "random_state": random.getstate()[1][:8], "memo": len(MEMO), "sd": sorted(SD.items()),
            "hashes": HASHES[0], "seen": sorted((key.k, value) for key, value in SEEN.items())}
'''


def cases(seed: int) -> Iterator[SweepCase]:
    """Every effect before every hazard (the observed value drawn by ``seed``), then every effect
    made in a helper, then effect pairs around an error, drawn by ``seed``."""
    rng = random.Random(seed)
    for hazard in HAZARDS:
        for effect in EFFECTS:
            value = rng.choice(list(VALUES))
            value = {"mutate_numpy": "numpy", "mutate_local_list": "local_list"}.get(hazard, value)
            yield SweepCase("effects", f"effects:{effect}:{value}:{hazard}",
                            PRELUDE + "\n\n" + _function(effect, value, hazard, None) + _CALLS)
    for effect in EFFECTS:
        value, hazard = rng.choice(list(VALUES)), rng.choice(list(HAZARDS))
        if hazard == "mutate_numpy":
            value = "numpy"
        yield SweepCase("effects", f"effects:{effect}:{value}:{hazard}:in_helper:{seed}",
                        PRELUDE + "\n\n" + _function(effect, value, hazard, None, in_helper=True) + _CALLS)
    for _ in range(len(EFFECTS)):
        first, second = rng.sample(list(EFFECTS), 2)
        value, hazard = rng.choice(list(VALUES)), rng.choice(list(HAZARDS))
        yield SweepCase("effects", f"effects:{first}+{second}:{value}:{hazard}:{seed}",
                        PRELUDE + "\n\n" + _function(first, value, hazard, second) + _CALLS)
