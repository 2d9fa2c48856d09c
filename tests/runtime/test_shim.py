import logging
import threading
import warnings

import pytest
import torch

from autograph.errors import CaptureError
from autograph.runtime import shim as shim_mod
from autograph.runtime.shim import RecompileLimitWarning, Shim, is_capturing, shim_for  # noqa: F401

from autograph.guards import extension
from tests.runtime.fakes import FakeCapture, runtime_settings


@pytest.fixture(params=["python", "native"])
def runtime(request):
    """Install a fake capture + settings (hit path: generated Python checks or the C dispatcher)."""
    global Shim
    if request.param == "native":
        if extension.load() is None:
            pytest.skip("autograph._native not built (python setup.py build_ext --inplace)")
        extension.use_c_path(True)
        Shim = shim_mod.Shim
    else:
        extension.use_c_path(False)
        Shim = shim_mod.PyShim
    request.addfinalizer(lambda: extension.use_c_path(extension.load() is not None))
    state = {"settings": runtime_settings(), "capture": FakeCapture()}

    def setup(**kw):
        if "capture" in kw:
            state["capture"] = kw.pop("capture")
        state["settings"] = state["settings"].model_copy(update=kw)
        shim_mod.configure(settings_provider=lambda: state["settings"], capture=state["capture"])
        return state["capture"]

    previous = shim_mod.configure(settings_provider=lambda: state["settings"], capture=state["capture"])
    yield setup
    shim_mod.restore(previous)


def add(a, b):
    return a + b


def make_fn():
    """A fresh function with its own code object (code state is shared per code object)."""
    ns = {}
    exec(compile("def f(a, b):\n    return a * 2 + b\n", f"<make_fn {next(_ids)}>", "exec"), ns)
    return ns["f"]


_ids = __import__("itertools").count()


def test_hit_after_first_capture(runtime):
    cap = runtime()
    s = Shim(make_fn())
    x, y = torch.ones(3), torch.ones(3)
    assert torch.equal(s(x, y), x * 2 + y)
    assert torch.equal(s(x, y), x * 2 + y)
    assert cap.calls == 1
    assert len(s.entries) == 1 and s.entries[0].hits == 1
    assert s.stats.calls == 2 and s.stats.captures == 1


def test_new_shape_recompiles_with_reason(runtime):
    cap = runtime()
    s = Shim(make_fn())
    s(torch.ones(3), torch.ones(3))
    s(torch.ones(4), torch.ones(4))
    assert cap.calls == 2 and len(s.entries) == 2
    assert len(s.stats.recompiles) == 1
    assert s.stats.recompiles[0].guard_src.startswith("___check_tensor(a, torch.float32, 'cpu', (3,)")
    # both shapes now hit
    s(torch.ones(3), torch.ones(3))
    s(torch.ones(4), torch.ones(4))
    assert cap.calls == 2


def test_eight_threads_first_call_capture_once(runtime):
    cap = runtime(capture=FakeCapture(sleep=0.2))
    s = Shim(make_fn())
    x = torch.ones(5)
    barrier = threading.Barrier(8)
    results, errors = [], []

    def worker():
        try:
            barrier.wait()
            results.append(s(x, x))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cap.calls == 1
    assert len(s.entries) == 1
    assert all(torch.equal(r, x * 3) for r in results) and len(results) == 8


def test_recompile_limit_then_eager_with_one_warning(runtime, caplog):
    cap = runtime(recompile_limit=3)
    s = Shim(make_fn())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(1, 9):
            out = s(torch.ones(n), torch.ones(n))
            assert torch.equal(out, torch.full((n,), 3.0))
    limit_warnings = [x for x in w if issubclass(x.category, RecompileLimitWarning)]
    assert len(limit_warnings) == 1
    msg = str(limit_warnings[0].message)
    assert "recompile_limit" in msg and "___check_tensor(a, torch.float32, 'cpu', (3,)" in msg
    assert cap.calls == 3 and len(s.entries) == 3
    assert s.state.limit_reached
    # cached shapes still hit, new shapes run eagerly without capture
    before = s.entries[0].hits
    s(torch.ones(1), torch.ones(1))
    assert s.entries[0].hits == before + 1
    s(torch.ones(20), torch.ones(20))
    assert cap.calls == 3


