"""Normal forms of autograph.bytecode.instructions, one quirk per test (torch-free)."""
from __future__ import annotations

import dis
import sys

import pytest

from autograph.bytecode.instructions import (
    CALL_LAYOUT,
    format_instructions,
    index_at,
    instruction_at,
    normalize,
)

PY = sys.version_info[:2]
GONE = {"EXTENDED_ARG", "CACHE", "NOP", "PRECALL", "KW_NAMES", "END_FOR", "RETURN_CONST",
        "BINARY_SLICE", "STORE_SLICE", "JUMP_FORWARD", "JUMP_BACKWARD",
        "JUMP_BACKWARD_NO_INTERRUPT", "CALL_KW", "LOAD_FAST_LOAD_FAST",
        "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST", "LIST_TO_TUPLE", "UNARY_POSITIVE"}


def ops(fn):
    return [i.opname for i in normalize(fn.__code__)]


def first(fn, opname):
    return next(i for i in normalize(fn.__code__) if i.opname == opname)


def all_of(fn, opname):
    return [i for i in normalize(fn.__code__) if i.opname == opname]


def g(*a, **k):
    return a, k


def test_cached_per_code_object():
    def f(a):
        return a + 1
    assert normalize(f.__code__) is normalize(f.__code__)


def test_indices_are_positions():
    def f(a):
        return [x for x in a if x]
    ins = normalize(f.__code__)
    assert [i.index for i in ins] == list(range(len(ins)))


def test_call_folds_kw_names_and_drops_precall():
    def f(a, b):
        return g(a, 1, k=b, z=2)
    names = ops(f)
    assert not (GONE & set(names)), names
    call = first(f, "CALL")
    assert call.arg == 4
    assert call.argval == ("k", "z")


def test_call_without_keywords_has_empty_names():
    def f(a):
        return g(a)
    call = first(f, "CALL")
    assert (call.arg, call.argval) == (1, ())


def test_call_layout_documented():
    assert CALL_LAYOUT[0] == ("callable" if PY >= (3, 13) else "null_or_callable")


def test_load_global_push_null_flag():
    def f(a):
        return g(a), len
    loads = all_of(f, "LOAD_GLOBAL")
    assert [(i.argval, i.push_null, i.arg & 1) for i in loads] == [("g", True, 1), ("len", False, 0)]


def test_method_call_is_load_method_and_plain_attr_is_load_attr():
    def f(a):
        return a.real, a.conjugate()
    assert first(f, "LOAD_ATTR").argval == "real"
    m = first(f, "LOAD_METHOD")
    assert m.argval == "conjugate"
    assert f.__code__.co_names[m.arg] == "conjugate"
    assert f.__code__.co_names[first(f, "LOAD_ATTR").arg] == "real"


def test_load_super_attr_flags():
    class A:
        def m(self):
            return 1

    class B(A):
        def m(self):
            return super().m() + super(B, self).m()

        def n(self):
            return super().m
    if PY < (3, 12):
        assert "LOAD_SUPER_ATTR" not in ops(B.m)
        assert B().m() == 2
        return
    sup = all_of(B.m, "LOAD_SUPER_ATTR")
    assert [i.argval for i in sup] == ["m", "m"]
    assert sup[0].flags == {"method"}
    assert sup[1].flags == {"method", "two_args"}
    assert first(B.n, "LOAD_SUPER_ATTR").flags == frozenset()


def test_binary_slice_split():
    def f(a):
        return a[1:3]
    names = ops(f)
    i = names.index("BUILD_SLICE")
    assert names[i + 1] == "BINARY_SUBSCR"
    assert first(f, "BUILD_SLICE").arg == 2
    sub = first(f, "BINARY_SUBSCR")
    assert sub.synthetic == (PY >= (3, 12))
    if PY >= (3, 12):
        assert sub.offset == first(f, "BUILD_SLICE").offset


def test_store_slice_split():
    def f(a, v):
        a[1:3] = v
    names = ops(f)
    i = names.index("BUILD_SLICE")
    assert names[i + 1] == "STORE_SUBSCR"


