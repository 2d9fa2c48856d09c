"""Run PyTorch's own Dynamo unit tests against autograph and classify every test.

The vendored test files (``tests/upstream/dynamo/``, unchanged) call ``torch.compile``,
``torch._dynamo.optimize``, ``optimize_assert``, ``reset`` and ``mark_dynamic``.
:func:`routed` points those names at autograph for the duration of a run: the test's
backend is passed to ``autograph.compile`` unchanged (a ``CompileCounter`` counts
autograph's graphs exactly as it counts Dynamo's), ``fullgraph``/``nopython``/
``optimize_assert`` become ``fullgraph=True``, ``dynamic`` is passed through.

Each test lands in one class:

* ``strict``: passes as written: values *and* Dynamo's expected graph/op counts;
* ``values``: the values are right but a count differs (decided by running the test a
  second time with every count assertion neutralised, see :func:`counts_ignored`);
* ``fallback``: right values only because a capture failed (or hit the recompile limit)
  and the function ran eagerly (read from autograph's run statistics);
* ``wrong``: a value assertion failed, or the compiled code raised where eager did not;
* ``out-of-scope``: the test exercises Dynamo itself rather than Python semantics
  (:data:`SCOPE_RULES`, matched on the test's source; or marked ``expectedFailure``);
* ``skipped``: unittest skipped it (needs CUDA).
"""
from __future__ import annotations

import ast
import contextlib
import enum
import importlib.util
import inspect
import io
import re
import signal
import sys
import time
import types
import unittest
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

CLASSES = ("strict", "values", "fallback", "wrong", "out-of-scope", "skipped")


@dataclass(frozen=True)
class ScopeRule:
    """A test whose source matches ``pattern`` tests Dynamo's machinery, not Python semantics."""

    name: str
    pattern: str
    why: str


SCOPE_RULES: tuple[ScopeRule, ...] = (
    ScopeRule("dynamo-config", r"torch\._dynamo\.config\b|\bconfig\.patch\b",
              "reads or patches Dynamo's own settings (torch._dynamo.config)"),
    ScopeRule("dynamo-exceptions", r"torch\._dynamo\.exc\b",
              "expects Dynamo's own exception types (torch._dynamo.exc)"),
    ScopeRule("dynamo-internals",
              r"\b(RangeVariable|ConstantVariable|counters)\b|torch\._C\._dynamo\b|torch\._dynamo\.guards\b"
              r"|torch\._dynamo\.side_effects\b|compilation_metrics\b|\bSpeculationLog\b",
              "uses Dynamo's internal classes, counters, compilation metrics or C guard objects"),
    ScopeRule("graph-nodes", r"\bgraph\.nodes\b|\b_dynamo_source\b|\.find_nodes\(|\.print_readable\(",
              "reads the nodes of the FX graph a backend received (their names, kinds, order, "
              "Dynamo's node metadata, or the graph's printed text with Dynamo's placeholder names "
              "such as `L_x_`): Dynamo's graph form, not Python semantics"),
    ScopeRule("export-inductor",
              r"torch\.export\b|torch\._export\b|torch\._dynamo\.export\b|torch\._inductor\b|\bexport=True",
              "tests torch.export or Inductor rather than capture"),
)


@dataclass
class Outcome:
    """One test's class and why."""

    name: str
    klass: str
    reason: str = ""
    breaks: list[str] = field(default_factory=list)
    capture_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------ loading the vendored file

# Names the vendored file imports that torch 2.13 no longer has, with a stand-in of the same
# meaning for autograph's purposes. Keep this small and explain each one.
MISSING_TORCH_NAMES: dict[tuple[str, str], Callable[[], Any]] = {
    # a decorator that turned off Dynamo's translation validator for dynamic-shape runs:
    # autograph has no translation validator, so it decorates nothing
    ("torch.testing._internal.common_utils", "disable_translation_validation_if_dynamic_shapes"):
        lambda: (lambda fn: fn),
    # a class attribute newer test classes set to sort themselves by hardware (test_list.py):
    # read by PyTorch's CI sharding only, so any enum with its member names does
    ("torch.testing._internal.common_utils", "HardwareClassification"):
        lambda: enum.Enum("HardwareClassification", ["GENERIC", "CPU", "GPU"]),
}


