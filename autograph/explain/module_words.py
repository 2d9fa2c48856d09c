"""Module guards in plain words: one line per module tree instead of one per guard.

A module reached through a source is guarded by its class, the members the capture read
(submodules' classes, parameters' and buffers' tensor facts, attribute values) and, for
each module it called, a NO_HOOKS guard.  ``fold`` gathers those guards under the
outermost module they belong to and says them in one line::

    s: a Block whose n is a LayerNorm(weight float32 (16,), bias float32 (16,), eps=1e-05)
       and l is a Linear(weight float32 (16, 16), bias float32 (16,)); no hooks on s.n, s.l

Every guard stays in the entry's guard code; this only shortens the words.
"""
from __future__ import annotations

import sys
from typing import Any, Iterable

def _kind(g: Any) -> str:
    return str(getattr(g, "kind", ""))


def _is_module_class(cls: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(cls, type) and issubclass(cls, torch.nn.Module)


def _member_of(source: Any) -> tuple[Any, str, str] | None:
    """``(owner, store, name)`` when ``source`` reads a member of another source: ``owner.name``
    (store ``""``) or ``owner.<store>[name]`` (a module's ``_modules``/``_parameters``/``_buffers``)."""
    from autograph.guards.sources import AttrSource, MemberSource

    if isinstance(source, MemberSource):
        return source.base_source.base_source, source.base_source.attr, source.key
    if isinstance(source, AttrSource):
        return source.base_source, "", source.attr
    return None


def _dims(values: tuple) -> str:
    inner = ", ".join("?" if v is None else str(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _tensor_words(facts: Any) -> str:
    text = f"{str(facts.dtype).replace('torch.', '')} {_dims(facts.sizes)}"
    if getattr(facts.device, "type", "cpu") != "cpu":
        text += f" on {facts.device}"
    expected, step = [], 1
    for s in reversed(facts.sizes):
        expected.append(step)
        step *= s if s is not None else 1
    if None not in facts.sizes and tuple(reversed(expected)) != tuple(facts.strides):
        text += f" stride {_dims(facts.strides)}"
    if facts.cls.__name__ == "Parameter" and not facts.requires_grad:
        text += " frozen"
    elif facts.cls.__name__ != "Parameter" and facts.requires_grad:
        text += " requiring grad"
    return text


class _Node:
    def __init__(self, source: Any, cls: type):
        self.source = source
        self.cls = cls
        self.parts: list[str] = []          # "weight float32 (16, 16)", "eps=1e-05"
        self.children: list[tuple[str, "_Node"]] = []
        self.hooks = False  # a NO_HOOKS guard on it: it was called, with no hook registered

    def words(self, hookless: list[str]) -> str:
        if self.hooks:
            hookless.append(self.source.expr)
        inner = ", ".join(self.parts)
        text = f"{self.cls.__name__}({inner})" if inner else self.cls.__name__
        if self.children:
            text += " whose " + " and ".join(f"{name} is {_article(child.cls)} {child.words(hookless)}"
                                             for name, child in self.children)
        return text


def _article(cls: type) -> str:
    return "an" if cls.__name__[:1].lower() in "aeiou" else "a"


def fold(guards: Iterable[Any]) -> list[tuple[int, Any]]:
    """The guards in order, module guards replaced by one line per module tree: a list of
    ``(position, guard or str)``; callers describe the guards and keep the strings."""
    guards = list(guards)
    nodes: dict[Any, _Node] = {}
    roots: dict[int, _Node] = {}
    folded: set[int] = set()
    for i, g in enumerate(guards):
        if _kind(g) == "TYPE_MATCH" and _is_module_class(g.expected) and g.source is not None:
            node = nodes[g.source] = _Node(g.source, g.expected)
            member = _member_of(g.source)
            parent = nodes.get(member[0]) if member else None
            if parent is not None and member[1] in ("", "_modules"):
                parent.children.append((member[2], node))
            else:
                roots[i] = node
            folded.add(i)
    if not nodes:
        return list(enumerate(guards))
    global_hooks = -1
    for i, g in enumerate(guards):
        if i in folded or g.source is None:
            continue
        kind = _kind(g)
        if kind == "NO_HOOKS":
            if g.source in nodes:
                nodes[g.source].hooks = True
                folded.add(i)
            elif getattr(getattr(g.source, "obj", None), "__name__", "") == "torch.nn.modules.module":
                global_hooks = i  # the _global_*_hooks dictionaries
            continue
        member = _member_of(g.source)
        if kind == "ID_MATCH" and member is not None and member[2] == "__func__":
            method = _member_of(member[0])  # owner.forward.__func__: the class's own forward,
            if method and method[0] in nodes and method[1:] == ("", "forward") \
                    and getattr(nodes[method[0]].cls, "forward", None) is g.expected:
                folded.add(i)  # which "a Linear" already says
            continue
        owner = nodes.get(member[0]) if member else None
        if owner is None:
            continue
        _, store, name = member
        if kind == "TENSOR_MATCH" and store in ("", "_parameters", "_buffers"):
            owner.parts.append(f"{name} {_tensor_words(g.expected)}")
        elif kind == "EQUALS_MATCH" and store in ("", "_parameters", "_buffers", "_modules"):
            owner.parts.append(f"{name}={g.expected!r}")
        else:
            continue
        folded.add(i)
    out: list[tuple[int, Any]] = []
    for i, g in enumerate(guards):
        if i in roots:
            hookless: list[str] = []
            root = roots[i]
            text = f"{root.source.expr}: {_article(root.cls)} {root.words(hookless)}"
            if hookless:
                text += "; no hooks on " + ", ".join(hookless)
            out.append((i, text))
        elif i == global_hooks:
            out.append((i, "no global module hooks (torch.nn.modules.module)"))
        elif i not in folded:
            out.append((i, g))
    return out
