"""``torch._C._group_tensors_by_device_and_dtype``: lists of tensors grouped at capture time.

torch's foreach paths (``clip_grad_norm_``, ``clip_grad_value_``, the optimizers' foreach and
fused steps) split their tensor lists by ``(device, dtype)`` with this C function; it returns a
dict ``{(device, dtype): ([list per input list], indices)}`` of the very tensor objects it was
given. What it returns depends only on each tensor's device and dtype (both guarded by every
tensor's guard) and on which list positions hold ``None``, never on tensor data, so capture runs
the real C function on the fake tensors (same devices, same dtypes: the same groups, in the
same order as the real call's) and maps each fake back to the value it stands for: the
identities of the grouped tensors are kept and no graph node is made.
"""
from __future__ import annotations

from typing import Any

import torch

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import BaseSequenceValue, DictValue, ListValue, TupleValue
from autograph.capture.families.tensors import TensorValue

_GROUP = torch._C._group_tensors_by_device_and_dtype


def _tensor_lists(value: Value) -> list[list[Value]] | None:
    """The tensor values of a list of lists of tensors (or ``None``); None when it is not one."""
    if not isinstance(value, BaseSequenceValue):
        return None
    lists = []
    for inner in value.items:
        if not isinstance(inner, BaseSequenceValue):
            return None
        for item in inner.items:
            if not isinstance(item, TensorValue) and not (item.is_constant() and item.as_python_constant() is None):
                return None
        lists.append(list(inner.items))
    return lists


def _group_call(tx, args: list[Value], kwargs: dict[str, Value]) -> Any:
    """``_group_tensors_by_device_and_dtype(tensorlistlist, with_indices=False)`` on capture values."""
    if kwargs or not 1 <= len(args) <= 2:
        return NotImplemented
    lists = _tensor_lists(args[0])
    with_indices = args[1] if len(args) == 2 else ConstantValue(False)
    if lists is None or not with_indices.is_constant() or type(with_indices.as_python_constant()) is not bool:
        return NotImplemented
    by_fake = {id(v.fake): v for inner in lists for v in inner if isinstance(v, TensorValue)}
    fakes = [[v.fake if isinstance(v, TensorValue) else None for v in inner] for inner in lists]
    grouped = _GROUP(fakes, with_indices.as_python_constant())

    def back(fake) -> Value:
        return ConstantValue(None) if fake is None else by_fake[id(fake)]

    return DictValue({key: TupleValue([ListValue([ListValue([back(f) for f in inner]) for inner in groups]),
                                       ListValue([ConstantValue(i) for i in indices])])
                      for key, (groups, indices) in grouped.items()})


def install() -> None:
    registry.register_torch_call(_GROUP, _group_call)