def load_module(path: Path, name: str | None = None) -> types.ModuleType:
    """Import a vendored test file (unchanged) under ``name``, supplying :data:`MISSING_TORCH_NAMES`."""
    for (module_name, attr), make in MISSING_TORCH_NAMES.items():
        module = importlib.import_module(module_name)
        if not hasattr(module, attr):
            setattr(module, attr, make())
    return _exec_file(path, name)


def _exec_file(path: Path, name: str | None) -> types.ModuleType:
    name = name or f"upstream_dynamo_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    module.__dict__["__graph_count__"] = _graph_count
    tree = _GraphCounts().visit(ast.parse(path.read_text(), str(path)))
    # upstream files import their neighbours by plain name (``import test_functions`` in
    # test_ctx_manager.py), as when PyTorch's test folder is the working directory
    sys.path.insert(0, str(path.parent))
    try:
        exec(compile(tree, str(path), "exec"), module.__dict__)
    finally:
        sys.path.remove(str(path.parent))
    return module


def collect(module: types.ModuleType, pattern: str | None = None) -> list[unittest.TestCase]:
    """Every test of ``module`` (unittest's order), optionally those whose id contains ``pattern``."""
    suite = unittest.TestLoader().loadTestsFromModule(module)
    tests: list[unittest.TestCase] = []

    def walk(s: Any) -> None:
        for t in s:
            if isinstance(t, unittest.TestSuite):
                walk(t)
            else:
                tests.append(t)

    walk(suite)
    if pattern:
        tests = [t for t in tests if re.search(pattern, _short_id(t))]
    return tests


def _short_id(test: unittest.TestCase) -> str:
    return f"{type(test).__name__}.{test._testMethodName}"


def test_source(test: unittest.TestCase) -> str:
    """The source of the test method, of the function ``make_test`` wrapped (if any), and of
    the helper methods of the test's own file it calls (``self._get_graph_node_names(...)``):
    what a test checks is what it runs."""
    method = getattr(type(test), test._testMethodName)
    fn = inspect.unwrap(method)
    parts = []
    for candidate in (fn, *_closure_functions(fn)):
        try:
            parts.append(inspect.getsource(candidate))
        except (OSError, TypeError):
            pass
    for helper in _file_helpers(test, "\n".join(parts)):
        with contextlib.suppress(OSError, TypeError):
            parts.append(inspect.getsource(helper))
    return "\n".join(parts)


def _file_helpers(test: unittest.TestCase, source: str) -> list[Any]:
    """The methods ``source`` calls on ``self`` that the test's own file defines (not
    unittest's or torch's assertion helpers)."""
    out = []
    for name in sorted(set(re.findall(r"\bself\.(\w+)\(", source))):
        helper = inspect.unwrap(getattr(type(test), name, None) or (lambda: None))
        if (isinstance(helper, types.FunctionType) and helper.__module__ == type(test).__module__
                and name != test._testMethodName):
            out.append(helper)
    return out


def _closure_functions(fn: Any) -> list[Any]:
    cells = getattr(fn, "__closure__", None) or ()
    names = getattr(getattr(fn, "__code__", None), "co_freevars", ())
    out = []
    for name, cell in zip(names, cells):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if name == "fn" and isinstance(value, types.FunctionType):
            out.append(value)
    return out


def out_of_scope(test: unittest.TestCase) -> str | None:
    """Why the test is out of scope (a rule name and its meaning), or None."""
    method = getattr(type(test), test._testMethodName)
    if getattr(method, "__unittest_expecting_failure__", False):
        return "expected-failure: marked @unittest.expectedFailure (fails under Dynamo itself)"
    source = test_source(test)
    source += "\n" + "\n".join(_imported_names_used(test, source))
    for rule in SCOPE_RULES:
        if re.search(rule.pattern, source):
            return f"{rule.name}: {rule.why}"
    return None