def test_return_const_split():
    def f(a):
        a.x = 1
        return 5
    names = ops(f)
    assert names[-2:] == ["LOAD_CONST", "RETURN_VALUE"]
    ins = normalize(f.__code__)
    assert ins[-2].argval == 5
    assert ins[-1].synthetic == (PY >= (3, 12))


def test_unconditional_jumps_become_jump():
    def f(a):
        while a:
            a -= 1
            if a == 3:
                continue
        else:
            a = 7
        return a
    names = set(ops(f))
    assert "JUMP" in names
    assert not (names & GONE)
    for j in all_of(f, "JUMP"):
        assert j.target is not None and j.argval == j.target.offset


def test_pop_jumps_are_directionless():
    def f(a, b):
        if a is None:
            a = 1
        if b is not None:
            b = 2
        if a:
            b = 3
        if not b:
            a = 4
        return a, b
    names = set(ops(f))
    assert {"POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"} <= names
    assert names & {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"}
    assert not any("FORWARD" in n or "BACKWARD" in n for n in names)


def test_jump_targets_are_instructions_in_list():
    def f(a):
        for x in a:
            if x:
                break
        return x
    ins = normalize(f.__code__)
    for i in ins:
        if i.target is not None:
            assert ins[i.target.index] is i.target


def test_compare_op_argval_is_operator():
    def f(a, b):
        return a < b, a == b, a >= b, a != b
    assert [i.argval for i in all_of(f, "COMPARE_OP")] == ["<", "==", ">=", "!="]


def test_binary_op_argval_is_symbol():
    def f(a, b):
        c = a + b
        c += a
        return c @ b, c // b, c ** 2
    assert [i.argval for i in all_of(f, "BINARY_OP")] == ["+", "+=", "@", "//", "**"]


def test_for_iter_target_skips_end_for():
    def f(a):
        t = 0
        for x in a:
            t += x
        return t
    it = first(f, "FOR_ITER")
    after = it.target
    # the instruction after the loop reads t for the return
    assert (after.opname, after.argval) == ("LOAD_FAST", "t")
    assert "END_FOR" not in ops(f)
    # the loop body jumps back to FOR_ITER
    assert any(j.target is it for j in all_of(f, "JUMP"))


def test_nested_loops_for_iter_targets():
    def f(a):
        t = 0
        for x in a:
            for y in x:
                t += y
            t -= 1
        return t
    outer, inner = all_of(f, "FOR_ITER")
    assert (inner.target.opname, inner.target.argval) == ("LOAD_FAST", "t")
    assert inner.target.index < outer.target.index
    assert outer.target.argval == "t"


def test_comprehension_fast_locals_kept():
    def f(a):
        x = 3
        return [x for x in a], x
    names = set(ops(f))
    if PY >= (3, 12):
        assert "LOAD_FAST_AND_CLEAR" in names
    assert not (names & GONE)


def test_load_fast_check_kept():
    def f(a):
        if a:
            y = 1
        del a
        return y
    if PY >= (3, 12):
        assert "LOAD_FAST_CHECK" in ops(f)


def test_superinstructions_split_313():
    def f(a, b):
        c, d = a, b
        return a + b + c + d
    names = ops(f)
    assert not (set(names) & GONE)
    loads = [(i.opname, i.argval) for i in normalize(f.__code__) if i.opname.endswith("_FAST")]
    assert loads[:4] == [("LOAD_FAST", "a"), ("LOAD_FAST", "b"),
                         ("STORE_FAST", "d"), ("STORE_FAST", "c")]


def test_intrinsics_one_form():
    def f(a):
        return (*a,), +a[0]
    vals = [i.argval for i in all_of(f, "CALL_INTRINSIC_1")]
    assert "INTRINSIC_LIST_TO_TUPLE" in vals
    assert "INTRINSIC_UNARY_POSITIVE" in vals


def test_extended_arg_removed_and_jump_resolved():
    body = "\n".join(f"        v{i} = a + {i}" for i in range(300))
    src = f"def f(a):\n    if a:\n{body}\n    return a\n"
    ns: dict = {}
    exec(src, ns)
    f = ns["f"]
    assert any(i.opname == "EXTENDED_ARG" for i in dis.get_instructions(f.__code__))
    ins = normalize(f.__code__)
    assert "EXTENDED_ARG" not in {i.opname for i in ins}
    jump = next(i for i in ins if i.opname.startswith("POP_JUMP_IF"))
    assert (jump.target.opname, jump.target.argval) == ("LOAD_FAST", "a")
    assert jump.target.lineno == 303
    consts = [i for i in ins if i.opname == "LOAD_CONST" and i.argval == 299]
    assert len(consts) == 1


def test_exception_entries_attached():
    def f(a):
        try:
            a = a + 1
        except ValueError:
            a = 0
        return a
    ins = normalize(f.__code__)
    add = next(i for i in ins if i.opname == "BINARY_OP")
    assert add.exn is not None
    assert add.exn.target.opname == "PUSH_EXC_INFO"
    assert add.exn.depth == 0 and not add.exn.lasti
    ret = next(i for i in ins if i.opname == "RETURN_VALUE")
    assert ret.opname == "RETURN_VALUE" and ret.exn is None


def test_with_block_exception_depth():
    class CM:
        def __enter__(self):
            return self

        def __exit__(self, *e):
            return False

    def f(a):
        with CM():
            a = a * 2
        return a
    mul = first(f, "BINARY_OP")
    assert mul.exn is not None and mul.exn.depth == 1  # the __exit__ on the stack


def test_lines_and_offsets():
    def f(a):
        b = a + 1
        return b
    ins = normalize(f.__code__)
    first_line = f.__code__.co_firstlineno
    add = next(i for i in ins if i.opname == "BINARY_OP")
    assert add.lineno == first_line + 1
    assert next(i for i in ins if i.opname == "RETURN_VALUE").lineno == first_line + 2
    offsets = {i.offset for i in dis.get_instructions(f.__code__)}
    assert all(i.offset in offsets for i in ins)
    assert instruction_at(f.__code__, add.offset) is add


def test_instruction_at_forwards_removed_instructions():
    def f(a, b):
        return g(a, k=b)
    kw = [i for i in dis.get_instructions(f.__code__) if i.opname in ("KW_NAMES", "PRECALL")]
    call = first(f, "CALL")
    for k in kw:
        assert instruction_at(f.__code__, k.offset) is call
    with pytest.raises(ValueError):
        index_at(f.__code__, 10_000)


def test_format_instructions_is_readable():
    def f(a):
        for x in a:
            a = g(x, k=1)
        return a
    text = format_instructions(normalize(f.__code__))
    assert "FOR_ITER" in text and "to " in text
    assert "CALL" in text and "kw=('k',)" in text
    assert str(f.__code__.co_firstlineno + 2) in text


def _stdlib_functions():
    import argparse
    import collections
    import dataclasses
    import functools
    import inspect
    import json.decoder
    import json.encoder
    import types
    seen = []
    stack = [m.__dict__ for m in (argparse, collections, dataclasses, functools, inspect,
                                  json.decoder, json.encoder)]
    codes = []
    for ns in stack:
        for v in ns.values():
            if isinstance(v, type):
                for a in v.__dict__.values():
                    a = getattr(a, "__func__", a)
                    if isinstance(a, types.FunctionType):
                        codes.append(a.__code__)
            elif isinstance(v, types.FunctionType):
                codes.append(v.__code__)
    while codes:
        c = codes.pop()
        if c in seen:
            continue
        seen.append(c)
        codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return seen


def test_normalize_whole_stdlib_corpus_invariants():
    codes = _stdlib_functions()
    assert len(codes) > 500
    for code in codes:
        ins = normalize(code)
        assert ins, code
        names = {i.opname for i in ins}
        assert not (names & GONE), (code, names & GONE)
        for i in ins:
            if i.target is not None:
                assert ins[i.target.index] is i.target
            if i.exn is not None:
                assert ins[i.exn.target.index] is i.exn.target
            if i.opname == "CALL":
                assert isinstance(i.argval, tuple) and i.arg >= len(i.argval)
