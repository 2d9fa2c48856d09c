"""``module_list[a:b]`` / ``sequential[a:b]``: a new container of the same class holding the
same submodules, as eager builds it; capture can iterate, index and take its length."""
from __future__ import annotations

from autograph.capture.core.breaks import Unsupported
from autograph.capture.families.containers import ListValue


class ModuleSliceValue(ListValue):
    def __init__(self, items, cls: type):
        super().__init__(items)
        self.cls = cls

    def describe(self):
        return f"{self.cls.__name__} slice of {len(self.items)}"

    def python_type(self):
        return self.cls

    def call_method(self, tx, name, args, kwargs):
        raise Unsupported(f"`.{name}()` on a {self.cls.__name__} slice", kind="unsupported-call")

    def call(self, tx, args, kwargs):
        raise Unsupported(f"calling a {self.cls.__name__} slice", kind="unsupported-call")

    def setitem(self, tx, key, value):
        raise Unsupported(f"item store on a {self.cls.__name__} slice", kind="side-effect")

    def reconstruct(self, cg):
        return cg.shared(self, f"{cg.const(self.cls)}([{', '.join(cg.reconstruct(i) for i in self.items)}])")


def module_slice(tx, module_value, key: slice):
    names = list(module_value.module._modules)[key]
    return ModuleSliceValue([module_value.getattr(tx, n) for n in names], type(module_value.module))
