"""autograph.inspect on the seeds' examples: guards, transformed code, subgraphs, resume markers."""
import re

import pytest
import torch

import autograph
from autograph.explain import render
from autograph.explain.find import find_shim
from tests.explain import seeds

MARK = "<== resumes here"


def _run_both_branches(f, n=10):
    pos, neg = torch.ones(n), -torch.ones(n)
    a = torch.linspace(-1, 1, n)
    return f(a, pos), f(a, neg), f(a, pos)


@pytest.fixture
def toy():
    f = autograph.compile(seeds.toy_example, backend="eager")
    _run_both_branches(f)
    return f


def test_repr_name_and_docstring_say_compiled(toy):
    assert repr(toy) == "<autograph compiled function toy_example, 1 cache entry>"
    assert toy.__name__ == "toy_example"
    assert toy.__doc__ == seeds.toy_example.__doc__


def test_header_counts_entries_and_names_the_file(toy):
    text = str(autograph.inspect(toy))
    line = seeds.toy_example.__code__.co_firstlineno
    assert text.splitlines()[0] == f"toy_example (seeds.py:{line}) is compiled by autograph. It has 1 cache entry."
    assert "Cache entry 1 — guards:" in text


def test_guards_in_plain_words_and_pasteable_source(toy):
    insp = autograph.inspect(toy)
    entry = insp.entries[0]
    assert "a: Tensor float32 cpu size (10,) stride (1,) requires_grad=False" in entry.guards
    assert "b: Tensor float32 cpu size (10,) stride (1,) requires_grad=False" in entry.guards
    assert "grad mode on" in entry.guards
    # the generated check is real Python with the same parameters as the function
    compile(entry.guard_source, "<guards>", "exec")
    assert re.match(r"def \w+\(a, b\):", entry.guard_source)
    assert "___check_tensor(a, torch.float32, 'cpu', (10,), (1,)" in entry.guard_source
    assert entry.hits == 2  # three calls: one capture, two hits


def test_transformed_code_is_the_generated_python_with_names_resolved(toy):
    insp = autograph.inspect(toy)
    entry = insp.entries[0]
    assert entry.transformed_how == "generated Python"
    assert entry.transformed.startswith("def toy_example(a, b):")
    assert re.search(r"__compiled_fn_\d+\(a, b\)", entry.transformed)
    resumes = re.findall(r"return (__resume_at_\d+_\d+)\(", entry.transformed)
    assert sorted(resumes) == sorted(r.name for r in entry.resumes)
    assert len(resumes) == 2
    assert "Transformed code (generated Python):" in str(insp)


def test_subgraph_code_has_source_line_comments(toy):
    sub = autograph.inspect(toy).entries[0].subgraphs[0]
    line = seeds.line_of(seeds.toy_example, "x = a / (torch.abs(a) + 1)")
    assert f"seeds.py:{line} in toy_example, code: x = a / (torch.abs(a) + 1)" in sub.code
    assert "torch.abs(a)" in sub.code
    assert sub.op_count == 5
    assert f"Subgraph {sub.name} (5 ops):" in str(autograph.inspect(toy))


def test_resume_functions_show_original_source_with_marker(toy):
    entry = autograph.inspect(toy).entries[0]
    by_line = {r.lineno: r for r in entry.resumes}
    neg_line = seeds.line_of(seeds.toy_example, "b = b * -1")
    ret_line = seeds.line_of(seeds.toy_example, "return x * b")
    assert set(by_line) == {neg_line, ret_line}
    for lineno, text in ((neg_line, "b = b * -1"), (ret_line, "return x * b")):
        r = by_line[lineno]
        marked = [line for line in r.source.splitlines() if MARK in line]
        assert len(marked) == 1 and text in marked[0]
        assert r.where == f"seeds.py:{lineno}"
        assert r.source.splitlines()[0] == "def toy_example(a, b):"
    text = str(autograph.inspect(toy))
    assert f"Resume function {by_line[neg_line].name} continues at seeds.py:{neg_line}:" in text


def test_resume_functions_have_their_own_nested_entries(toy):
    entry = autograph.inspect(toy).entries[0]
    for r in entry.resumes:
        assert r.inspection is not None
        assert len(r.inspection.entries) == 1
        inner = r.inspection.entries[0]
        assert inner.transformed.startswith(f"def {r.name}(")
        assert "b: Tensor float32 cpu size (10,)" in "\n".join(inner.guards)
    text = str(autograph.inspect(toy))
    assert re.search(r"^  __resume_at_\d+_\d+ has 1 cache entry\.$", text, re.M)


def test_foo2_nests_resumes_of_resumes():
    f = autograph.compile(seeds.foo2, backend="eager")
    _run_both_branches(f)
    insp = autograph.inspect(f)
    text = str(insp)
    first = insp.entries[0]
    assert len(first.breaks) == 1 and first.breaks[0].lineno == seeds.line_of(seeds.foo2, "if b.sum() < 0:")
    # the resume continuing after the first `if` breaks again on the second one
    second_if = seeds.line_of(seeds.foo2, "if x.sum() > 0:")
    nested_breaks = [b for r in first.resumes if r.inspection for e in r.inspection.entries for b in e.breaks]
    assert nested_breaks and all(b.lineno == second_if for b in nested_breaks)
    assert re.search(r"^  Resume function __resume_at_\d+_\d+ continues at seeds\.py:\d+:$", text, re.M)
    assert "data-dependent branch on a tensor value (`if x.sum() > 0:`" in text
    line = first.breaks[0].lineno
    assert f"Graph break: data-dependent branch on a tensor value (`if b.sum() < 0:`, seeds.py:{line})\n" in text


