"""Per-object facts about code objects, kept only while the code object lives.

Code objects compare and hash by content, so a ``WeakKeyDictionary`` treats two equal resume
codes (the same break resumed twice, or by two captures) as one key: the entry stays under the
first object and is dropped when that one dies, while the other, still running, loses it. This
map is keyed by the object itself.
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class CodeObjectMap(Generic[V]):
    """code object -> value, by identity; an entry goes when its code object is collected."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref, V]] = {}

    def __setitem__(self, code: types.CodeType, value: V) -> None:
        key = id(code)

        def drop(ref: weakref.ref, key: int = key, entries: dict = self._entries) -> None:
            entry = entries.get(key)
            if entry is not None and entry[0] is ref:
                del entries[key]

        self._entries[key] = (weakref.ref(code, drop), value)

    def get(self, code: Any, default: Any = None) -> Any:
        entry = self._entries.get(id(code))
        return entry[1] if entry is not None and entry[0]() is code else default

    def __contains__(self, code: Any) -> bool:
        entry = self._entries.get(id(code))
        return entry is not None and entry[0]() is code

    def __getitem__(self, code: types.CodeType) -> V:
        if code not in self:
            raise KeyError(code)
        return self._entries[id(code)][1]

    def __len__(self) -> int:
        return len(self._entries)