def test_run_only_never_captures(runtime):
    cap = runtime(mode="run-only")
    s = Shim(make_fn())
    assert torch.equal(s(torch.ones(2), torch.ones(2)), torch.full((2,), 3.0))
    assert cap.calls == 0 and s.entries == ()
    assert s.stats.eager_calls == 1


def test_mode_off_calls_original_and_can_come_back(runtime):
    cap = runtime(mode="off")
    s = Shim(make_fn())
    s(torch.ones(2), torch.ones(2))
    s(torch.ones(2), torch.ones(2))
    assert cap.calls == 0
    runtime(mode="compile")
    s(torch.ones(2), torch.ones(2))
    assert cap.calls == 1


def test_on_error_fallback_runs_eager_and_records(runtime, caplog):
    cap = runtime(capture=FakeCapture(error=CaptureError("unsupported thing", "m.py", 3)))
    s = Shim(make_fn())
    with caplog.at_level(logging.WARNING, logger="autograph.breaks"):
        out = s(torch.ones(2), torch.ones(2))
    assert torch.equal(out, torch.full((2,), 3.0))
    assert "unsupported thing" in s.stats.errors[0]
    assert any("unsupported thing" in r.getMessage() for r in caplog.records)
    s(torch.ones(2), torch.ones(2))
    assert cap.calls == 1  # marked eager: no second attempt


def test_on_error_raise_propagates_capture_error(runtime):
    runtime(capture=FakeCapture(error=CaptureError("unsupported thing", "m.py", 3)), on_error="raise")
    s = Shim(make_fn())
    with pytest.raises(CaptureError, match="m.py:3: unsupported thing"):
        s(torch.ones(2), torch.ones(2))


def test_internal_capture_bug_becomes_capture_error(runtime):
    runtime(capture=FakeCapture(error=KeyError("oops")), on_error="raise")
    s = Shim(make_fn())
    with pytest.raises(CaptureError, match="internal error while capturing") as info:
        s(torch.ones(2), torch.ones(2))
    assert isinstance(info.value.__cause__, KeyError)


def test_user_exception_propagates_unchanged(runtime):
    cap = runtime()

    def boom(a):
        raise ValueError("user says no")

    s = Shim(boom)
    for _ in range(2):  # first call (fresh entry) and a hit
        with pytest.raises(ValueError, match="user says no"):
            s(torch.ones(1))
    assert cap.calls == 1 and s.stats.errors == []


def test_no_tensor_work_marks_code_eager(runtime):
    cap = runtime(capture=FakeCapture(no_tensor_work=True))
    s = Shim(make_fn())
    s.explicit = True  # compiled on purpose: captured although called without tensors
    assert s(1, 2) == 4
    assert s(5, 6) == 16
    assert cap.calls == 1 and s.state.eager
    assert "no tensor work" in s.stats.eager_reason
    assert s.stats.eager_calls == 2 and s.stats.calls == 2
    other = Shim(s.fn)  # another shim of the same code is eager from the start
    assert other(1, 1) == 3 and cap.calls == 1


def test_import_hook_shims_run_tensor_free_calls_eagerly_then_mark_the_code(runtime):
    """Utility code of a selected package (version checks, loggers) is never captured:
    calls without tensors run the original, and after a few the code is marked eager."""
    from autograph.runtime.shim import TENSOR_FREE_CALLS_BEFORE_EAGER

    cap = runtime(capture=FakeCapture())
    s = Shim(make_fn())
    for i in range(TENSOR_FREE_CALLS_BEFORE_EAGER):
        assert s(i, 1) == i * 2 + 1
    assert cap.calls == 0 and s.state.eager
    assert "without tensors" in s.stats.eager_reason
    t = Shim(make_fn())  # a fresh code object: a tensor argument is captured at once
    t(torch.ones(2), torch.ones(2))
    assert cap.calls == 1


