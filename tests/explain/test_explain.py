"""autograph.explain: counts, break reasons in the user's words with file:line, live cache untouched."""
import re

import torch

import autograph
from autograph.runtime.stats import all_stats
from tests.explain import seeds

INTERNAL_NAME = re.compile(r"\b[A-Z][a-z]+[A-Z]\w*\b|\b\w*(Value|Variable|Dispatcher)\b")


def _ops_in(graphs):
    return sum(1 for gm in graphs for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))


def test_toy_example_counts_and_break_reason():
    a, b = torch.linspace(-1, 1, 10), -torch.ones(10)
    out = autograph.explain(seeds.toy_example, a, b)
    assert out.graph_count == 2 == len(out.graphs)
    assert out.graph_break_count == 1 == len(out.break_reasons)
    assert out.op_count == _ops_in(out.graphs) == 5 + 2
    line = seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    br = out.break_reasons[0]
    assert br.reason.startswith("data-dependent branch on a tensor value (`if b.sum() < 0:`")
    assert br.filename == seeds.__file__ and br.lineno == line
    assert br.source_line == "if b.sum() < 0:"
    assert br.user_stack[-1] == (seeds.__file__, line, "toy_example")
    assert torch.equal(out.result, seeds.toy_example(a, b))


def test_str_summarises_everything():
    a, b = torch.linspace(-1, 1, 10), torch.ones(10)
    out = autograph.explain(seeds.toy_example, a, b)
    text = str(out)
    first = seeds.toy_example.__code__.co_firstlineno
    line = seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    assert text.splitlines()[0] == f"toy_example (seeds.py:{first}): 2 graphs, 1 graph break, 6 ops."
    assert f"   at seeds.py:{line}: if b.sum() < 0:" in text
    assert re.search(r"1\. __compiled_fn_\d+: 5 ops: abs, add, truediv, sum, lt", text)
    assert re.search(r"2\. __compiled_fn_\d+: 1 op: mul", text)


def test_foo2_two_breaks_three_graphs():
    a, b = torch.linspace(-1, 1, 10), -torch.ones(10)
    out = autograph.explain(seeds.foo2, a, b)
    assert (out.graph_count, out.graph_break_count) == (3, 2)
    assert [r.lineno for r in out.break_reasons] == [seeds.line_of(seeds.foo2, "if b.sum() < 0:"),
                                                     seeds.line_of(seeds.foo2, "if x.sum() > 0:")]
    assert out.op_count == _ops_in(out.graphs)
    assert torch.equal(out.result, seeds.foo2(a, b))


def test_linear_relu_module_one_graph():
    m = seeds.LinearRelu()
    x = torch.randn(2, 4)
    out = autograph.explain(m, x)
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    assert out.ops_per_graph == [["linear", "relu"]]
    assert torch.equal(out.result, m(x))
    compiled = autograph.compile(m, backend="eager")
    assert autograph.explain(compiled, x).ops_per_graph == [["linear", "relu"]]


def test_break_reasons_speak_the_users_language(capsys):
    out = autograph.explain(seeds.side_effects, torch.ones(3))
    assert capsys.readouterr().out == "side effect\n"  # the print ran once, natively
    reasons = [r.reason for r in out.break_reasons]
    assert reasons[0] == "call to print() — a Python side effect"
    assert out.break_reasons[0].lineno == seeds.line_of(seeds.side_effects, 'print("side effect")')
    assert any("`float()` of a numpy value" in r for r in reasons)  # np.ones itself is compiled
    for r in reasons:
        assert not INTERNAL_NAME.search(r), f"internal name in break reason: {r!r}"
    assert torch.equal(out.result, seeds.side_effects(torch.ones(3)))


def test_explain_leaves_the_live_cache_alone():
    f = autograph.compile(seeds.toy_example, backend="eager")
    a, b = torch.linspace(-1, 1, 10), -torch.ones(10)
    f(a, b)
    before = [(s.qualname, s.calls, s.captures, len(s.entries)) for s in all_stats()]
    hits = [e.hits for e in f.entries]
    out = autograph.explain(f, a, b)
    assert out.graph_count == 2
    assert [(s.qualname, s.calls, s.captures, len(s.entries)) for s in all_stats()] == before
    assert [e.hits for e in f.entries] == hits and len(f.entries) == 1


def test_capture_failure_is_reported_and_the_call_still_runs(monkeypatch):
    from autograph.capture.engine import api
    from autograph.errors import CaptureError

    def failing(fn, *a, **k):
        raise CaptureError("cannot capture toy_example: something unsupported", seeds.__file__, 7)

    monkeypatch.setattr(api, "capture", failing)
    a, b = torch.ones(3), torch.ones(3)
    out = autograph.explain(seeds.toy_example, a, b)
    assert out.graph_count == 0 and len(out.failures) == 1
    assert "Not compiled (runs eagerly): toy_example: cannot capture toy_example: something unsupported " \
           "(seeds.py:7)" in str(out)
    assert out.failures[0].message == "cannot capture toy_example: something unsupported"
    assert torch.equal(out.result, seeds.toy_example(a, b))


def test_autograph_explain_stays_callable_after_a_submodule_import():
    import autograph.explain.report  # binds the package to autograph.explain  # noqa: F401

    out = autograph.explain(seeds.LinearRelu(), torch.randn(1, 4))
    assert out.graph_count == 1


def test_importing_the_package_is_cheap():
    import subprocess
    import sys

    code = "import sys, autograph.explain, autograph.explain.logs, autograph.explain.progress; " \
           "print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_break_inside_an_inlined_callee_keeps_the_user_stack(capsys):
    out = autograph.explain(seeds.outer, torch.ones(2))
    call_line = seeds.line_of(seeds.outer, "return helper(y) + 1")
    print_line = seeds.line_of(seeds.helper, 'print("inside helper")')
    first = out.break_reasons[0]
    assert first.user_stack == [(seeds.__file__, call_line, "outer"), (seeds.__file__, print_line, "helper")]
    assert (first.lineno, first.function) == (print_line, "outer")
    assert f"user stack: outer (seeds.py:{call_line}) -> helper (seeds.py:{print_line})" in str(out)
    # helper then runs through its own capture and breaks there again, once
    assert [b.function for b in out.break_reasons] == ["outer", "helper"]
    assert capsys.readouterr().out == "inside helper\n"
    assert torch.equal(out.result, seeds.outer(torch.ones(2)))


def test_each_break_shows_its_kind_explanation_and_hint():
    out = autograph.explain(seeds.toy_example, torch.linspace(-1, 1, 10), -torch.ones(10))
    br = out.break_reasons[0]
    assert br.kind == "data-dependent-branch"
    assert br.explanation.startswith("Python needs the value inside a tensor")
    assert "torch.where" in br.hint
    text = str(out)
    assert "[data-dependent-branch] data-dependent branch on a tensor value" in text
    assert f"why: {br.explanation}" in text and f"what to do: {br.hint}" in text
