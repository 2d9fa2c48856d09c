"""The adapter that runs PyTorch's Dynamo unit tests against autograph: routing and classes."""
from __future__ import annotations

import hashlib
import re
import sys
import textwrap
from pathlib import Path

import pytest

from autograph.testing import dynamo_adapter as da

ROOT = Path(__file__).resolve().parents[2]

SYNTHETIC = textwrap.dedent('''
    import unittest
    import torch
    import torch._dynamo.test_case
    import torch._dynamo.testing
    from torch._dynamo.exc import Unsupported
    from torch._dynamo.testing import CompileCounter, EagerAndRecordGraphs
    from torch.testing._internal.common_utils import make_dynamo_test


    def wrong_backend(gm, example_inputs):
        return lambda *args: tuple(o + 1 for o in gm.forward(*args))


    class Cases(torch._dynamo.test_case.TestCase):
        def test_strict(self):
            cnt = CompileCounter()
            f = torch.compile(lambda x: x.sin() + 1, backend=cnt, fullgraph=True)
            x = torch.randn(3)
            self.assertEqual(f(x), x.sin() + 1)
            self.assertEqual(cnt.frame_count, 1)
            self.assertEqual(cnt.op_count, 2)

        def test_count_differs(self):
            cnt = CompileCounter()
            f = torch._dynamo.optimize(cnt)(lambda x: x * 2)
            x = torch.randn(3)
            self.assertEqual(f(x), x * 2)
            self.assertEqual(cnt.frame_count, 5)
            assert cnt.op_count == 7
            self.assertTrue(cnt.frame_count, 1)

        def test_capture_fails(self):
            def fn(x):
                print("a graph break")
                return x + 1
            f = torch._dynamo.optimize_assert("eager")(fn)
            x = torch.randn(3)
            self.assertEqual(f(x), x + 1)

        def test_wrong(self):
            f = torch.compile(lambda x: x * 3, backend=wrong_backend)
            x = torch.randn(3)
            self.assertEqual(f(x), x * 3)

        def test_dynamo_config(self):
            with torch._dynamo.config.patch(cache_size_limit=1):
                pass

        @unittest.skip("needs a GPU")
        def test_skipped(self):
            pass

        @unittest.expectedFailure
        def test_expected_failure(self):
            raise AssertionError

        def test_graphs_recorded(self):
            eager = EagerAndRecordGraphs()
            f = torch.compile(lambda x: x.cos() * 2, backend=eager)
            x = torch.randn(3)
            self.assertEqual(f(x), x.cos() * 2)
            self.assertEqual(len(eager.graphs), 7)

        def test_expects_dynamo_error(self):
            f = torch.compile(lambda x: x + 1, backend="eager")
            with self.assertRaises(KeyError):  # an error only Dynamo would raise
                f(torch.randn(2))

        @make_dynamo_test
        def test_whole_body_compiled(self):
            self.assertTrue([1, 2].count(1) == 1)

        def test_dynamo_error_imported_by_name(self):
            f = torch.compile(lambda x: x + 1, backend="eager", fullgraph=True)
            with self.assertRaises(Unsupported):
                f(torch.randn(2))

        def test_fails_eagerly(self):
            def gen():
                try:
                    yield 1
                except GeneratorExit:
                    return 2
            f = torch.compile(lambda g: g.close(), backend="eager")
            g = gen()
            next(g)
            self.assertEqual(f(g), 2)  # Python 3.13's close(); None before

        def _node_names(self, fn, x):
            eager = EagerAndRecordGraphs()
            torch.compile(fn, backend=eager)(x)
            return [n.name for n in eager.graphs[0].graph.nodes]

        def test_graph_nodes_read_in_a_helper(self):
            self.assertEqual(self._node_names(lambda x: x.sin(), torch.randn(2)), ["Dynamo's names"])

        def test_graph_text_compared(self):
            eager = EagerAndRecordGraphs()
            torch.compile(lambda x: x.cos(), backend=eager)(torch.randn(2))
            self.assertIn("L_x_", eager.graphs[0].print_readable(False))
''')


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    path = tmp_path_factory.mktemp("upstream") / "test_synthetic.py"
    path.write_text(SYNTHETIC)
    module = da.load_module(path, "autograph_synthetic_dynamo_tests")
    return {o.name.split(".")[-1]: o for o in (da.classify(t) for t in da.collect(module))}