def _imported_names_used(test: unittest.TestCase, source: str) -> list[str]:
    """The qualified origin (``torch._dynamo.exc.Unsupported``) of each module-level name the
    test's source uses that its file imported from torch: ``from torch._dynamo.exc import
    Unsupported`` then ``assertRaises(Unsupported)`` tests Dynamo as much as spelling it out."""
    module_globals = vars(sys.modules.get(type(test).__module__, types.ModuleType("_")))
    found = []
    for name in sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", source))):
        value = module_globals.get(name)
        origin = getattr(value, "__module__", None) if value is not None else None
        if isinstance(value, types.ModuleType):
            origin, name = value.__name__.rpartition(".")[0], value.__name__.rpartition(".")[2]
        if isinstance(origin, str) and origin.startswith("torch._"):
            found.append(f"{origin}.{name}")
    return found


# ------------------------------------------------------------------ routing torch -> autograph

class Recorder:
    """What autograph's run statistics said during one test (kept across ``reset()`` calls)."""

    def __init__(self) -> None:
        self.breaks: list[str] = []
        self.errors: list[str] = []

    def clear(self) -> None:
        self.breaks.clear()
        self.errors.clear()

    def snapshot(self) -> None:
        from autograph.runtime.stats import all_stats

        for st in all_stats():
            self.breaks += [f"{st.qualname}: {r}" for r in st.break_reasons]
            self.errors += [f"{st.qualname}: {e}" for e in st.errors]
            if st.eager_reason and st.eager_reason.startswith("recompile limit"):
                self.errors.append(f"{st.qualname}: {st.eager_reason}")


def _backend(spec: Any) -> Any:
    """The test's backend for autograph: autograph's own names and callables unchanged; other
    names (``aot_eager``...) resolved through torch's backend registry."""
    if spec is None:
        spec = "inductor"
    if isinstance(spec, str):
        from autograph.backends.registry import lookup
        from autograph.errors import SettingsError
        try:
            lookup(spec)
        except SettingsError:
            from torch._dynamo.backends.registry import lookup_backend
            return lookup_backend(spec)
    return spec


# set by :func:`uncompiled`: the entry points return the function unchanged (plain Python)
_PLAIN_PYTHON = False


def _compile(target: Any, backend: Any, fullgraph: bool, dynamic: Any) -> Any:
    if _PLAIN_PYTHON:
        return target
    import autograph
    return autograph.compile(target, backend=_backend(backend), fullgraph=fullgraph, dynamic=dynamic)


@contextlib.contextmanager
def uncompiled() -> Iterator[None]:
    """Inside :func:`routed`: compile nothing, so the test runs as plain Python. A test that fails
    so (with counts ignored) expects what this Python does not do (``gen.close()`` returning a
    value before 3.13) or Dynamo's own errors: it measures nothing about autograph."""
    global _PLAIN_PYTHON
    _PLAIN_PYTHON = True
    try:
        yield
    finally:
        _PLAIN_PYTHON = False


def _torch_compile(model: Any = None, *, fullgraph: bool = False, dynamic: Any = None,
                   backend: Any = "inductor", mode: Any = None, options: Any = None,
                   disable: bool = False) -> Any:
    """``torch.compile``'s signature, compiling with autograph."""
    def apply(target: Any) -> Any:
        return target if disable else _compile(target, backend, fullgraph, dynamic)
    return apply if model is None else apply(model)


def _optimize(backend: Any = "inductor", *, nopython: bool = False, guard_export_fn: Any = None,
              guard_fail_fn: Any = None, disable: bool = False, dynamic: Any = None,
              **_: Any) -> Callable[[Any], Any]:
    """``torch._dynamo.optimize``: a decorator; ``nopython`` is ``fullgraph``."""
    return lambda fn: fn if disable else _compile(fn, backend, nopython, dynamic)


def _optimize_assert(backend: Any, *, hooks: Any = None, export: bool = False,
                     export_constraints: Any = None, dynamic: Any = None, **_: Any) -> Callable[[Any], Any]:
    """``torch._dynamo.optimize_assert``: a graph break is an error (``fullgraph=True``)."""
    return lambda fn: _compile(fn, backend, True, dynamic)