def test_holds_tensor_looks_one_level_deep_and_runs_no_user_code():
    from autograph.runtime.shim import holds_tensor

    class Exploding(dict):
        def values(self):
            raise AssertionError("user code ran")

    class Box:
        def __init__(self, v):
            self.v = v

    fn = make_fn()
    assert holds_tensor(fn, (torch.ones(1),), {})
    assert holds_tensor(fn, ([1, torch.ones(1)],), {})
    assert holds_tensor(fn, (), {"m": torch.nn.Linear(1, 1)})
    assert holds_tensor(fn, (Box(torch.ones(1)),), {})
    assert not holds_tensor(fn, (1, "a", Box(2), Exploding(a=torch.ones(1))), {})

    def uses_global():
        return WEIGHT * 2  # noqa: F821 - set in its globals below

    uses_global.__globals__["WEIGHT"] = torch.ones(2)
    try:
        assert holds_tensor(uses_global, (), {})
    finally:
        del uses_global.__globals__["WEIGHT"]


def test_nested_calls_during_capture_run_original(runtime):
    seen = []
    inner = Shim(make_fn())

    class Capturing(FakeCapture):
        def __call__(self, fn, args, kwargs, settings, *, wrap_nested):
            seen.append(is_capturing())
            inner(torch.ones(1), torch.ones(1))  # must not start a nested capture
            return super().__call__(fn, args, kwargs, settings, wrap_nested=wrap_nested)

    cap = runtime(capture=Capturing())
    Shim(make_fn())(torch.ones(1), torch.ones(1))
    assert seen == [True] and cap.calls == 1 and inner.entries == ()
    assert not is_capturing()


def _capture_that_cannot_import(runtime, monkeypatch, **settings):
    """The real capture provider, with ``autograph.capture.engine.api`` failing to import."""
    runtime(**settings)
    shim_mod.configure(capture=None)  # back to the default provider: imports capture on the first miss
    monkeypatch.setitem(__import__("sys").modules, "autograph.capture.engine.api", None)


def test_import_error_in_capture_raises_with_on_error_raise(runtime, monkeypatch):
    _capture_that_cannot_import(runtime, monkeypatch, on_error="raise")
    fn = make_fn()
    with pytest.raises(CaptureError, match="(ModuleNotFound|Import)Error: import of autograph.capture.engine.api.*reinstall autograph") as info:
        Shim(fn)(torch.ones(2), torch.ones(2))
    assert isinstance(info.value.__cause__, ImportError)
    assert info.value.filename == fn.__code__.co_filename  # where: the function being captured


def test_import_error_in_capture_is_reported_with_on_error_fallback(runtime, monkeypatch, caplog):
    _capture_that_cannot_import(runtime, monkeypatch)
    s = Shim(make_fn())
    with caplog.at_level(logging.WARNING, logger="autograph.breaks"):
        assert torch.equal(s(torch.ones(2), torch.ones(2)), torch.full((2,), 3.0))
    assert any("Error: import of autograph.capture.engine.api" in r.getMessage() and "reinstall autograph" in r.getMessage() for r in caplog.records)
    assert "autograph.capture.engine.api" in s.stats.errors[0] and "capture failed" in s.stats.eager_reason


def test_native_shim_is_the_c_hit_path():
    if shim_mod._native_module is None:
        pytest.skip("autograph._native not built")
    assert isinstance(shim_mod.Shim(make_fn()), shim_mod._native_module.HitPath)


def test_shim_for_is_one_per_function_and_repr(runtime):
    f = make_fn()
    assert shim_for(f) is shim_for(f)
    assert shim_for(f).__name__ == "f" and shim_for(f).__wrapped__ is f
    assert repr(shim_for(f)) == "<autograph compiled function f, 0 cache entries>"