@pytest.mark.parametrize("test, klass", [
    ("test_strict", "strict"), ("test_count_differs", "values"), ("test_capture_fails", "fallback"),
    ("test_wrong", "wrong"), ("test_dynamo_config", "out-of-scope"), ("test_skipped", "skipped"),
    ("test_expected_failure", "out-of-scope"), ("test_graphs_recorded", "values"),
    ("test_expects_dynamo_error", "out-of-scope"), ("test_whole_body_compiled", "strict"),
    ("test_dynamo_error_imported_by_name", "out-of-scope"), ("test_fails_eagerly", "out-of-scope"),
    ("test_graph_nodes_read_in_a_helper", "out-of-scope"), ("test_graph_text_compared", "out-of-scope"),
])
def test_each_test_lands_in_its_class(outcomes, test, klass):
    assert outcomes[test].klass == klass, outcomes[test]


def test_failing_with_no_compiler_is_out_of_scope(outcomes):
    assert outcomes["test_expects_dynamo_error"].reason.startswith("fails-uncompiled")


def test_make_dynamo_test_bodies_reach_autograph(outcomes):
    """``make_dynamo_test`` binds ``optimize_assert`` at class definition: still routed."""
    calls = []
    real = da._compile
    da._compile = lambda *a, **k: calls.append(a) or real(*a, **k)
    try:
        module = sys.modules["autograph_synthetic_dynamo_tests"]
        test = [t for t in da.collect(module, "whole_body")][0]
        assert da.classify(test).klass == "strict"
    finally:
        da._compile = real
    assert calls


def test_a_fallback_names_the_capture_error(outcomes):
    assert "graph break" in outcomes["test_capture_fails"].reason


def test_scope_reasons_name_the_rule(outcomes):
    assert outcomes["test_dynamo_error_imported_by_name"].reason.startswith("dynamo-exceptions")
    assert outcomes["test_fails_eagerly"].reason.startswith("fails-uncompiled")
    assert outcomes["test_graph_nodes_read_in_a_helper"].reason.startswith("graph-nodes")  # self._node_names
    assert outcomes["test_graph_text_compared"].reason.startswith("graph-nodes")  # Dynamo's placeholder names


def test_entry_points_bound_in_closure_cells_are_routed_and_restored():
    """``make_dynamo_test`` imports ``optimize_assert`` when the file is imported: the test's
    closure cells are pointed at autograph for the run, then restored."""
    import torch._dynamo.testing
    from torch.testing._internal.common_utils import make_dynamo_test
    import unittest

    class Case(unittest.TestCase):
        @make_dynamo_test
        def test_it(self):
            pass

    case = Case("test_it")
    cells = [c for c in da._closure_cells(Case.test_it)
             if c.cell_contents is torch._dynamo.testing.optimize_assert]
    assert cells
    with da.routed(da.Recorder(), case):
        assert all(c.cell_contents is da._optimize_assert for c in cells)
    assert all(c.cell_contents is torch._dynamo.testing.optimize_assert for c in cells)


def test_routing_is_undone_after_a_run():
    import torch._dynamo
    import torch._dynamo.testing
    before = (torch.compile, torch._dynamo.optimize, torch._dynamo.reset, torch._dynamo.testing.optimize_assert)
    with da.routed(da.Recorder()):
        assert torch.compile is not before[0]
    assert (torch.compile, torch._dynamo.optimize, torch._dynamo.reset,
            torch._dynamo.testing.optimize_assert) == before


def test_totals_count_in_scope_tests(outcomes):
    counts = da.totals(list(outcomes.values()))
    assert counts["total"] == 14 and counts["in_scope"] == 6
    assert da.clusters(list(outcomes.values()))  # the non-strict ones have a cause


VENDORED_ROW = re.compile(r"^\| `(test_\w+\.py)` \| `([0-9a-f]{40})` \| `([0-9a-f]{64})` \|$", re.MULTILINE)


def test_vendored_files_are_unchanged():
    """The README records the commit and sha256 of every upstream file; each must still match,
    and every vendored test file has its row."""
    folder = ROOT / "tests" / "upstream" / "dynamo"
    rows = {name: digest for name, _, digest in VENDORED_ROW.findall((folder / "README.md").read_text())}
    assert set(rows) == {p.name for p in folder.glob("test_*.py")}
    for name, digest in rows.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
