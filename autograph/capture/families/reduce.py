"""``functools.reduce`` over what capture can iterate: the folding function is called (inlined,
or put into the graph) once per item, in order, exactly as the C loop does."""
from __future__ import annotations

import functools

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.core.base import Value


def _reduce(tx, *args: Value, **kwargs: Value) -> Value:
    if kwargs or not 2 <= len(args) <= 3:
        raise Unsupported("TypeError: functools.reduce takes 2 or 3 positional arguments", generic=True,
                          kind="python-exception")
    fn, iterable = args[0], args[1]
    items = iterable.iter_items(tx)  # consumes an iterator, as reduce does
    if len(args) == 3:
        acc = args[2]
    elif items:
        acc, items = items[0], items[1:]
    else:
        raise Unsupported("TypeError: reduce() of empty iterable with no initial value", generic=True,
                          kind="python-exception")
    for item in items:
        acc = tx.call(fn, [acc, item], {})
    return acc


def install() -> None:
    registry.register_builtin(functools.reduce, _reduce)
