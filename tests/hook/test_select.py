"""Rule parsing and matching (the semantics documented in README.md, "Rules")."""
from __future__ import annotations

import pytest

from autograph.hook.select import Rule, Selection


@pytest.mark.parametrize(
    "text, module_glob, qualname_glob",
    [
        ("mymodels", "mymodels", None),
        ("mymodels.layers.*", "mymodels.layers.*", None),
        ("mymodels.attn:Attention.forward", "mymodels.attn", "Attention.forward"),
        ("*:*.forward", "*", "*.forward"),
        ("  pkg_a  ", "pkg_a", None),
        ("pkg[12].x?:f", "pkg[12].x?", "f"),
    ],
)
def test_rule_parse_valid(text, module_glob, qualname_glob):
    rule = Rule.parse(text)
    assert (rule.module_glob, rule.qualname_glob) == (module_glob, qualname_glob)
    assert Rule.parse(rule.text) == rule


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty rule"),
        ("a:b:c", "at most one ':'"),
        ("my models", "module glob"),
        ("mymodels.", "module glob"),
        (".mymodels", "module glob"),
        ("a..b", "module glob"),
        ("mymodels:", "qualname glob"),
        ("mymodels:Attention forward", "qualname glob"),
        ("pkg/sub", "module glob"),
    ],
)
def test_rule_parse_invalid(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        Rule.parse(text)


@pytest.mark.parametrize(
    "rule, module, expected",
    [
        ("mymodels", "mymodels", True),
        ("mymodels", "mymodels.layers.attn", True),
        ("mymodels", "mymodels_extra", False),
        ("mymodels", "other.mymodels", False),
        ("mymodels.layers.*", "mymodels.layers.attn", True),
        ("mymodels.layers.*", "mymodels.layers.attn.inner", True),
        ("mymodels.layers.*", "mymodels.layers", False),
        ("mymodels.layers.*", "mymodels.heads", False),
        ("*", "anything.at.all", True),
        ("my*", "mymodels.x", True),
        ("MyModels", "mymodels", False),  # case-sensitive
    ],
)
def test_rule_matches_module(rule, module, expected):
    assert Rule.parse(rule).matches_module(module) is expected


@pytest.mark.parametrize(
    "rule, module, qualname, expected",
    [
        ("mymodels.attn:Attention.forward", "mymodels.attn", "Attention.forward", True),
        ("mymodels.attn:Attention.forward", "mymodels.attn", "Attention.reset", False),
        ("mymodels.attn:Attention.forward", "mymodels.mlp", "Attention.forward", False),
        ("mymodels.attn:Attention", "mymodels.attn", "Attention.forward", True),  # a class covers its methods
        ("mymodels.attn:Attention", "mymodels.attn", "AttentionMask.forward", False),
        ("*:*.forward", "a.b", "Block.forward", True),
        ("*:*.forward", "a.b", "Outer.Inner.forward", True),
        ("*:*.forward", "a.b", "forward", False),
        ("*:*.forward", "a.b", "Block.forward_hook", False),
        ("mymodels", "mymodels.x", "any_function", True),
    ],
)
def test_rule_matches_function(rule, module, qualname, expected):
    assert Rule.parse(rule).matches_function(module, qualname) is expected


def test_deny_beats_allow():
    selection = Selection(allow=["mymodels"], deny=["mymodels.debug", "mymodels.attn:Attention.reset"])
    assert selection.selects_module("mymodels.attn")
    assert not selection.selects_module("mymodels.debug")
    assert not selection.selects_module("mymodels.debug.tools")
    assert selection.selects_function("mymodels.attn", "Attention.forward")
    assert not selection.selects_function("mymodels.attn", "Attention.reset")
    assert not selection.selects_function("mymodels.debug", "helper")


def test_deny_with_qualname_keeps_module_intercepted():
    selection = Selection(allow=["pkg"], deny=["pkg:*.extra_repr"])
    assert selection.selects_module("pkg.layers")
    assert not selection.selects_function("pkg.layers", "Linear.extra_repr")
    assert selection.selects_function("pkg.layers", "Linear.forward")


def test_allow_with_qualname_intercepts_module_but_selects_only_that_function():
    selection = Selection(allow=["pkg.attn:Attention.forward"])
    assert selection.selects_module("pkg.attn")
    assert not selection.selects_module("pkg.mlp")
    assert selection.selects_function("pkg.attn", "Attention.forward")
    assert not selection.selects_function("pkg.attn", "helper")


def test_empty_selection_selects_nothing():
    selection = Selection()
    assert not selection
    assert not selection.selects_module("torch")


def test_autograph_itself_is_never_selected_except_its_test_models():
    selection = Selection(allow=["*"])
    assert not selection.selects_module("autograph")
    assert not selection.selects_module("autograph.runtime.shim")
    assert selection.selects_module("autograph.testing.models")
    assert selection.selects_module("autographer")


# ---------------------------------------------------------------- never instrumented


def test_autograph_dependencies_and_the_stdlib_are_never_selected():
    from autograph.hook.select import Selection

    everything = Selection(["*"])
    for module in ("torch", "torch.nn.functional", "wrapt", "pydantic", "yaml", "collections", "functools",
                   "ctypes.util", "autograph.runtime.shim", "__main__", "sympy.core"):
        assert not everything.selects_module(module), module
    assert everything.selects_module("mymodels.layers") and everything.selects_module("autograph.testing.models")


def test_rules_that_can_only_name_never_instrumented_modules_are_settings_errors():
    import pytest

    from autograph.errors import SettingsError
    from autograph.hook.install import install
    from autograph.settings import Settings, load_settings

    for rule in ("torch", "torch.nn", "collections", "torch:*.forward", "os.path"):
        with pytest.raises(SettingsError, match="never instruments"):
            load_settings(env={"AUTOGRAPH_PACKAGES": rule})
        with pytest.raises(SettingsError, match="never instruments"):
            install(rule, settings=Settings())
    for rule in ("*", "tor*", "mymodels", "autograph", "*:*.forward"):
        assert load_settings(env={"AUTOGRAPH_PACKAGES": rule}).packages.allow == (rule,)


def test_the_deny_list_covers_autographs_installed_requirements():
    """Every top-level module of every distribution autograph requires (transitively, extras
    aside) is in NEVER_INSTRUMENTED or the standard library."""
    import importlib.metadata as md
    import re
    import sys

    import pytest

    from autograph.settings import NEVER_INSTRUMENTED

    try:
        md.distribution("autograph")
    except md.PackageNotFoundError:
        pytest.skip("autograph is not installed (scripts/setup)")
    seen, todo, modules = set(), ["autograph"], set()
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        for requirement in dist.requires or ():
            if "extra ==" not in requirement:
                todo.append(re.match(r"[A-Za-z0-9_.-]+", requirement).group(0))
        top_level = dist.read_text("top_level.txt")
        if top_level:
            modules |= {line.strip() for line in top_level.splitlines() if line.strip()}
        else:
            modules |= {f.parts[0].removesuffix(".py") for f in dist.files or () if f.suffix == ".py"
                        and not f.parts[0].endswith((".dist-info", ".data")) and f.parts[0] != ".."}
    missing = {m for m in modules if m.isidentifier() and m not in NEVER_INSTRUMENTED and m not in sys.stdlib_module_names}
    assert not missing, f"add these to settings.NEVER_INSTRUMENTED: {sorted(missing)}"