def _closure_cells(fn: Any) -> Iterator[Any]:
    """Every closure cell of ``fn`` and of the functions its cells hold, transitively: the test
    helpers that bound torch's entry points when the file was imported (``make_dynamo_test``
    imports ``optimize_assert`` and ``reset`` at decoration time) keep them in such cells."""
    seen: set[int] = set()
    todo = [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen or not isinstance(f, types.FunctionType):
            continue
        seen.add(id(f))
        if hasattr(f, "__wrapped__"):
            todo.append(f.__wrapped__)
        for cell in f.__closure__ or ():
            yield cell
            try:
                todo.append(cell.cell_contents)
            except ValueError:  # an empty cell
                pass


@contextlib.contextmanager
def routed(recorder: Recorder, test: unittest.TestCase | None = None) -> Iterator[None]:
    """Point torch's compile entry points at autograph (restored on exit), including the copies
    ``test``'s helpers bound in closure cells at import time."""
    import torch
    import torch._dynamo
    import torch._dynamo.test_case
    import torch._dynamo.testing

    import autograph

    real_reset = torch._dynamo.reset

    def reset() -> None:
        recorder.snapshot()  # statistics do not survive autograph.reset()
        autograph.reset()
        real_reset()

    targets = {
        torch: {"compile": _torch_compile},
        torch._dynamo: {"optimize": _optimize, "optimize_assert": _optimize_assert, "reset": reset,
                        "mark_dynamic": autograph.mark_dynamic},
        torch._dynamo.testing: {"optimize_assert": _optimize_assert, "reset": reset},
        torch._dynamo.test_case: {"reset": reset},
    }
    saved = [(obj, name, getattr(obj, name)) for obj, names in targets.items() for name in names]
    replacement = {id(value): targets[obj][name] for obj, name, value in saved}
    cells = []
    if test is not None:
        for cell in _closure_cells(getattr(type(test), test._testMethodName)):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if id(value) in replacement:
                cells.append((cell, value))
    try:
        for obj, names in targets.items():
            for name, value in names.items():
                setattr(obj, name, value)
        for cell, value in cells:
            cell.cell_contents = replacement[id(value)]
        yield
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)
        for cell, value in cells:
            cell.cell_contents = value


class _AnyCount(int):
    """A graph/op count that satisfies every comparison: a test's count assertions pass."""

    def __add__(self, other: Any) -> "_AnyCount":
        return _AnyCount(int(self) + int(other))

    __radd__ = __add__

    def __eq__(self, other: Any) -> bool:
        return True

    def __ne__(self, other: Any) -> bool:
        return False

    def __bool__(self) -> bool:  # assertTrue(cnt.frame_count, 1)
        return True

    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    __hash__ = int.__hash__


@contextlib.contextmanager
def counts_ignored() -> Iterator[None]:
    """Run tests with their count assertions neutralised, through torch's own switch
    (``debug_disable_compile_counter``: ``CompileCounter`` counts become ``CompileCounterInt``,
    which ``TestCase.assertEqual`` and ``assertExpectedInline`` skip), made total by counts that
    also satisfy plain ``assert``/``assertGreater`` comparisons."""
    import torch._dynamo.config
    import torch._dynamo.test_case
    import torch._dynamo.testing

    testing = torch._dynamo.testing
    counters = (testing.CompileCounter, testing.CompileCounterWithBackend)
    saved = testing.CompileCounterInt, [c.clear for c in counters]

    def any_counts(clear: Callable[[Any], None]) -> Callable[[Any], None]:
        def cleared(self: Any) -> None:
            clear(self)
            self.op_count = _AnyCount(0)  # torch's switch covers frame_count only
        return cleared

    testing.CompileCounterInt = _AnyCount
    for c in counters:
        c.clear = any_counts(c.clear)
    try:
        with torch._dynamo.config.patch(debug_disable_compile_counter=True):
            yield
    finally:
        testing.CompileCounterInt = saved[0]
        for c, clear in zip(counters, saved[1]):
            c.clear = clear


