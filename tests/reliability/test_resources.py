"""Memory stays bounded and caches die with what they cache; ``autograph.reset()`` frees everything."""
from __future__ import annotations

import gc
import importlib
import sys
import tracemalloc
import warnings
import weakref

import pytest
import torch

import autograph
from autograph.runtime import stats
from tests.reliability.conftest import write


def _scaled(x):
    return (x * 2).relu().sum()


def test_ten_thousand_calls_hundred_shapes_memory_bounded(eager_settings):
    eager_settings(dynamic="static", recompile_limit=8)
    fn = autograph.compile(_scaled)
    inputs = [torch.randn(n + 1) for n in range(100)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in inputs:  # warm-up: fills the cache up to the limit
            fn(x)
        gc.collect()
        tracemalloc.start()
        try:
            before, _ = tracemalloc.get_traced_memory()
            for i in range(10_000):
                fn(inputs[i % 100])
            gc.collect()
            after, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert len(fn.entries) == 8, "recompile limit caps the cache"
    [st] = [s for s in stats.all_stats() if s.qualname == "_scaled"]
    assert st.captures == 8
    # nothing per call may be retained: 10,000 calls must not grow memory by more than a few KiB each 100
    assert after - before < 256 * 1024, f"memory grew by {after - before} bytes over 10,000 calls"
    assert peak - before < 4 * 1024 * 1024


def _make_module(tmp_path, name: str):
    write(tmp_path, {f"{name}.py": """
        import torch

        def step(x):
            y = x.cos() + 1
            print("", end="")   # graph break: a resume function is generated
            return y * x.sum()
    """})
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    return module


def _collect_refs(shim):
    """Weak references to everything a shim's cache holds: entries, graph modules, resume functions."""
    refs = []
    for entry in shim.entries:
        refs.append(weakref.ref(entry))
        result = entry.result
        refs.append(weakref.ref(result.fn))  # the transformed function
        for g in result.graphs:
            refs.append(weakref.ref(g.gm))
        for r in result.resumes:
            refs.append(weakref.ref(r.function))
    return refs


def test_cache_of_dead_function_and_module_is_freed(eager_settings, tmp_path):
    eager_settings(dynamic="static")
    module = _make_module(tmp_path, "_ag_rel_dead_mod")
    compiled = autograph.compile(module.step)
    x = torch.randn(5)
    torch.testing.assert_close(compiled(x), (x.cos() + 1) * x.sum())
    refs = _collect_refs(compiled)
    assert len(refs) >= 3, "expected an entry, a graph module and a resume function"
    refs += [weakref.ref(compiled), weakref.ref(module), weakref.ref(module.step)]
    del compiled, module
    sys.modules.pop("_ag_rel_dead_mod")
    gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert alive == [], f"still alive after the function and module died: {alive}"
    assert stats.all_stats(), "the report still names the function after it died"


@pytest.mark.parametrize("dynamic", ["static", "auto"])
def test_reset_frees_every_graph_module(eager_settings, dynamic):
    eager_settings(dynamic=dynamic)
    fn = autograph.compile(_scaled)
    for n in (3, 4, 5):
        fn(torch.randn(n))
    refs = _collect_refs(fn)
    assert len(refs) >= 2
    autograph.reset()
    gc.collect()
    assert [r() for r in refs if r() is not None] == []
    assert fn.entries == ()
    x = torch.randn(6)  # still works afterwards, capturing afresh
    torch.testing.assert_close(fn(x), _scaled(x))


@pytest.mark.parametrize("dynamic", ["static", "auto"])
def test_cache_does_not_keep_the_callers_tensors_alive(eager_settings, dynamic):
    """A capture sees the first call's tensors; the cache entry it leaves must not hold them
    (a training job's first batch would otherwise stay in memory for the whole run)."""
    eager_settings(dynamic=dynamic)
    fn = autograph.compile(_scaled)
    refs = []
    for n in (3, 4, 5):
        x = torch.randn(n)
        torch.testing.assert_close(fn(x), _scaled(x))
        refs.append(weakref.ref(x))
        del x
    gc.collect()
    assert fn.entries, "expected live cache entries"
    assert [r() for r in refs if r() is not None] == []


def _branchy(x, w):
    y = x @ w
    if y.sum() > 1e9:  # a graph break: a replayed first pass and resume functions
        y = y * 0
    return torch.relu(y).sum(0) + x.size(0)


def test_no_shape_env_or_resume_code_survives_reset(eager_settings):
    """Symbolic captures (sizes change) with a graph break, then reset() + gc.collect(), six
    times: no ShapeEnv and no resume function's code object stays alive (they used to pile up
    through cycles the garbage collector cannot see, 1 more ShapeEnv per reset)."""
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    from autograph.runtime.cache import CodeState

    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, ShapeEnv)}  # other tests' live entries
    fn = autograph.compile(_branchy)
    w = torch.randn(8, 8)
    counts = []
    for _ in range(6):
        for n in range(2, 9):
            x = torch.randn(n, 8)
            torch.testing.assert_close(fn(x, w), _branchy(x, w))
        autograph.reset()
        gc.collect()
        objects = gc.get_objects()
        counts.append((sum(isinstance(o, ShapeEnv) and id(o) not in before for o in objects),
                       sum(isinstance(o, CodeState) and "__resume_at_" in o.code_ref().co_name
                           for o in objects if isinstance(o, CodeState) and o.code_ref() is not None)))
    assert counts == [(0, 0)] * 6
