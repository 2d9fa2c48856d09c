"""Handler table, debug stack checks, unknown opcodes, records for explain, runtime integration."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.capture.engine.api import capture
from autograph.errors import CaptureError
from tests.capture.checks import check
from tests.capture.harness import Harness


def neg_then_mul(x):
    return -x * 2


def fstring_fn(x):
    label = f"n={3}"
    return x * len(label)


def test_debug_mode_catches_a_handler_with_a_wrong_stack_effect(monkeypatch):
    import autograph.capture.engine.interpreter as interp

    def bad(tx, frame, inst):
        v = frame.pop()
        frame.push(tx.unary("-", v))
        frame.push(v)
    monkeypatch.setitem(interp.HANDLERS, "UNARY_NEGATIVE", bad)
    h = Harness()
    with pytest.raises(CaptureError, match="moved the stack"):
        capture(neg_then_mul, (torch.randn(3),), {}, h.settings, wrap_nested=h.wrap)


def test_unknown_opcode_is_a_graph_break_not_a_crash(monkeypatch):
    import autograph.capture.engine.interpreter as interp
    monkeypatch.delitem(interp.HANDLERS, "BUILD_STRING")
    h = check(fstring_fn, lambda: (torch.randn(3),))
    assert any("unsupported bytecode BUILD_STRING" in b.reason for b in h.breaks)


def test_handlers_registered_per_version():
    import sys
    import autograph.capture.engine.interpreter as interp
    # 3.11's LIST_TO_TUPLE / UNARY_POSITIVE reach the interpreter as CALL_INTRINSIC_1 (normal form)
    assert "CALL_INTRINSIC_1" in interp.HANDLERS
    assert "LIST_TO_TUPLE" not in interp.HANDLERS and "UNARY_POSITIVE" not in interp.HANDLERS
    assert ("END_FOR" in interp.HANDLERS) == (sys.version_info >= (3, 12))


def test_interpreter_uses_the_bytecode_layers_normaliser():
    import autograph.bytecode.instructions as bc
    import autograph.capture.engine.interpreter as interp
    assert interp.normalize is bc.normalize and interp.Instruction is bc.Instruction


def star_tuple_and_unary_plus(x, ys):
    parts = (*ys, x)  # 3.11: LIST_TO_TUPLE, 3.12: CALL_INTRINSIC_1
    return +parts[0] * len(parts) + (+x)  # 3.11: UNARY_POSITIVE


def test_intrinsics_captured_without_a_break():
    names = {i.opname for i in __import__("dis").get_instructions(star_tuple_and_unary_plus)}
    assert names & {"LIST_TO_TUPLE", "UNARY_POSITIVE", "CALL_INTRINSIC_1"}
    h = check(star_tuple_and_unary_plus, lambda: (torch.randn(3), [torch.randn(3), torch.randn(3)]))
    assert h.breaks == [] and len(h.backend.graphs) == 1


def toy(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def test_records_for_explain():
    h = Harness()
    h.compile(toy)(torch.randn(10), torch.ones(10))
    first = h.results[0]
    assert first.transformed_code is not None and first.capture_seconds > 0
    assert first.graphs[0].name.startswith("__compiled_fn_") and first.graphs[0].op_count == 5
    assert "b.sum() < 0" in first.graphs[0].gm.code  # source-line comments in gm.code
    assert {r.name.split("_")[4] for r in first.resumes} and all(r.lineno for r in first.resumes)
    assert all(r.original_code is toy.__code__ for r in first.resumes)
    assert all(r.name.startswith("__resume_at_") for r in first.resumes)
    b = first.breaks[0]
    assert b.filename == __file__ and b.source_line == "if b.sum() < 0:" and b.user_stack
    assert "__compiled_fn_" in first.transformed_source and "__out[" in first.transformed_source


def test_backend_gets_real_example_inputs_like_torch_compile():
    h = Harness()
    a, b = torch.randn(10), torch.randn(10)
    h.compile(toy)(a, b)
    ex = h.backend.example_inputs[0]
    assert [type(t) for t in ex] == [torch.Tensor, torch.Tensor] and ex[0] is a


def no_tensors(n):
    return [i * 2 for i in range(n)]


def test_no_tensor_work_is_reported():
    h = Harness()
    assert h.compile(no_tensors)(3) == [0, 2, 4]
    assert h.results[0].no_tensor_work


def test_guards_are_readable_and_name_the_failure():
    h = Harness()
    h.compile(toy)(torch.randn(10), torch.randn(10))
    guards = h.results[0].guards
    srcs = [g.src for g in guards.guards]
    assert any(s.startswith("___check_tensor(a, torch.float32, 'cpu', (10,), (1,)") for s in srcs)
    assert any("is_grad_enabled" in s for s in srcs)
    failed = guards.first_failure(torch.randn(10, dtype=torch.float64), torch.randn(10))
    assert failed is not None and failed.source.expr == "a"


def test_compile_runs_through_the_runtime_shim():
    autograph.reset()
    f = autograph.compile(toy, backend="eager")
    for _ in range(4):
        a, b = torch.randn(10), torch.randn(10)
        torch.testing.assert_close(f(a, b), toy(a, b))
    assert f.stats.breaks == 1 and f.stats.captures == 1


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            return torch.relu(h)
        return h


def test_compiled_module_trains_like_eager():
    torch.manual_seed(0)
    m1 = Small()
    m2 = Small()
    m2.load_state_dict(m1.state_dict())
    autograph.reset()
    c = autograph.compile(m2, backend="eager")
    o1, o2 = torch.optim.SGD(m1.parameters(), lr=0.1), torch.optim.SGD(m2.parameters(), lr=0.1)
    for _ in range(4):
        x = torch.randn(3, 4)
        for _m, opt, run in ((m1, o1, m1), (m2, o2, c)):
            opt.zero_grad()
            run(x).pow(2).sum().backward()
            opt.step()
    torch.testing.assert_close(m1.fc.weight, m2.fc.weight)
    torch.testing.assert_close(m1.fc.bias, m2.fc.bias)


def test_resume_functions_are_cached_per_code_and_offset():
    h1, h2 = Harness(), Harness()
    h1.compile(toy)(torch.randn(10), torch.randn(10))
    h2.compile(toy)(torch.randn(10), torch.randn(10))
    r1 = {r.offset: r for r in h1.results[0].resumes}
    r2 = {r.offset: r for r in h2.results[0].resumes}
    assert r1.keys() == r2.keys()


def test_fullgraph_turns_a_break_into_a_capture_error():
    h = Harness(fullgraph=True)
    with pytest.raises(CaptureError, match="fullgraph=True: data-dependent branch") as info:
        capture(toy, (torch.randn(10), torch.randn(10)), {}, h.settings, wrap_nested=h.wrap)
    assert info.value.filename == __file__ and info.value.lineno == toy.__code__.co_firstlineno + 2
