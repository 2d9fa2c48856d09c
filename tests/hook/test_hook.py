"""The import hook on package trees written by the tests (in-process parts)."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import pickle
import sys
import zipfile

import pytest

import autograph
from autograph.hook.finder import AutographFinder, InstrumentingLoader
from autograph.hook.install import AliasWarning, active_installation, install, uninstall
from autograph.hook.instrument import AutographFunctionWrapper, is_wrapped
from autograph.settings import Settings, current_settings

from .conftest import write_tree

LAYERS = '''
    """A module of the test package."""
    import asyncio

    def double(x, scale=2):
        """Doubles x."""
        return x * scale

    triple = lambda x: x * 3

    def counter(n):
        yield from range(n)

    async def later(x):
        return x

    def __getattr__(name):
        raise AttributeError(name)

    class Layer:
        """A layer."""

        def __init__(self, k):
            self.k = k

        def forward(self, x, *, bias=0):
            return x * self.k + bias

        def __call__(self, x):
            return self.forward(x)

        def __repr__(self):
            return f"Layer({self.k})"

        @property
        def size(self):
            return self.k

        @classmethod
        def make(cls, k):
            return cls(k)

        @staticmethod
        def clamp(x, low=0):
            return max(x, low)

        def items(self):
            yield self.k

        class Inner:
            def run(self, x):
                return x + 1
'''


@pytest.fixture
def tree(sandbox):
    write_tree(sandbox, {
        "agpkg/__init__.py": "from agpkg.layers import double\n",
        "agpkg/layers.py": LAYERS,
        "agpkg/helpers.py": '''
            import autograph
            from agpkg.layers import double

            def uses_double(x):
                return double(x)

            @autograph.skip
            def skipped(x):
                return x
        ''',
        "other_mod.py": "def untouched(x):\n    return x\n",
    })
    return sandbox


def test_regular_package_functions_and_methods_are_wrapped(tree, fake_shim):
    with install("agpkg"):
        import agpkg.layers as layers

        assert is_wrapped(layers.double)
        assert layers.double(3) == 6
        layer = layers.Layer(5)
        assert layer.forward(2, bias=1) == 11
        assert layers.Layer.forward(layer, 2) == 10
        assert layers.Layer.make(7).k == 7
        assert layer.make(8).k == 8
        assert layers.Layer.clamp(-3) == 0
        assert layer.clamp(4, low=5) == 5
        assert layer(1) == 5  # __call__ is wrapped, and calls the wrapped forward
        assert layers.Layer.Inner().run(1) == 2
        import agpkg
        import agpkg.helpers as helpers

        # `from agpkg.layers import double` executed under the hook binds the wrapper
        assert agpkg.double is layers.double and helpers.double is layers.double

    names = fake_shim.names()
    assert names.count("double") == 1
    assert names.count("Layer.forward") == 3
    assert names.count("Layer.make") == 2
    assert names.count("Layer.clamp") == 2
    assert names.count("Layer.__call__") == 1
    assert names.count("Layer.Inner.run") == 1
    # the shim receives self / cls first for methods, nothing extra for static methods
    by_name = {}
    for name, args, kwargs in fake_shim.calls:
        by_name.setdefault(name, []).append((args, kwargs))
    assert by_name["Layer.forward"][0] == ((layer, 2), {"bias": 1})
    assert by_name["Layer.forward"][1] == ((layer, 2), {})
    assert by_name["Layer.make"][0][0][0] is layers.Layer
    assert by_name["Layer.clamp"] == [((-3,), {}), ((4,), {"low": 5})]


def test_left_alone_by_default(tree, fake_shim):
    with install("agpkg"):
        import agpkg.helpers as helpers
        import agpkg.layers as layers

        raw = vars(layers.Layer)
        for name in ("__init__", "__repr__", "size", "items"):
            assert not is_wrapped(raw[name]), name
        for name in ("counter", "later", "triple", "__getattr__"):
            assert not is_wrapped(vars(layers)[name]), name
        assert not is_wrapped(helpers.skipped)
        assert is_wrapped(helpers.uses_double)
        assert list(layers.counter(3)) == [0, 1, 2]
        assert repr(layers.Layer(2)) == "Layer(2)"
        assert layers.Layer(4).size == 4
    wrapped_originals = {fn.__qualname__ for fn in fake_shim.shimmed}
    assert wrapped_originals == {"double", "uses_double", "Layer.forward", "Layer.__call__", "Layer.make",
                                 "Layer.clamp", "Layer.Inner.run"}


def test_wrapper_keeps_metadata(tree, fake_shim):
    with install("agpkg"):
        import agpkg.layers as layers

        original = layers.double.__wrapped__
        assert original.__module__ == "agpkg.layers" and not is_wrapped(original)
        assert layers.double.__name__ == "double"
        assert layers.double.__qualname__ == "double"
        assert layers.double.__doc__ == "Doubles x."
        assert str(inspect.signature(layers.double)) == "(x, scale=2)"
        assert str(inspect.signature(layers.Layer(1).forward)) == "(x, *, bias=0)"
        assert str(inspect.signature(layers.Layer.forward)) == "(self, x, *, bias=0)"
        assert layers.Layer.forward.__doc__ is None and layers.Layer.__doc__ == "A layer."
        assert callable(layers.double) and inspect.isfunction(original)


def test_deny_rules(tree, fake_shim):
    with install("agpkg", deny=["agpkg.helpers", "agpkg.layers:Layer.make"]):
        import agpkg.helpers as helpers
        import agpkg.layers as layers

        assert not is_wrapped(helpers.uses_double)
        assert not is_wrapped(vars(layers.Layer)["make"])
        assert is_wrapped(vars(layers.Layer)["forward"])


def test_qualname_rule_wraps_only_that_method(tree, fake_shim):
    with install("agpkg.layers:Layer.forward"):
        import agpkg.layers as layers

        assert is_wrapped(vars(layers.Layer)["forward"])
        assert not is_wrapped(layers.double)
        assert not is_wrapped(vars(layers.Layer)["make"])


def test_unselected_modules_are_not_touched(tree, fake_shim):
    with install("agpkg"):
        import other_mod

        assert not is_wrapped(other_mod.untouched)
        assert "other_mod" in sys.modules and not isinstance(other_mod.__loader__, InstrumentingLoader)


def test_loader_is_the_real_one_after_import(tree, fake_shim):
    with install("agpkg"):
        import agpkg.layers as layers

        assert isinstance(layers.__loader__, importlib.machinery.SourceFileLoader)
        assert layers.__spec__.loader is layers.__loader__
        assert "def double" in inspect.getsource(layers)


def test_namespace_package(sandbox, fake_shim):
    write_tree(sandbox, {"agns/sub/mod.py": "def f(x):\n    return x + 1\n"})
    with install("agns"):
        import agns.sub.mod as mod

        assert is_wrapped(mod.f) and mod.f(1) == 2
        import agns

        assert agns.__spec__.origin is None or agns.__spec__.origin == "namespace"
        assert not hasattr(agns, "__file__") or agns.__file__ is None
    assert fake_shim.names() == ["f"]


def test_zip_import(tmp_path, sandbox, fake_shim):
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("agzip/__init__.py", "")
        zf.writestr("agzip/ops.py", "def neg(x):\n    return -x\n")
    sys.path.insert(0, str(archive))
    try:
        with install("agzip"):
            import agzip.ops as ops

            assert is_wrapped(ops.neg) and ops.neg(2) == -2
            assert type(ops.__loader__).__name__ == "zipimporter"
            assert "def neg" in inspect.getsource(ops)
    finally:
        sys.path.remove(str(archive))


class _DictFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves modules from a dict: stands in for an editable install's finder."""

    def __init__(self, sources):
        self.sources = sources
        self.executed = []

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.sources:
            return importlib.util.spec_from_loader(fullname, self, is_package=fullname.count(".") == 0)
        return None

    def exec_module(self, module):
        self.executed.append(module.__name__)
        if module.__name__.count(".") == 0:
            module.__path__ = []
        exec(self.sources[module.__name__], module.__dict__)