def test_kwargs_and_defaults_bind_like_python(runtime):
    runtime()

    def g(a, b=None, *, scale=2):
        return a * scale if b is None else a * scale + b

    s = Shim(g)
    x = torch.ones(2)
    assert torch.equal(s(x), x * 2)
    assert torch.equal(s(a=x), x * 2)
    assert torch.equal(s(x, scale=3), x * 3)
    with pytest.raises(TypeError):
        s(x, nope=1)


def test_settings_overrides_reach_capture(runtime):
    cap = runtime()
    s = Shim(make_fn(), overrides={"backend": "triton", "fullgraph": True})
    s(torch.ones(1), torch.ones(1))
    seen = cap.settings_seen[0]
    assert seen.backend == "triton" and seen.fullgraph is True


def test_grad_mode_change_misses(runtime):
    cap = runtime()
    s = Shim(make_fn())
    x = torch.ones(2)
    s(x, x)
    with torch.no_grad():
        s(x, x)
    assert cap.calls == 2
    assert "torch.is_grad_enabled() == True" in s.stats.recompiles[0].guard_src


def test_entry_listeners_and_all_shims(runtime):
    seen = []

    def listener(shim, entry):
        seen.append((shim, entry))

    shim_mod.add_entry_listener(listener)
    try:
        s = Shim(make_fn())
        s(torch.ones(2), torch.ones(2))
        s(torch.ones(2), torch.ones(2))
    finally:
        shim_mod.remove_entry_listener(listener)
    assert seen == [(s, s.entries[0])]
    assert s in shim_mod.all_shims()


def test_concurrent_calls_with_many_shapes_capture_each_once(runtime):
    cap = runtime(capture=FakeCapture(sleep=0.02), recompile_limit=64)
    s = Shim(make_fn())
    shapes = [1, 2, 3, 4]
    barrier = threading.Barrier(8)
    errors = []

    def worker(k):
        try:
            barrier.wait()
            for i in range(40):
                n = shapes[(i + k) % len(shapes)]
                out = s(torch.ones(n), torch.ones(n))
                assert torch.equal(out, torch.full((n,), 3.0))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cap.calls == len(shapes) and len(s.entries) == len(shapes)
    assert s.stats.calls == 8 * 40


def test_mode_off_reaches_the_hit_path(runtime):
    cap = runtime()
    s = Shim(make_fn())
    x = torch.ones(2)
    s(x, x)
    s(x, x)
    assert s.entries[0].hits == 1
    runtime(mode="off")  # configure() refreshes the switch the hit path reads
    s(x, x)
    assert s.entries[0].hits == 1 and s.stats.eager_calls == 1
    runtime(mode="compile")
    s(x, x)
    assert s.entries[0].hits == 2 and cap.calls == 1


def test_hit_path_keeps_reference_counts(runtime):
    import sys

    runtime()
    s = Shim(make_fn())
    x, y = torch.ones(2), torch.ones(2)
    for _ in range(5):
        s(x, y)
        s(x, b=y)
    before = sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(s)
    for _ in range(500):
        s(x, y)
        s(x, b=y)
    assert (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(s)) == before


def test_resume_functions_keep_per_compile_backend():
    """compile(f, backend=X): the graphs of f's resume functions are compiled by X too."""
    import torch
    import autograph

    seen = []

    def recording_backend(gm, example_inputs):
        seen.append(gm)
        return gm.forward

    def branchy(a, b):
        x = a * 2
        if b.sum() < 0:
            b = b * -1
        return x * b

    compiled = autograph.compile(branchy, backend=recording_backend)
    a = torch.randn(5)
    for b in (torch.ones(5), -torch.ones(5)):
        assert torch.allclose(compiled(a, b), branchy(a, b))
    # the entry's graph plus one graph per resume function reached
    assert len(seen) == 3


