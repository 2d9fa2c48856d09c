"""A static or class method of a class the import hook instrumented, called through an instance
(``self.scale(x)``): the hook's wrapper binds a fresh object on each read, so capture binds it
from the class entry (guarded) rather than guarding the identity of what one read returned,
which would recompile on every call (families/objects.py)."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.hook.instrument import wrap_function


class _Scaler:
    k = 3.0

    @staticmethod
    def twice(x):
        return x * 2

    @classmethod
    def by_k(cls, x):
        return x * cls.k

    def run(self, x):
        return self.twice(x) + self.by_k(x)


class _Bigger(_Scaler):
    k = 5.0


@pytest.fixture
def hooked(monkeypatch):
    for name in ("twice", "by_k"):
        raw = vars(_Scaler)[name]
        monkeypatch.setattr(_Scaler, name, wrap_function(raw, module=__name__, qualname=f"_Scaler.{name}", attr=name))
    autograph.reset()
    yield
    autograph.reset()


def _run(obj, x):
    return obj.run(x)


def test_static_and_class_methods_of_hooked_classes_compile_once(hooked):
    compiled = autograph.compile(_run, backend="eager")
    x = torch.ones(2)
    for _ in range(5):
        assert torch.equal(compiled(_Scaler(), x), _Scaler().run(x))
    assert compiled.stats.captures == 1
    assert torch.equal(compiled(_Bigger(), x), torch.full((2,), 7.0))  # the class method binds to type(obj)
