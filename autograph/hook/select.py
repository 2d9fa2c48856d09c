"""Which modules the import hook intercepts and which functions it wraps.

A rule is ``module_glob[:qualname_glob]`` (parsed by :class:`autograph.settings.Rule`).
A function is selected when some allow rule covers it and no deny rule does: deny
always beats allow. A module is intercepted when some allow rule covers it and no
deny rule *without* a qualname glob covers it (``deny: [pkg:Cls.f]`` still lets the
rest of ``pkg`` be compiled). Modules in ``settings.NEVER_INSTRUMENTED`` (autograph itself
except ``autograph.testing``, its dependencies, the standard library) are never selected,
whatever the rules. Answers are memoised: the finder asks on every import.
"""
from __future__ import annotations

from typing import Iterable

from autograph.settings import Rule, Settings, never_instrumented

__all__ = ["Rule", "Selection"]

class Selection:
    """Allow rules minus deny rules."""

    def __init__(self, allow: Iterable[str | Rule] = (), deny: Iterable[str | Rule] = ()):
        self.allow: tuple[Rule, ...] = tuple(r if isinstance(r, Rule) else Rule.parse(r) for r in allow)
        self.deny: tuple[Rule, ...] = tuple(r if isinstance(r, Rule) else Rule.parse(r) for r in deny)
        self._modules: dict[str, bool] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> "Selection":
        return cls(settings.packages.allow, settings.packages.deny)

    def __bool__(self) -> bool:
        return bool(self.allow)

    def __repr__(self) -> str:
        return f"Selection(allow={[r.text for r in self.allow]}, deny={[r.text for r in self.deny]})"

    def selects_module(self, module: str) -> bool:
        """True when ``module`` may contain selected functions (the hook intercepts it)."""
        answer = self._modules.get(module)
        if answer is None:
            answer = not never_instrumented(module) and any(
                rule.matches_module(module) for rule in self.allow) and not any(
                rule.qualname_glob is None and rule.matches_module(module) for rule in self.deny
            )
            self._modules[module] = answer
        return answer

    def selects_function(self, module: str, qualname: str) -> bool:
        """True when the function ``module:qualname`` is to be wrapped."""
        if not self.selects_module(module):
            return False
        return any(rule.matches_function(module, qualname) for rule in self.allow) and not any(
            rule.matches_function(module, qualname) for rule in self.deny
        )
