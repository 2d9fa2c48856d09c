"""The interpreter's normalised instructions (torch-free: runs under 3.11 and 3.12)."""
from __future__ import annotations

import dis
import sys

from autograph.capture.instructions import normalize

PY312 = sys.version_info >= (3, 12)


def calls(x):
    return g(x, 1, k=2) + x.method(3)


def loops(xs):
    total = 0
    for i in range(3):
        total += xs[1:2][0] * i
    return [v * 2 for v in xs], total


def branches(a, b=None):
    if b is None:
        return a
    while a > 0 and b:
        a -= 1
    return a or b


def tries(x):
    try:
        return int(x)
    except ValueError:
        return 0


def ops(f):
    return [i.opname for i in normalize(f.__code__)]


def test_one_form_for_calls_and_methods():
    names = ops(calls)
    assert "PRECALL" not in names and "KW_NAMES" not in names
    assert "LOAD_METHOD" in names
    call_kw = [i for i in normalize(calls.__code__) if i.opname == "CALL"][0]
    assert call_kw.argval == ("k",) and call_kw.arg == 3
    # a resume before a CALL starts where its folded KW_NAMES/PRECALL started
    raw = {i.offset: i.opname for i in dis.get_instructions(calls)}
    assert raw[call_kw.resume_offset] in ("KW_NAMES", "PRECALL")


def test_jumps_have_targets_and_one_name():
    for f in (loops, branches):
        for ins in normalize(f.__code__):
            assert not ins.opname.startswith(("JUMP_FORWARD", "JUMP_BACKWARD", "POP_JUMP_FORWARD",
                                              "POP_JUMP_BACKWARD"))
            if ins.opname in ("JUMP", "FOR_ITER") or ins.opname.startswith("POP_JUMP_IF"):
                assert ins.target is not None and ins.target.offset >= 0


def test_for_iter_exhaustion_skips_end_for():
    insts = normalize(loops.__code__)
    for ins in insts:
        if ins.opname == "FOR_ITER":
            assert ins.target.opname != "END_FOR"


def test_slices_split_and_return_const_split():
    names = ops(loops)
    assert "BINARY_SLICE" not in names and "BUILD_SLICE" in names
    assert "RETURN_CONST" not in ops(branches)


def test_compare_op_argval_is_the_operator():
    cmp = [i for i in normalize(branches.__code__) if i.opname == "COMPARE_OP"]
    assert cmp and cmp[0].argval == ">"


def test_exception_entries_attached():
    insts = normalize(tries.__code__)
    covered = [i for i in insts if i.exn is not None]
    assert covered and all(i.exn.target.opname for i in covered)


def test_indices_and_cache():
    insts = normalize(loops.__code__)
    assert [i.index for i in insts] == list(range(len(insts)))
    assert normalize(loops.__code__) is insts
