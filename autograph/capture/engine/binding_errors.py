"""Python's own TypeError for a call whose arguments do not bind to the function's parameters.

``inspect.Signature.bind`` agrees with CPython on *whether* a call binds, not on the message.
The message comes from CPython itself: the same call on a stub with the function's code
metadata (names, counts, defaults, qualname) and an empty body, so nothing of the user's
function ever runs at capture time.
"""
from __future__ import annotations

import types
from typing import Any

_EMPTY = (lambda: None).__code__


def binding_error(fn: Any, code: types.CodeType, n_args: int, kw_names: list[str]) -> TypeError | None:
    """The TypeError CPython raises calling ``fn`` (whose code is ``code``) with ``n_args``
    positional and ``kw_names`` keyword arguments; None when the call binds or ``fn`` is no
    plain function of that code."""
    if type(fn) is not types.FunctionType or fn.__code__ is not code:
        return None
    stub_code = code.replace(co_code=_EMPTY.co_code, co_consts=_EMPTY.co_consts, co_names=(),
                             co_linetable=_EMPTY.co_linetable, co_exceptiontable=b"", co_cellvars=(),
                             co_freevars=(), co_stacksize=_EMPTY.co_stacksize)
    stub = types.FunctionType(stub_code, {}, code.co_name, fn.__defaults__, None)
    stub.__kwdefaults__ = fn.__kwdefaults__
    stub.__qualname__ = fn.__qualname__
    try:
        stub(*[None] * n_args, **dict.fromkeys(kw_names))
    except TypeError as exc:
        return exc
    return None