def test_switching_settings_off_at_run_time_takes_effect_on_the_hit_path():
    import torch
    import autograph
    from autograph.settings import current_settings, load_settings, set_current_settings

    captured = []

    def backend(gm, example_inputs):
        captured.append(gm)
        return gm.forward

    def double(x):
        return x * 2

    compiled = autograph.compile(double, backend=backend)
    previous = current_settings()
    compiled(torch.ones(2))
    try:
        set_current_settings(load_settings(env={"AUTOGRAPH_MODE": "off"}))
        assert autograph.runtime.shim._off  # the hit path's switch follows the settings
        assert torch.equal(compiled(torch.ones(3)), torch.full((3,), 2.0))
        assert len(captured) == 1  # off: the new shape was not captured
    finally:
        set_current_settings(previous)
    assert not autograph.runtime.shim._off


def test_recompile_limit_warning_is_printed_once_at_the_functions_own_line(runtime, caplog):
    """One warning (not a log record at WARNING plus a warning pointing at shim.py), naming the guard."""
    runtime(recompile_limit=2)
    fn = make_fn()
    s = Shim(fn)
    with warnings.catch_warnings(record=True) as w, caplog.at_level(logging.DEBUG, logger="autograph.recompiles"):
        warnings.simplefilter("always")
        for n in range(1, 5):
            s(torch.ones(n), torch.ones(n))
    limit = [x for x in w if issubclass(x.category, RecompileLimitWarning)]
    assert len(limit) == 1
    assert (limit[0].filename, limit[0].lineno) == (fn.__code__.co_filename, fn.__code__.co_firstlineno)
    message = str(limit[0].message)
    assert "Last failing guard: ___check_tensor(a" in message and "mark it dynamic" in message
    assert not [r for r in caplog.records if r.name == "autograph.recompiles" and r.levelno >= logging.WARNING]


def test_function_attributes_do_not_clobber_the_shim():
    """``functools.update_wrapper`` used to copy ``fn.__dict__`` over the shim's own fields."""
    import torch

    import autograph

    def f(x):
        return x + 1

    f.state, f.fn, f.stats, f.entries_note = "user state", "user fn", {"n": 1}, "note"
    c = autograph.compile(f, backend="eager")
    x = torch.zeros(2)
    torch.testing.assert_close(c(x), f(x))
    torch.testing.assert_close(c(x), f(x))
    assert c.fn is f
    assert c.entries_note == "note"  # the function's attributes still read through the shim
    f.tag = 3
    assert c.tag == 3


def test_one_switch_moves_guards_and_dispatch_of_existing_shims_between_c_and_python(monkeypatch):
    """``extension.use_c_path`` is the only C-or-Python decision: flipping it rebuilds the plans
    of shims that already have entries and sends their calls through the other hit path."""
    from autograph.guards import native

    if extension.load() is None:
        pytest.skip("autograph._native not built")
    cap = FakeCapture()
    previous = shim_mod.configure(settings_provider=runtime_settings, capture=cap)
    dispatched = []

    def spy_dispatch():  # counts the calls the hit path dispatches in Python
        real = shim_mod._dispatch
        monkeypatch.setattr(shim_mod, "_dispatch", lambda *a: dispatched.append(a) or real(*a))

    try:
        s = shim_mod.Shim(make_fn())
        x = torch.ones(3)
        s(x, x)
        (entry,) = s.entries
        assert isinstance(entry.native_plan, tuple) and s._table[1] == (entry.native_plan,)

        extension.use_c_path(False)
        assert extension.c_path() is None and not native.available()
        assert entry.native_plan is entry.guards.index_fn and s._table[1] == (entry.guards.index_fn,)
        spy_dispatch()
        assert torch.equal(s(x, x), x * 3) and len(dispatched) == 1 and entry.hits == 1
        assert torch.equal(s(torch.ones(4), torch.ones(4)), torch.full((4,), 3.0)) and cap.calls == 2
        seen = len(dispatched)  # the hit, then the miss of the new shape

        extension.use_c_path(True)
        assert all(isinstance(e.native_plan, tuple) for e in s.entries)
        assert shim_mod._dispatch == extension.load().dispatch
        spy_dispatch()
        assert torch.equal(s(x, x), x * 3) and entry.hits == 2
        assert len(dispatched) == seen  # the C hit path ran the entry without the Python dispatcher
    finally:
        extension.use_c_path(True)
        shim_mod.restore(previous)
