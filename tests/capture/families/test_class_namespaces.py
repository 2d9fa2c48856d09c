"""A class's namespace read whole (families/mapping_proxies.py ``ClassNamespaceValue``):
``dict(cls.__dict__)``, ``dict(vars(cls))``, iteration, ``len`` and ``copy()`` guard its names in
order and each entry, so a class changed between calls is read again; after a store to the class
in the same call it breaks. ``typing.get_type_hints`` (which reads ``dict(vars(base))`` of every
base) is captured whole; a string annotation is evaluated by ``eval``, which runs in Python."""
from __future__ import annotations

import typing

import torch

import autograph
from autograph.explain.explain import explain


class Config:
    scale = 2

    def method(self):
        return 1


Row = typing.TypedDict("Row", {"a": int, "b": list[float]})  # (the class syntax makes strings here)


class Forward(typing.TypedDict):
    a: int  # a string under ``from __future__ import annotations``


def namespace_whole(x):
    ns = dict(vars(Config))
    names = [name for name in Config.__dict__ if not name.startswith("__")]
    return x * ns["scale"], names, len(Config.__dict__) == len(Config.__dict__.copy())


def test_a_class_namespace_read_whole_is_captured_and_guarded():
    assert explain(namespace_whole, torch.ones(2)).graph_break_count == 0
    compiled = autograph.compile(namespace_whole, backend="eager")
    try:
        for value in (2, 2, 5):
            Config.scale = value
            if value == 5:
                Config.extra = 1  # a new name: the guarded names differ
            plain, got = namespace_whole(torch.ones(2)), compiled(torch.ones(2))
            assert torch.equal(plain[0], got[0]) and plain[1:] == got[1:]
    finally:
        Config.scale = 2
        if "extra" in Config.__dict__:
            del Config.extra


def store_then_read_whole(x, value):
    Config.added = value
    return x + 1, sorted(name for name in dict(vars(Config)) if not name.startswith("__"))


def test_reading_a_namespace_the_call_stored_into_runs_in_python():
    compiled = autograph.compile(store_then_read_whole, backend="eager")
    try:
        for value in (1, 2):
            plain = store_then_read_whole(torch.ones(2), value)
            del Config.added
            got = compiled(torch.ones(2), value)
            assert torch.equal(plain[0], got[0]) and plain[1] == got[1] and Config.added == value
            del Config.added
    finally:
        if "added" in Config.__dict__:
            del Config.added


def hints(x):
    return x + len(typing.get_type_hints(Row)), typing.get_type_hints(Row)


def test_get_type_hints_is_captured_whole():
    assert explain(hints, torch.ones(2)).graph_break_count == 0
    compiled = autograph.compile(hints, backend="eager")
    for _ in range(3):
        plain, got = hints(torch.ones(2)), compiled(torch.ones(2))
        assert torch.equal(plain[0], got[0]) and plain[1] == got[1] == {"a": int, "b": list[float]}


def forward_hints(x):
    return x + 1, typing.get_type_hints(Forward)


def test_get_type_hints_of_a_string_annotation_is_right():
    compiled = autograph.compile(forward_hints, backend="eager")
    for _ in range(2):
        assert compiled(torch.ones(2))[1] == forward_hints(torch.ones(2))[1] == {"a": int}