def test_chains_to_a_custom_finder_after_it(sandbox, fake_shim):
    finder = _DictFinder({"agdict": "", "agdict.core": "def square(x):\n    return x * x\n"})
    sys.meta_path.append(finder)
    with install("agdict"):
        import agdict.core as core

        assert finder.executed == ["agdict", "agdict.core"]
        assert core.__loader__ is finder
        assert is_wrapped(core.square) and core.square(3) == 9
    assert fake_shim.names() == ["square"]


def test_finder_is_first_and_removed_on_uninstall(tree, fake_shim):
    installation = install("agpkg")
    assert isinstance(sys.meta_path[0], AutographFinder)
    assert active_installation() is installation
    uninstall()
    assert not any(isinstance(f, AutographFinder) for f in sys.meta_path)
    assert active_installation() is None


def test_uninstall_restores_every_original(tree, fake_shim):
    import agpkg.layers as layers

    originals = {name: vars(layers.Layer)[name] for name in ("forward", "make", "clamp", "__call__")}
    double = layers.double
    with install("agpkg") as installation:
        assert all(is_wrapped(vars(layers.Layer)[name]) for name in originals)
        assert installation.patches
        import agpkg.helpers as helpers

        assert is_wrapped(helpers.uses_double)
    assert layers.double is double
    for name, raw in originals.items():
        assert vars(layers.Layer)[name] is raw
    assert not is_wrapped(helpers.uses_double)
    import agpkg

    assert agpkg.double is double  # the package's `from .layers import double` copy too