class _GraphCounts(ast.NodeTransformer):
    """``len(<name>.graphs)`` (the graphs a recording backend such as ``EagerAndRecordGraphs``
    saw) becomes ``__graph_count__(<name>.graphs)``: a count, like ``frame_count``, but a plain
    ``int`` that no switch can neutralise. Same line numbers; the file on disk is unchanged."""

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1
                and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "graphs"):
            node.func = ast.copy_location(ast.Name("__graph_count__", ast.Load()), node.func)
        return node


def _graph_count(graphs: Any) -> int:
    """The number of recorded graphs, as the ``int`` subclass that torch's ``assertEqual`` skips
    under ``debug_disable_compile_counter`` (:func:`counts_ignored`) and compares otherwise."""
    from torch._dynamo.utils import CompileCounterInt

    return CompileCounterInt(len(graphs))


# ------------------------------------------------------------------ running and classifying

class _Result(unittest.TestResult):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def _note(self, err: Any) -> None:
        exc_type, exc, _ = err
        self.problems.append(_first_line(exc_type, exc))

    def addFailure(self, test: Any, err: Any) -> None:
        super().addFailure(test, err)
        self._note(err)

    def addError(self, test: Any, err: Any) -> None:
        super().addError(test, err)
        self._note(err)

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._note(err)


