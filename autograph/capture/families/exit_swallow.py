"""Whether a ``with`` block's ``__exit__`` may swallow an exception (return true).

A tensor operation whose run-time error a Python handler may catch runs in Python, where the
handler sees the error (``Frame.may_swallow``). For an ``except`` that is decided by the code
alone; for a ``with`` block, by the block's ``__exit__``. The answer here is exact when it says
"never": an ``__exit__`` whose every ``return`` gives the constant ``None`` or ``False`` (a
timer, ``nullcontext``), or ``@contextmanager``'s exit when the generator's paused ``yield``
is under no handler that may catch what is thrown into it. Anything else may swallow.
"""
from __future__ import annotations

import contextlib
import dis
import types
import weakref

from autograph.bytecode.instructions import normalize
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.catching import catching

_NEVER_TRUE = (None, False)
_RETURNS_TRUE: "weakref.WeakKeyDictionary[types.CodeType, bool]" = weakref.WeakKeyDictionary()


def code_may_return_true(code: types.CodeType) -> bool:
    """Whether some ``return`` of ``code`` may give a value other than ``None``/``False``."""
    found = _RETURNS_TRUE.get(code)
    if found is None:
        found = False
        previous = None
        for ins in dis.get_instructions(code):
            if ins.opname == "RETURN_CONST":
                found = not any(ins.argval is c for c in _NEVER_TRUE)
            elif ins.opname == "RETURN_VALUE":  # reached only from the constant load just before it
                found = (ins.is_jump_target or previous is None or previous.opname != "LOAD_CONST"
                         or not any(previous.argval is c for c in _NEVER_TRUE))
            if found:
                break
            previous = ins
        _RETURNS_TRUE[code] = found
    return found


def bound_exit_may_swallow(func: object, self_value: object) -> bool:
    """``func`` (a function value) bound to ``self_value`` as a ``with`` block's ``__exit__``."""
    fn = getattr(func, "fn", None)
    if not isinstance(fn, types.FunctionType):
        return True
    if fn is contextlib._GeneratorContextManager.__exit__:
        own = getattr(self_value, "own_attr", None)
        if own is not None:  # made during capture: its generator is capture's
            thrown_may_be_caught = getattr(own("gen"), "thrown_may_be_caught", None)
            return thrown_may_be_caught is None or thrown_may_be_caught()
        try:  # entered before a graph break: the real manager, its real paused generator
            real = self_value.real_value()  # type: ignore[attr-defined]
        except Unsupported:
            return True
        return real_generator_may_catch(getattr(real, "gen", None))
    return code_may_return_true(fn.__code__)


def real_generator_may_catch(gen: object) -> bool:
    """Whether the real generator ``gen``, paused at a ``yield``, may catch what is thrown in."""
    frame = getattr(gen, "gi_frame", None)
    if not isinstance(gen, types.GeneratorType) or frame is None:
        return True
    instructions = normalize(gen.gi_code)
    where = catching(gen.gi_code, instructions)
    paused = [ins.index for ins in instructions if ins.offset == frame.f_lasti]
    return not paused or any(i in where.always or i in where.under_with for i in paused)
