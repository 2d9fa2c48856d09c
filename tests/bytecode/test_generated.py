"""Hypothesis-generated straight-line and branchy functions: round trips and
resume functions at every offset behave like the original (torch-free)."""
from __future__ import annotations

import types

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograph.bytecode.assemble import abstract_with_offsets, assemble
from autograph.bytecode.instructions import normalize
from tests.bytecode.bc_corpus import outcome
from tests.bytecode.test_resume import eligible_offsets, resume_outcome

VARS = ["a", "b", "v0", "v1", "v2"]

atoms = st.one_of(st.sampled_from(VARS), st.integers(-3, 9).map(str))


@st.composite
def expressions(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        return draw(atoms)
    op = draw(st.sampled_from(["+", "-", "*", "//", "%", "<", "==", "and", "or"]))
    return f"({draw(expressions(depth - 1))} {op} {draw(expressions(depth - 1))})"


@st.composite
def statements(draw, depth=2, indent="    "):
    kind = draw(st.sampled_from(["assign", "assign", "if", "for", "try", "while"] if depth else ["assign"]))
    target = draw(st.sampled_from(VARS[2:]))
    if kind == "assign":
        return [f"{indent}{target} = {draw(expressions())}"]
    inner = indent + "    "
    body = [line for _ in range(draw(st.integers(1, 2))) for line in draw(statements(depth - 1, inner))]
    if kind == "if":
        other = [line for line in draw(statements(depth - 1, inner))]
        return [f"{indent}if {draw(expressions(1))}:", *body, f"{indent}else:", *other]
    if kind == "for":
        return [f"{indent}for {target} in range({draw(st.integers(0, 4))}):", *body]
    if kind == "while":
        k = f"k{depth}"  # one counter per nesting level: loops always end
        return [f"{indent}{k} = 0", f"{indent}while {k} < {draw(st.integers(0, 3))}:",
                f"{inner}{k} += 1", *body]
    return [f"{indent}try:", *body, f"{indent}except ZeroDivisionError:",
            f"{inner}{target} = -1"]


@st.composite
def functions(draw):
    lines = ["def gen(a, b):", "    v0 = v1 = v2 = 0"]
    for _ in range(draw(st.integers(1, 4))):
        lines += draw(statements())
    lines.append("    return a, b, v0, v1, v2")
    ns: dict = {}
    exec(compile("\n".join(lines) + "\n", "<generated>", "exec"), ns)
    return ns["gen"], (draw(st.integers(-4, 6)), draw(st.integers(-4, 6)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(functions())
def test_generated_round_trip(case):
    fn, args = case
    code = fn.__code__
    new = assemble(abstract_with_offsets(code)[0])
    assert new.co_exceptiontable == code.co_exceptiontable
    assert list(new.co_positions()) == list(code.co_positions())
    assert [(i.opname, repr(i.argval) if i.target is None else i.target.index) for i in normalize(new)] == \
        [(i.opname, repr(i.argval) if i.target is None else i.target.index) for i in normalize(code)]
    twin = types.FunctionType(new, fn.__globals__, "gen")
    assert outcome(twin, args) == outcome(fn, args)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(functions())
def test_generated_resume_everywhere(case):
    fn, args = case
    expected = outcome(fn, args)
    for offset in eligible_offsets(fn):
        got = resume_outcome(fn, args, offset)
        if got is not None:
            assert got == expected, offset
