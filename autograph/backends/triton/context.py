"""What one graph's compilation knows about its sizes, passed explicitly (nothing process-wide).

Kernels of a graph with symbolic sizes take the ShapeEnv size symbols as scalar arguments;
block sizes are chosen from the example's values of those symbols. Both facts belong to the
graph being compiled: keeping them here (instead of module globals filled as graphs go by)
makes the generated kernels a function of the graph alone, whatever was compiled before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy

from autograph.backends.triton.indexing import is_static

DEFAULT_SIZE_HINT = 8192


@dataclass
class CompileContext:
    """Size symbols of one graph (name -> symbol) and their example values."""

    size_symbols: dict[str, sympy.Symbol] = field(default_factory=dict)
    size_hints: dict[str, int] = field(default_factory=dict)

    def add_symbol(self, sym: sympy.Symbol, hint: int | None) -> None:
        self.size_symbols[sym.name] = sym
        if hint is not None:
            self.size_hints[sym.name] = int(hint)

    def size_hint(self, expr) -> int:
        """A representative value of a size expression: the example's sizes, else a generic
        default. Only block sizes depend on it; masks make every size correct."""
        if is_static(expr):
            return int(expr)
        subs = {f: self.size_hints.get(f.name, DEFAULT_SIZE_HINT) for f in expr.free_symbols}
        try:
            return max(1, int(expr.subs(subs)))
        except (TypeError, ValueError):
            return DEFAULT_SIZE_HINT

    def size_args_of(self, body: str) -> list[str]:
        """The size symbols a kernel body (or the wrapper) reads: they become scalar kernel
        arguments, so one kernel serves every size (sorted by name, the order the wrapper
        passes them)."""
        return sorted((n for n in self.size_symbols if re.search(rf"\b{n}\b", body)), key=lambda n: (len(n), n))