def test_install_replaces_previous_installation(tree, fake_shim):
    first = install("agpkg.layers")
    second = install("agpkg.helpers")
    assert not first.active and second.active
    import agpkg.helpers as helpers
    import agpkg.layers as layers

    assert is_wrapped(helpers.uses_double) and not is_wrapped(layers.double)
    uninstall()


def test_install_sets_process_settings_and_uninstall_restores_them(tree, fake_shim):
    before = current_settings()
    with install("agpkg", settings=Settings(backend="eager")):
        assert current_settings().backend == "eager"
        assert current_settings().packages.allow == ("agpkg",)
    assert current_settings() is before


def test_mode_off_installs_nothing(tree, fake_shim):
    with install("agpkg", settings=Settings(mode="off")) as installation:
        import agpkg.layers as layers

        assert not installation.active and not is_wrapped(layers.double)


def test_already_imported_module_is_instrumented_in_place_with_one_alias_warning(tree, fake_shim, monkeypatch):
    import agpkg.layers as layers
    import other_mod

    original = layers.double
    other_mod.double = original  # what `from agpkg.layers import double` leaves behind
    monkeypatch.setitem(sys.modules, "other_mod_again", other_mod)  # like __main__ / __mp_main__
    with pytest.warns(AliasWarning) as record:
        installation = install("agpkg")
    try:
        assert len(record) == 1
        message = str(record[0].message)
        assert "other_mod.double (is agpkg.layers.double)" in message
        assert message.count("agpkg.layers.double") == 1  # a module registered twice is named once
        assert "agpkg.helpers" not in message  # not imported yet, nothing stale there
        assert is_wrapped(layers.double) and layers.double.__wrapped__ is original
        assert other_mod.double is original  # other modules are not rewritten, only named
        import agpkg

        assert agpkg.double is layers.double  # selected packages' copies are rebound
        assert installation.patches
    finally:
        uninstall()
    assert layers.double is original and agpkg.double is original


def test_no_warning_without_aliases(tree, fake_shim, recwarn):
    import agpkg.layers  # noqa: F401

    with install("agpkg"):
        pass
    assert not [w for w in recwarn if issubclass(w.category, AliasWarning)]


def test_reload_reinstruments(tree, fake_shim):
    with install("agpkg"):
        import agpkg.layers as layers

        first = layers.double
        importlib.reload(layers)
        assert is_wrapped(layers.double) and layers.double is not first


def test_pytest_assertion_rewriting_still_applies(sandbox, fake_shim):
    write_tree(sandbox, {"agassert/__init__.py": "", "agassert/checks.py": "def check(x):\n    assert x == 1\n    return x\n"})
    pytest.register_assert_rewrite("agassert.checks")
    assert any(type(f).__name__ == "AssertionRewritingHook" for f in sys.meta_path)
    with install("agassert"):
        import agassert.checks as checks

        assert is_wrapped(checks.check)
        with pytest.raises(AssertionError) as info:
            checks.check(2)
    assert "assert 2 == 1" in str(info.value)  # rewritten: the message shows the values


