"""Grad-mode blocks and tensor queries: two constructs that found wrong results (issue 25).

* ``with torch.no_grad():`` / ``enable_grad()`` / ``set_grad_enabled(b)`` / ``inference_mode(b)``,
  nested, with a graph break (``print``) or an index only the run finds out of range inside:
  the mode in force inside, after the block and after the call (the harness compares the
  process's grad and inference mode after every call) must be plain Python's, also when the
  graph raises inside the block, caught there or not.
* Tensor queries whose answer on a fake tensor may differ from the real one's:
  ``t.storage_type()``, ``untyped_storage().nbytes()``, ``is_contiguous()``, ``is_inference()``,
  strides, storage sharing between two tensors, ...; their answers are returned and branched on.

A mixin of ``ProgramBuilder`` like ``constructs.ExactnessConstructs``.
"""
from __future__ import annotations

from autograph.testing.fuzz.static import Ty

_MODE_HEADERS = (
    "with torch.no_grad():", "with torch.enable_grad():", "with torch.set_grad_enabled(False):",
    "with torch.set_grad_enabled(True):", "with torch.inference_mode():", "with torch.inference_mode(False):",
)
# (expression on tensor {t} (and {u}), its type)
_QUERIES = (
    ("{t}.storage_type().__name__", "str"), ("{t}.is_contiguous()", "bool"), ("{t}.storage_offset()", "int"),
    ("{t}.element_size()", "int"), ("{t}.nbytes", "int"), ("{t}.untyped_storage().nbytes()", "int"),
    ("{t}.is_leaf", "bool"), ("{t}.requires_grad", "bool"), ("{t}.is_inference()", "bool"),
    ("{t}.device.type", "str"), ("{t}.stride()[0]", "int"), ("type({t}).__name__", "str"),
    ("{t}.untyped_storage().data_ptr() == {u}.untyped_storage().data_ptr()", "bool"),
    ("{t}.is_set_to({u})", "bool"), ("{t}.t().is_contiguous()", "bool"), ("{t}.dtype.is_floating_point", "bool"),
    ("repr({t}.storage_type())", "str"), ("{t}.grad_fn is None", "bool"),
)


class ModeConstructs:
    """The grad-mode and tensor-query statement kinds; ``mode_kinds`` says which apply here."""

    def mode_kinds(self, depth: int) -> list[tuple[str, int]]:
        f = self.config.features
        kinds: list[tuple[str, int]] = []
        if depth < 2 and "grad_modes" in f:
            kinds.append(("grad_mode", 2))
        if "tensor_queries" in f:
            kinds.append(("tensor_query", 2))
        return kinds

    # -- grad modes -----------------------------------------------------------------
    def stmt_grad_mode(self, depth: int) -> None:
        """One or two nested mode blocks; inside: the mode observed, maybe a break, maybe an
        index the int parameter puts out of range on some calls (caught around the blocks or not)."""
        headers = [self.pick(_MODE_HEADERS) for _ in range(self.c.integer(1, 2))]
        src = self.pick(self.names("tensor"))
        name = self.fresh("g")
        self.emit(f"{name} = {src} * 2")
        self.env[name] = self.env[src]
        raises = bool(self.int_param) and self.c.chance(0.5)
        caught = raises and "try_except" in self.config.features and self.c.chance(0.6)
        if caught:
            with self.block("try:"):
                self._mode_nest(headers, src, name, raises)
            with self.block("except (IndexError, RuntimeError):"):
                self.emit(f"{name} = {name} + float(torch.is_grad_enabled()) + 2 * float(torch.is_inference_mode_enabled())")
        else:
            self._mode_nest(headers, src, name, raises)
        self.emit(f"{name} = {name} + float(torch.is_grad_enabled())")

    def _mode_nest(self, headers: list[str], src: str, name: str, raises: bool) -> None:
        with self.block(headers[0]):
            if len(headers) > 1:
                self._mode_nest(headers[1:], src, name, raises)
                return
            self.emit(f"{name} = {name} + float(torch.is_grad_enabled()) - float(torch.is_inference_mode_enabled())")
            if "print" in self.config.features and self.c.chance(0.4):
                self.emit('print("mode", torch.is_grad_enabled(), torch.is_inference_mode_enabled())')
            if raises:
                index = f"torch.tensor([{src}.shape[0] - 1 + {self.int_param} % 2])"
                self.emit(f"{name} = {name} + torch.index_select({src}, 0, {index}).sum()")
            else:
                self.emit(f"{name} = {name} * {self.number()}")

    # -- tensor queries -------------------------------------------------------------
    def stmt_tensor_query(self, depth: int) -> None:
        tensors = self.names("tensor")
        t, u = self.pick(tensors), self.pick(tensors)
        expr, kind = self.pick(_QUERIES)
        answer = self.fresh("q")
        self.emit(f"{answer} = {expr.format(t=t, u=u)}")
        self.env[answer] = Ty(kind)
        if kind == "bool" and self.c.chance(0.5):
            name = self.fresh("t")
            self.emit(f"{name} = {t} * (2.0 if {answer} else -0.5)")
            self.env[name] = self.env[t]
