"""Graphs captured with symbolic sizes, compiled in the worker once for every size.

The program describes each input with its sizes and strides as the capture's expressions
(``"s26"``, ``"5*s70"``) and, apart, each symbol's value in the call that captured it (the
*hint*): the description is in the cache key, the hints are not, so one compiled file serves
every size, in this run and the next. The worker makes a symbol of its own for each of the
capture's symbols (two symbols stay two even when their hints are equal: nothing is assumed
that the capture's guards do not check), compiles the graph on fake inputs of those sizes, and
writes with the file the guards its compile added (``ShapeEnv.produce_guards_expression``: the
ranges it assumed, such as "at least 2", and any size it specialised on). The program checks
them on each call of the compiled graph and runs the eager graph where they do not hold: a
compiled graph never runs on sizes it was not compiled for.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from autograph.backends.inductor_artifacts import Unsupported, UnsupportedHere

SYMINT = "symint"  # an input spec's first entry when the input is a symbolic int


def is_symbolic(value: Any) -> bool:
    """Whether an example input of the capture has symbolic sizes, strides or value."""
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return True
    if isinstance(value, torch.Tensor):
        return any(isinstance(d, torch.SymInt) for d in (*value.shape, *value.stride()))
    return False


def describe(value: Any, hints: dict[str, int]) -> Any:
    """An int as itself, a SymInt as its expression's text; its symbols' hints go to ``hints``."""
    if not isinstance(value, torch.SymInt):
        return int(value)
    node = value.node
    expr = node.expr
    if expr.is_number:
        return int(expr)
    values = getattr(node.shape_env, "backed_var_to_val", None) or getattr(node.shape_env, "var_to_val", {})
    for symbol in expr.free_symbols:
        hint = values.get(symbol)
        if hint is None:
            raise Unsupported(f"the size {expr} has no example value (a data-dependent size)")
        hints[str(symbol)] = int(hint)
    return str(expr)


def tensor_spec(value: torch.Tensor, hints: dict[str, int]) -> tuple:
    return (tuple(describe(d, hints) for d in value.shape), tuple(describe(s, hints) for s in value.stride()),
            str(value.dtype).removeprefix("torch."), str(value.device), bool(value.requires_grad))


def symint_spec(value: torch.SymInt, hints: dict[str, int]) -> tuple:
    text = describe(value, hints)
    if not isinstance(text, str):
        raise Unsupported("a symbolic int input with a fixed value")
    return (SYMINT, text)


def specs_are_symbolic(specs: Sequence[tuple]) -> bool:
    return any(spec[0] == SYMINT or any(isinstance(d, str) for d in (*spec[0], *spec[1])) for spec in specs)


# ------------------------------------------------------------ in the worker

def fake_inputs(specs: Sequence[tuple], hints: dict[str, int]) -> tuple[Any, list]:
    """A fake mode with a shape environment of its own and the fake inputs the specs describe;
    each symbol's source is the first plain size (or symbolic int input) that is it, named as
    :func:`guard_code` names inputs."""
    from torch._dynamo.source import LocalSource, TensorProperty, TensorPropertySource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    symbols: dict[str, Any] = {}
    for i, spec in enumerate(specs):
        plain = [(spec[1], LocalSource(f"t{i}"))] if spec[0] == SYMINT else [
            (d, TensorPropertySource(LocalSource(f"t{i}"), TensorProperty.SIZE, k)) for k, d in enumerate(spec[0])]
        for text, source in plain:
            if isinstance(text, str) and text in hints and text not in symbols:
                if hints[text] < 2:
                    raise UnsupportedHere(f"the symbolic size {text} is {hints[text]} in the example (0 and 1 "
                                          "are specialised)")
                symbols[text] = env.create_symbol(hints[text], source=source, dynamic_dim=DimDynamic.DYNAMIC)
    missing = set(hints) - set(symbols)
    if missing:
        raise Unsupported(f"the symbols {sorted(missing)} are no input's size")

    def value(text: Any) -> Any:
        if not isinstance(text, str):
            return text
        import sympy
        from torch.utils._sympy import functions

        try:
            expr = sympy.sympify(text, locals={**vars(functions), **symbols})
        except (sympy.SympifyError, SyntaxError, TypeError) as exc:
            raise Unsupported(f"the size {text} cannot be read back ({exc})") from exc
        hint = expr.subs({symbols[name]: h for name, h in hints.items()})
        if not hint.is_Integer:
            raise Unsupported(f"the size {text} has no integer example value")
        return env.create_symintnode(expr, hint=int(hint))

    inputs: list[Any] = []
    for spec in specs:
        if spec[0] == SYMINT:
            inputs.append(value(spec[1]))
            continue
        shape, stride, dtype, device, requires_grad = spec
        with mode:
            t = torch.empty_strided([value(d) for d in shape], [value(s) for s in stride],
                                    dtype=getattr(torch, dtype), device=device)
        inputs.append(t.requires_grad_(requires_grad))
    return mode, inputs


def guard_code(mode: Any, inputs: list) -> str:
    """The guards on the inputs' sizes the compile relied on, as a Python expression over
    ``L['t0']``, ``L['t1']``... ("" when there are none)."""
    return mode.shape_env.produce_guards_expression(inputs, ignore_static=True) or ""


# ------------------------------------------------------------ in the program

class Guarded:
    """A compiled graph that may run only where its size guards hold: :meth:`accepts` says."""

    __slots__ = ("compiled", "code", "text")

    def __init__(self, compiled: Callable[..., Any], text: str) -> None:
        self.compiled, self.text = compiled, text
        self.code = compile(text, "<autograph size guards>", "eval")

    def accepts(self, args: Sequence[Any]) -> bool:
        from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP

        try:
            return bool(eval(self.code, SYMPY_INTERP, {"L": {f"t{i}": a for i, a in enumerate(args)}}))
        except Exception:  # noqa: BLE001 - a guard that cannot be evaluated does not hold
            return False

    def __call__(self, *args: Any) -> Any:
        return self.compiled(*args)