def test_wrapped_functions_and_methods_pickle(tree, fake_shim):
    with install("agpkg"):
        import agpkg.layers as layers

        layer = layers.Layer(3)
        for obj in (layers.double, layer.forward, layers.Layer.make, layers.Layer.clamp, layer.clamp, layers.Layer.forward):
            clone = pickle.loads(pickle.dumps(obj))
            assert is_wrapped(clone)
        assert pickle.loads(pickle.dumps(layers.double)) is layers.double
        bound = pickle.loads(pickle.dumps(layer.forward))
        assert bound(2) == 6 and bound.__self__ is not layer and bound.__self__.k == 3
        assert pickle.loads(pickle.dumps(layers.Layer.make))(4).k == 4
        assert pickle.loads(pickle.dumps(layer.clamp))(-1) == 0
        # copy/deepcopy go through the same reduce
        import copy

        assert copy.deepcopy(layers.double) is layers.double
        copied = copy.deepcopy(layer.forward)
        assert is_wrapped(copied) and copied.__self__ is not layer and copied.__self__.k == 3
        assert copy.deepcopy(layers.Layer.make) is not None and copy.copy(layers.double) is layers.double
    # unpickling where the hook is not installed yields the plain function
    data = None
    with install("agpkg"):
        data = pickle.dumps(layers.double)
    assert pickle.loads(data) is layers.double and not is_wrapped(layers.double)


def test_wrapper_class_is_a_wrapt_function_wrapper(tree, fake_shim):
    import wrapt

    with install("agpkg"):
        import agpkg.layers as layers

        assert isinstance(layers.double, AutographFunctionWrapper)
        assert isinstance(layers.double, wrapt.FunctionWrapper)


def test_public_api_names(tree, fake_shim):
    assert autograph.install is install and autograph.uninstall is uninstall


def test_module_function_wrapper_still_binds_when_put_on_a_class(fake_shim):
    from autograph.hook.instrument import MODULE_FUNCTION_BINDING, wrap_function

    def first(a, b=None):
        return a, b

    wrapper = wrap_function(first, module=__name__, qualname="first", attr="first", module_level=True)
    assert wrapper._self_binding == MODULE_FUNCTION_BINDING  # the fast call path in wrapt

    class Holder:
        method = wrapper

    holder = Holder()
    assert wrapper(1, 2) == (1, 2)
    assert holder.method(3) == (holder, 3)  # bound like a plain function would be
    assert Holder.method(holder, 4) == (holder, 4)
    assert [args for _, args, _ in fake_shim.calls] == [(1, 2), (holder, 3), (holder, 4)]


def test_original_function_unwraps_functions_and_methods(tree, fake_shim):
    from autograph.hook.instrument import original_function

    with install("agpkg"):
        import agpkg.layers as layers

        layer = layers.Layer(2)
        assert original_function(layers.double) is layers.double.__wrapped__
        assert original_function(layer.forward) is vars(layers.Layer)["forward"].__wrapped__
        assert original_function(layers.Layer.make) is vars(layers.Layer)["make"].__wrapped__.__func__
        assert original_function(len) is len


def test_the_wrapper_calls_the_shim_without_a_frame_of_its_own():
    """The wrapt wrapper function (C when the extension is built) passes the bound instance as
    the shim contract says, and the shim's caller is the wrapped function's caller (runtime/frames.py)."""
    from autograph.guards import extension
    from autograph.hook.instrument import _call_through

    if extension.load() is None:
        pytest.skip("autograph._native not built (python setup.py build_ext --inplace)")
    seen = []

    def shim(*args, **kwargs):
        seen.append((sys._getframe(1).f_code.co_name, args, kwargs))
        return len(seen)

    here = sys._getframe().f_code.co_name
    assert _call_through(shim, "function")(None, "obj", (1,), {"k": 2}) == 1
    assert _call_through(shim, "function")(None, None, (1,), {}) == 2
    assert _call_through(shim, "staticmethod")(None, "obj", (1, 2), {}) == 3
    assert seen == [(here, ("obj", 1), {"k": 2}), (here, (1,), {}), (here, (1, 2), {})]