def _first_line(exc_type: type, exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{exc_type.__name__}: {text[0] if text else ''}"[:300]


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    if not seconds or not hasattr(signal, "SIGALRM"):
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise _Timeout(f"test took longer than {seconds:g} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _run(test: unittest.TestCase, recorder: Recorder | None, timeout: float,
         quiet: bool) -> _Result:
    """Run one test (a fresh copy of its TestCase), autograph reset before and after."""
    import autograph

    result = _Result()
    fresh = type(test)(test._testMethodName)
    sink = io.StringIO()
    out = contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext()
    err = contextlib.redirect_stderr(sink) if quiet else contextlib.nullcontext()
    autograph.reset()
    with out, err, _time_limit(timeout):
        try:
            fresh.run(result)
        except _Timeout as exc:  # raised outside the test method (set-up, tear-down)
            result.problems.append(f"timeout: {exc}")
            result.errors.append((fresh, str(exc)))
    if recorder is not None:
        recorder.snapshot()
    autograph.reset()
    return result


def _passed(result: _Result) -> bool:
    return not result.failures and not result.errors and not result.unexpectedSuccesses


def classify(test: unittest.TestCase, *, reference: bool = False, timeout: float = 120.0,
             quiet: bool = True) -> Outcome:
    """Run ``test`` (through autograph unless ``reference``) and classify it (see module doc)."""
    name = _short_id(test)
    t0 = time.perf_counter()
    scope = out_of_scope(test)
    if scope is not None:
        return Outcome(name, "out-of-scope", scope)
    recorder = Recorder()
    route = contextlib.nullcontext() if reference else routed(recorder, test)
    with route:
        first = _run(test, recorder, timeout, quiet)
        if first.skipped and _passed(first):
            return Outcome(name, "skipped", first.skipped[0][1], seconds=time.perf_counter() - t0)
        decided_by = first
        if not _passed(first):
            with counts_ignored():
                recorder.clear()  # the second run decides, with its own statistics
                decided_by = _run(test, recorder, timeout, quiet)
        plain = None
        if not _passed(decided_by) and not reference:
            with uncompiled(), counts_ignored():  # nothing compiles: the test's own Python decides
                plain = _run(test, None, timeout, quiet)
    outcome = Outcome(name, "strict", breaks=_unique(recorder.breaks),
                      capture_errors=_unique(recorder.errors))
    if plain is not None:
        if not _passed(plain) and _unique(plain.problems) == _unique(decided_by.problems):
            return Outcome(name, "out-of-scope", "fails-uncompiled: fails the same way with no compiler at "
                           f"all ({'; '.join(_unique(plain.problems))})", seconds=time.perf_counter() - t0)
    if not _passed(decided_by):
        outcome.klass = "wrong"
        outcome.reason = "; ".join(_unique(decided_by.problems)) or "unexpected success"
    elif outcome.capture_errors:
        outcome.klass = "fallback"
        outcome.reason = outcome.capture_errors[0]
    elif decided_by is not first:
        outcome.klass = "values"
        outcome.reason = "count differs: " + "; ".join(_unique(first.problems))
        if outcome.breaks:
            outcome.reason += f" (breaks: {'; '.join(outcome.breaks)})"
    outcome.seconds = time.perf_counter() - t0
    return outcome


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def totals(outcomes: list[Outcome]) -> dict[str, int]:
    """Counts per class, plus ``total`` and ``in_scope`` (everything not out of scope or skipped)."""
    counts = {k: 0 for k in CLASSES}
    for o in outcomes:
        counts[o.klass] += 1
    counts["total"] = len(outcomes)
    counts["in_scope"] = len(outcomes) - counts["out-of-scope"] - counts["skipped"]
    return counts


# ------------------------------------------------------------------ failure clusters

@dataclass(frozen=True)
class Cluster:
    """A cause shared by several non-strict tests, recognised in their reason text."""

    name: str
    pattern: str


# First match wins; the reason text is autograph's break / capture-error message.
CLUSTERS: tuple[Cluster, ...] = (
    Cluster("tensor operations inside try blocks (run in Python: their errors must reach the handler)",
            r"inside a try/except"),
    Cluster("exception chaining (__context__, __traceback__)", r"`\.__(context|cause|traceback)__`|`\.__context__ ="),
    Cluster("unittest / torch.testing assertion helpers", r"re\.compile|NonePair|iterating over dict object"),
    Cluster("generators live at a break, passed in or returned started",
            r"next\(\) on a non-iterator|live-generator|that has started running"),
    Cluster("functools.partial constructed in compiled code", r"creating a partial object"),
    Cluster("functools.reduce, lru_cache, function attributes",
            r"functools\.reduce|lru_cache|attribute `\.\w+` of function"),
    Cluster("numpy", r"\.numpy\(\)|numpy\.|ndarray|finfo|iinfo|dtype object|_DTypeMeta"),
    Cluster("itertools / collections C types",
            r"creating an? (chain|product|combinations|permutations|zip_longest|islice|count|repeat|accumulate|"
            r"deque|defaultdict|Counter|OrderedDict) object|from_iterable|fromkeys|defaultdict|OrderedDict|"
            r"mappingproxy"),
    Cluster("sets, frozensets, dict views", r"set object|a set of|isdisjoint|call to (add|discard|remove)\(\)"),
    Cluster("namedtuples, structseqs, tuple subclasses", r"sys\.intern|derives from tuple|_fields|return_types"),
    Cluster("torch.func transforms (vmap)", r"vmap"),
    Cluster("torch.jit helpers", r"\bjit\b|class Any passed"),
    Cluster("builtins on mixed values",
            r"sorted\(\)|max\(\)|min\(\)|operator \S+ between|comparison \S+ between|creating a str object|"
            r"indexing a list with tensor|__class__|passed to a torch operation"),
    Cluster("closures, lambdas, generators live at a break", r"defined during capture is live|generator"),
    Cluster("breaks inside with blocks, grad-mode contexts", r"grad-mode context|`with`|context manager"),
    Cluster("data-dependent tensor ops", r"data-dependent"),
)
COUNT_ONLY = "graph/op counts differ from Dynamo's (no fallback)"
OTHER = "other"


def cluster_of(outcome: Outcome) -> str | None:
    """The cluster of a non-strict, in-scope outcome (None for strict, out of scope, skipped)."""
    if outcome.klass == "values":
        return COUNT_ONLY
    if outcome.klass not in ("fallback", "wrong"):
        return None
    text = " ".join([outcome.name, outcome.reason, *outcome.capture_errors, *outcome.breaks])
    for c in CLUSTERS:
        if re.search(c.pattern, text):
            return c.name
    return OTHER


def clusters(outcomes: list[Outcome]) -> dict[str, list[str]]:
    """Cluster name -> the tests in it (largest first)."""
    out: dict[str, list[str]] = {}
    for o in outcomes:
        name = cluster_of(o)
        if name is not None:
            out.setdefault(name, []).append(o.name)
    return dict(sorted(out.items(), key=lambda kv: -len(kv[1])))
