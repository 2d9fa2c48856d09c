"""Resume codes map back to the user's code by identity (engine/code_origins.py): code objects
compare by content, and an equal resume code made later must keep its own mapping when the
first one dies (found in the Dynamo suite: a resume function's own breaks then failed to resume)."""
from __future__ import annotations

import gc

from autograph.capture.engine import codegen
from autograph.capture.engine.code_origins import CodeObjectMap


def _code():
    return compile("def f(x):\n    y = x + 1\n    return y\n", "<origin-test>", "exec").co_consts[0]


def test_equal_resume_codes_keep_their_own_origin_when_one_dies():
    original_a, original_b = _code(), _code()
    first, second = _code(), _code()
    assert first == second and first is not second
    codegen._ORIGIN[first] = (original_a, {4: 2})
    codegen._ORIGIN[second] = (original_b, {4: 2})
    assert codegen.origin_of(first, 4)[0] is original_a
    del first
    gc.collect()
    assert codegen.origin_of(second, 4) == (original_b, 2)
    assert codegen.origin_of(second, 4)[0] is original_b


def test_code_object_map_is_by_identity_and_weak():
    origins = CodeObjectMap()
    a, b = _code(), _code()
    origins[a] = "a"
    assert a in origins and b not in origins and origins.get(b) is None
    origins[b] = "b"
    assert (origins[a], origins[b], len(origins)) == ("a", "b", 2)
    del a
    gc.collect()
    assert len(origins) == 1 and origins[b] == "b"