def test_linear_relu_module():
    m = autograph.compile(seeds.LinearRelu(), backend="eager")
    m(torch.randn(2, 4))
    insp = autograph.inspect(m)
    assert insp.name == "LinearRelu.forward" and len(insp.entries) == 1
    entry = insp.entries[0]
    words = "\n".join(entry.guards)
    assert "x: Tensor float32 cpu size (2, 4) stride (4, 1) requires_grad=False" in words
    # a module is described by the structure its guards check, in one line
    assert ("self: a LinearRelu whose lin is a Linear(weight float32 (3, 4), bias float32 (3,)); "
            "no hooks on self.lin") in words
    assert "no global module hooks (torch.nn.modules.module)" in words
    # identity guards read like the others: what is pinned, by name, never an address
    assert "torch.nn.modules.linear.F: the module torch.nn.functional (same object as when compiled)" in words
    assert " at 0x" not in words
    assert entry.resumes == [] and entry.breaks == []
    assert "relu" in entry.subgraphs[0].code and "linear" in entry.subgraphs[0].code
    assert entry.transformed.startswith("def forward(self, x):")


def test_depyf_failure_falls_back_to_dis_and_says_so(toy, monkeypatch):
    import depyf

    def broken(code):
        raise RuntimeError("unsupported opcode")

    monkeypatch.setattr(depyf, "decompile", broken)
    monkeypatch.setattr(find_shim(toy).entries[0].result, "transformed_source", "")  # a result without source
    entry = autograph.inspect(toy).entries[0]
    assert entry.transformed_how.startswith("bytecode; depyf could not decompile it (RuntimeError: unsupported opcode")
    assert "CALL" in entry.transformed and "__compiled_fn_" in entry.transformed


def test_not_compiled_function_says_so():
    def plain(x):
        return x

    text = str(autograph.inspect(plain))
    assert text.startswith("test_not_compiled_function_says_so.<locals>.plain (test_inspect.py:")
    assert "is not compiled by autograph" in text


def test_uncalled_compiled_function_has_no_entries():
    f = autograph.compile(seeds.foo2, backend="eager")
    assert "It has 0 cache entries." in str(autograph.inspect(f))


def test_marker_on_missing_source_is_explained():
    code = compile("def f(a):\n    return a\n", "<nowhere>", "exec").co_consts[0]
    assert "not available" in render.source_with_marker(code, 2)


def test_function_without_tensor_work_says_it_runs_eagerly():
    def count(n):
        return n + 1

    f = autograph.compile(count, backend="eager")
    assert f(1) == 2
    text = str(autograph.inspect(f))
    assert "It has 0 cache entries." in text
    assert "It runs eagerly from now on: no tensor work" in text
    out = autograph.explain(count, 1)
    assert out.graph_count == 0 and out.eager_functions == [count.__qualname__] and out.result == 2
    assert f"No tensor work, runs eagerly: {count.__qualname__}" in str(out)


def test_kernel_sources_exposed_by_the_backend_are_shown():
    class Kernel:
        name, source = "k0", "@triton.jit\ndef k0(x_ptr):\n    pass\n"

    def kernel_backend(gm, example_inputs):
        def run(*args):
            return gm(*args)
        run.kernels = [Kernel()]
        return run

    m = autograph.compile(seeds.LinearRelu(), backend=kernel_backend)
    m(torch.randn(2, 4))
    text = str(autograph.inspect(m))
    assert "  Kernel k0:\n      @triton.jit\n      def k0(x_ptr):" in text


def test_explain_accepts_keyword_arguments():
    a, b = torch.ones(3), -torch.ones(3)
    out = autograph.explain(seeds.toy_example, a, b=b)
    assert out.graph_break_count == 1 and torch.equal(out.result, seeds.toy_example(a, b))


def test_resume_shared_by_two_entries_is_shown_once(toy):
    toy(torch.ones(3), -torch.ones(3))  # a second entry reusing the same resume functions
    insp = autograph.inspect(toy)
    assert len(insp.entries) == 2
    first, second = ({r.name: r for r in e.resumes} for e in insp.entries)
    assert set(first) == set(second)
    assert all(r.inspection is not None for r in first.values())
    assert all(r.shown_above for r in second.values())
    assert str(insp).count("(its cache entries are shown above)") == 2


def test_identity_guard_words_name_modules_functions_and_classes():
    from autograph.guards.model import identity_words

    assert identity_words(torch.nn.functional) == "the module torch.nn.functional"
    assert identity_words(torch.nn.functional.relu) == "the function torch.nn.functional.relu"
    assert identity_words(torch.nn.Linear) == "the class torch.nn.modules.linear.Linear"
    assert identity_words(len) == "the builtin function len"
    assert identity_words(seeds.LinearRelu()) == "the LinearRelu object"
