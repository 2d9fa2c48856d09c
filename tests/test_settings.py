"""Settings: defaults, precedence of the four sources, and every kind of bad input."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pydantic
import pytest

from autograph.errors import SettingsError
from autograph.settings import (
    LOG_CHANNELS,
    Settings,
    current_settings,
    export_env,
    load_settings,
    set_current_settings,
    settings_schema,
    startup_requested,
)

REPO = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, text: str, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


@pytest.fixture(autouse=True)
def _no_stray_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./autograph.yaml unless a test writes one


def test_defaults():
    s = load_settings(env={})
    assert s == Settings()
    assert (s.packages.allow, s.packages.deny) == ((), ())
    assert (s.backend, s.recompile_limit, s.dynamic, s.on_error, s.mode) == ("auto", 8, "auto", "fallback", "compile")
    assert s.report is False and s.log == () and s.cache_dir is None and s.dump is None


def test_yaml_overrides_defaults(tmp_path):
    path = write(tmp_path, """
        packages:
          allow: [mymodels, "other.attn:Attention.forward"]
          deny: [mymodels.debug]
        backend: eager
        recompile_limit: 3
        dynamic: static
        on_error: raise
        mode: run-only
        report: out/report.json
        log: [guards, recompiles]
        cache_dir: /tmp/agcache
    """)
    s = load_settings(path, env={})
    assert s.packages.allow == ("mymodels", "other.attn:Attention.forward")
    assert s.packages.deny == ("mymodels.debug",)
    assert (s.backend, s.recompile_limit, s.dynamic, s.on_error, s.mode) == ("eager", 3, "static", "raise", "run-only")
    assert s.report == Path("out/report.json")
    assert s.log == ("guards", "recompiles")
    assert s.cache_dir == Path("/tmp/agcache") and s.cache_path() == Path("/tmp/agcache")


def test_environment_overrides_yaml_and_packages_append(tmp_path):
    path = write(tmp_path, "packages:\n  allow: [mymodels]\nbackend: eager\nmode: run-only\nlog: [guards]\n")
    env = {"AUTOGRAPH_PACKAGES": "pkg_a, pkg_b.sub", "AUTOGRAPH_BACKEND": "inductor", "AUTOGRAPH_LOG": "recompiles,graph_breaks",
           "AUTOGRAPH_MODE": "compile"}
    s = load_settings(path, env=env)
    assert s.packages.allow == ("mymodels", "pkg_a", "pkg_b.sub")
    assert s.backend == "inductor" and s.mode == "compile"
    assert s.log == ("recompiles", "graph_breaks")


def test_cli_overrides_environment(tmp_path):
    path = write(tmp_path, "backend: eager\n")
    s = load_settings(path, env={"AUTOGRAPH_BACKEND": "inductor"}, cli={"backend": "triton", "report": True})
    assert s.backend == "triton" and s.report is True


def test_empty_environment_variables_mean_unset(tmp_path):
    path = write(tmp_path, "backend: eager\nmode: run-only\nlog: [guards]\nrecompile_limit: 3\nreport: true\n"
                           "dump: d\nfullgraph: true\n")
    s = load_settings(path, env={"AUTOGRAPH_BACKEND": "", "AUTOGRAPH_MODE": " ", "AUTOGRAPH_PACKAGES": ""})
    assert (s.backend, s.mode, s.packages.allow) == ("eager", "run-only", ())
    assert load_settings(path, env={"AUTOGRAPH_LOG": ""}).log == ()  # empty log list: no channels
    from autograph.settings import environment_variables

    every_empty = {var.name: "" for _, var in environment_variables() if var.name != "AUTOGRAPH_LOG"}
    assert load_settings(path, env=every_empty) == load_settings(path, env={})
    assert load_settings(path, env={"AUTOGRAPH_RECOMPILE_LIMIT": ""}).recompile_limit == 3


def test_cli_none_values_are_ignored():
    s = load_settings(env={"AUTOGRAPH_BACKEND": "eager"}, cli={"backend": None})
    assert s.backend == "eager"


def test_autograph_zero_turns_everything_off(tmp_path):
    path = write(tmp_path, "mode: compile\npackages:\n  allow: [m]\n")
    assert load_settings(path, env={"AUTOGRAPH": "0"}).mode == "off"
    assert load_settings(path, env={"AUTOGRAPH": "0", "AUTOGRAPH_MODE": "compile"}).mode == "off"
    assert load_settings(path, env={"AUTOGRAPH": "1"}).mode == "compile"


def test_every_environment_variable(tmp_path):
    env = {"AUTOGRAPH_DENY": "a.b", "AUTOGRAPH_RECOMPILE_LIMIT": "2", "AUTOGRAPH_DYNAMIC": "always",
           "AUTOGRAPH_ON_ERROR": "raise", "AUTOGRAPH_REPORT": "1", "AUTOGRAPH_CACHE_DIR": str(tmp_path)}
    s = load_settings(env=env)
    assert s.packages.deny == ("a.b",) and s.recompile_limit == 2 and s.dynamic == "always"
    assert s.on_error == "raise" and s.report is True and s.cache_dir == tmp_path
    assert load_settings(env={"AUTOGRAPH_REPORT": "false"}).report is False
    assert load_settings(env={"AUTOGRAPH_REPORT": "r.json"}).report == Path("r.json")
    assert load_settings(env={"AUTOGRAPH_LOG": "all"}).log == tuple(c for c in LOG_CHANNELS if c != "all")
    assert load_settings(env={"AUTOGRAPH_LOG": "breaks,kernels,graph_breaks"}).log == ("graph_breaks", "backend")
    assert load_settings(env={"AUTOGRAPH_DUMP": str(tmp_path)}).dump == tmp_path
    assert load_settings(env={"AUTOGRAPH_DUMP": ""}).dump is None


def test_config_file_resolution(tmp_path):
    explicit = write(tmp_path, "backend: eager\n", "explicit.yaml")
    from_env = write(tmp_path, "backend: inductor\n", "env.yaml")
    assert load_settings(env={}).backend == "auto"  # no ./autograph.yaml yet
    write(tmp_path, "backend: triton\n", "autograph.yaml")
    assert load_settings(env={}).backend == "triton"  # ./autograph.yaml
    assert load_settings(env={"AUTOGRAPH_CONFIG": str(from_env)}).backend == "inductor"
    assert load_settings(explicit, env={"AUTOGRAPH_CONFIG": str(from_env)}).backend == "eager"
    assert load_settings(env={"AUTOGRAPH_CONFIG": ""}).backend == "auto"  # empty: no file at all


def test_empty_yaml_file_means_defaults(tmp_path):
    assert load_settings(write(tmp_path, "# nothing\n"), env={}) == Settings()


def test_duplicate_rules_are_dropped(tmp_path):
    s = load_settings(write(tmp_path, "packages:\n  allow: [a, b]\n"), env={"AUTOGRAPH_PACKAGES": "b,a,c"})
    assert s.packages.allow == ("a", "b", "c")


def test_single_rule_string_is_accepted(tmp_path):
    assert load_settings(write(tmp_path, "packages:\n  allow: mymodels\n"), env={}).packages.allow == ("mymodels",)


def test_user_backend_that_imports(tmp_path, monkeypatch):
    (tmp_path / "agbackend_mod.py").write_text("def my_backend(gm, example_inputs):\n    return gm\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_settings(env={"AUTOGRAPH_BACKEND": "agbackend_mod:my_backend"}).backend == "agbackend_mod:my_backend"


# ---------------------------------------------------------------- bad input


def error_of(*args, **kwargs) -> str:
    with pytest.raises(SettingsError) as info:
        load_settings(*args, **kwargs)
    return str(info.value)


def test_malformed_yaml_names_file_line_and_column(tmp_path):
    path = write(tmp_path, "packages:\n  allow: [a, b\nbackend: eager\n")
    message = error_of(path, env={})
    assert message.startswith(f"{path}:3:")
    assert "malformed YAML" in message


def test_malformed_yaml_bad_indentation(tmp_path):
    path = write(tmp_path, "backend: eager\n  mode: off\n")
    assert error_of(path, env={}).startswith(f"{path}:2:")


def test_unknown_key_suggests_the_closest(tmp_path):
    path = write(tmp_path, "backend: eager\nrecompile_limt: 3\n")
    message = error_of(path, env={})
    assert f"{path}:2:1: unknown key 'recompile_limt'" in message
    assert "did you mean 'recompile_limit'?" in message


def test_unknown_nested_key_suggests_the_closest(tmp_path):
    path = write(tmp_path, "packages:\n  allow: [a]\n  denny: [b]\n")
    message = error_of(path, env={})
    assert f"{path}:3:3: unknown key 'denny' in 'packages'; did you mean 'deny'?" in message


def test_wrong_type(tmp_path):
    path = write(tmp_path, "recompile_limit: many\n")
    message = error_of(path, env={})
    assert message.startswith(f"{path}:1:18: recompile_limit:") and "integer" in message
    assert "recompile_limit" in error_of(write(tmp_path, "recompile_limit: 2.5\n"), env={})
    assert "recompile_limit" in error_of(write(tmp_path, "recompile_limit: true\n"), env={})
    assert "report" in error_of(write(tmp_path, "report: 3\n"), env={})
    assert "packages" in error_of(write(tmp_path, "packages: [a]\n"), env={})


def test_out_of_range_value(tmp_path):
    assert "greater than or equal to 1" in error_of(write(tmp_path, "recompile_limit: 0\n"), env={})


def test_bad_choice(tmp_path):
    message = error_of(write(tmp_path, "dynamic: statc\n"), env={})
    assert "dynamic: 'statc' is not one of" in message and "did you mean 'static'?" in message


def test_invalid_rule_in_yaml_points_at_the_item(tmp_path):
    path = write(tmp_path, "packages:\n  allow:\n    - good\n    - bad rule\n")
    message = error_of(path, env={})
    assert message.startswith(f"{path}:4:7: packages.allow.1: invalid rule 'bad rule'")


def test_invalid_rule_in_environment_names_the_variable():
    message = error_of(env={"AUTOGRAPH_PACKAGES": "ok,a:b:c"})
    assert message.startswith("AUTOGRAPH_PACKAGES:") and "at most one ':'" in message


def test_unknown_backend_suggests_the_closest(tmp_path):
    message = error_of(write(tmp_path, "backend: trition\n"), env={})
    assert "unknown backend 'trition'; did you mean 'triton'?" in message
    assert error_of(env={"AUTOGRAPH_BACKEND": "eagre"}).startswith("AUTOGRAPH_BACKEND: ")
    assert error_of(env={}, cli={"backend": "nope"}).startswith("--backend: ")


def test_backend_module_function_that_cannot_be_imported(tmp_path, monkeypatch):
    message = error_of(env={"AUTOGRAPH_BACKEND": "no_such_pkg_xyz.backends:fast"})
    assert "cannot import module 'no_such_pkg_xyz.backends'" in message
    (tmp_path / "agbackend_two.py").write_text("value = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "has no attribute 'missing'" in error_of(env={"AUTOGRAPH_BACKEND": "agbackend_two:missing"})
    assert "is not callable" in error_of(env={"AUTOGRAPH_BACKEND": "agbackend_two:value"})
    assert "is not 'module:function'" in error_of(env={"AUTOGRAPH_BACKEND": "a b:c"})
    # the import check can be deferred (the start-up hook does, to stay torch-free)
    assert load_settings(env={"AUTOGRAPH_BACKEND": "no_such_pkg_xyz:f"}, check_backend=False).backend == "no_such_pkg_xyz:f"


def test_bad_environment_values():
    assert "AUTOGRAPH_RECOMPILE_LIMIT='lots'" in error_of(env={"AUTOGRAPH_RECOMPILE_LIMIT": "lots"})
    assert "AUTOGRAPH='maybe'" in error_of(env={"AUTOGRAPH": "maybe"})
    assert error_of(env={"AUTOGRAPH_MODE": "fast"}).startswith("AUTOGRAPH_MODE: mode: 'fast' is not one of")
    message = error_of(env={"AUTOGRAPH_LOG": "guards,recompile"})
    assert "unknown log channel 'recompile'; did you mean 'recompiles'?" in message


def test_non_mapping_yaml(tmp_path):
    assert "must be a mapping" in error_of(write(tmp_path, "- a\n- b\n"), env={})


def test_duplicate_key(tmp_path):
    path = write(tmp_path, "backend: eager\nbackend: triton\n")
    assert error_of(path, env={}) == f"{path}:2:1: duplicate key 'backend'"


def test_missing_file(tmp_path):
    assert "settings file not found (given by --config)" in error_of(tmp_path / "nope.yaml", env={})
    assert "given by AUTOGRAPH_CONFIG" in error_of(env={"AUTOGRAPH_CONFIG": str(tmp_path / "nope.yaml")})


def test_unknown_cli_key():
    assert "did you mean 'backend'?" in error_of(env={}, cli={"backnd": "eager"})


def test_all_errors_of_a_file_are_reported_at_once(tmp_path):
    path = write(tmp_path, "backnd: eager\nmode: fast\n")
    message = error_of(path, env={})
    assert len(message.splitlines()) == 2


# ---------------------------------------------------------------- export, schema, process settings


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),
        Settings(packages={"allow": ["a", "b.c:F.forward"], "deny": ["a.x"]}, backend="eager", recompile_limit=3,
                 dynamic="always", on_error="raise", mode="run-only", report=True, log=["guards"], cache_dir="/tmp/x",
                 dump="/tmp/dumps"),
        Settings(report="out/r.json", mode="off"),
    ],
)
def test_export_env_round_trips(settings, tmp_path):
    write(tmp_path, "backend: triton\n", "autograph.yaml")  # must be ignored by the child
    env = export_env(settings)
    assert all(isinstance(v, str) for v in env.values())
    assert load_settings(env=env) == settings


def test_committed_schema_is_current():
    committed = json.loads((REPO / "config" / "settings.schema.json").read_text())
    assert committed == settings_schema(), "regenerate: python -m autograph config schema > config/settings.schema.json"


def test_bundled_config_is_valid():
    s = load_settings(REPO / "config" / "autograph.yaml", env={})
    assert "tinymodels" in s.packages.allow


def test_startup_requested():
    assert not startup_requested({})
    assert startup_requested({"AUTOGRAPH_PACKAGES": "m"})
    assert startup_requested({"AUTOGRAPH_CONFIG": "a.yaml"})
    assert not startup_requested({"AUTOGRAPH_CONFIG": ""})
    assert not startup_requested({"AUTOGRAPH_PACKAGES": "m", "AUTOGRAPH": "0"})


def test_current_settings_is_lazy_and_settable(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_BACKEND", "eager")
    monkeypatch.delenv("AUTOGRAPH_CONFIG", raising=False)
    set_current_settings(None)
    try:
        assert current_settings().backend == "eager"
        assert current_settings() is current_settings()
        custom = Settings(backend="inductor")
        set_current_settings(custom)
        assert current_settings() is custom
        with pytest.raises(TypeError):
            set_current_settings({"backend": "eager"})
    finally:
        set_current_settings(None)


def test_settings_are_immutable_and_hashable():
    s = Settings()
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        s.backend = "eager"
    assert hash(s) == hash(Settings())


# ---------------------------------------------------------------- one declaration per key

# A value other than the default for every leaf key (a new key fails the test below until it has one).
NON_DEFAULT = {
    ("packages", "allow"): ("a", "b.c:F.forward"), ("packages", "deny"): ("a.x",), ("backend",): "eager",
    ("recompile_limit",): 3, ("compile_threshold",): 5, ("dynamic",): "always", ("fullgraph",): True, ("on_error",): "raise",
    ("mode",): "run-only", ("report",): Path("out/r.json"), ("report_style",): "quiet", ("log",): ("guards", "recompiles"),
    ("cache_dir",): Path("/tmp/agcache"), ("dump",): Path("/tmp/agdumps"), ("verify",): True, ("verify_calls",): 5,
}


def _non_default_settings() -> Settings:
    from autograph.settings import settings_keys

    data: dict = {}
    for path, _field in settings_keys():
        assert path in NON_DEFAULT, f"add a non-default sample for the new key {'.'.join(path)}"
        target = data
        for name in path[:-1]:
            target = target.setdefault(name, {})
        target[path[-1]] = NON_DEFAULT[path]
    settings = Settings.model_validate(data)
    for path, field in settings_keys():
        value = settings
        for name in path:
            value = getattr(value, name)
        assert value != field.get_default(call_default_factory=True), path
    return settings


def test_every_key_declares_its_environment_variable():
    from autograph.settings import env_vars_of, settings_keys

    for path, field in settings_keys():
        assert env_vars_of(field), f"{'.'.join(path)} has no EnvVar in its metadata"


@pytest.mark.parametrize("settings", [_non_default_settings(), Settings(), Settings(report=True, mode="off")],
                         ids=["every-key-changed", "defaults", "report-on-off"])
def test_every_key_round_trips_through_export_env_into_a_child_process(settings, tmp_path):
    """What a DataLoader worker or spawn child sees: the parent's exported variables, nothing else."""
    import os
    import subprocess
    import sys

    write(tmp_path, "backend: triton\nrecompile_limit: 5\n", "autograph.yaml")  # must be ignored by the child
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env.update(export_env(settings))
    child = subprocess.run([sys.executable, "-c", "from autograph.settings import load_settings; "
                            "print(load_settings(check_backend=False).model_dump_json())"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    assert Settings.model_validate_json(child.stdout) == settings


def test_environment_parsing_and_export_are_derived_from_the_fields(monkeypatch):
    """A key added with an EnvVar is read from the environment and exported with no other edit."""
    from autograph import settings as settings_mod

    names = [var.name for _, var in settings_mod.environment_variables()]
    assert len(names) == len(set(names))
    exported = export_env(Settings())
    assert set(exported) == {"AUTOGRAPH_CONFIG"} | {var.name for _, var in settings_mod.environment_variables()
                                                    if var.render is not None}
    assert load_settings(env={"AUTOGRAPH_FULLGRAPH": "1"}).fullgraph is True
    assert "AUTOGRAPH_FULLGRAPH='maybe'" in error_of(env={"AUTOGRAPH_FULLGRAPH": "maybe"})


def test_schema_names_each_keys_variable_and_flag():
    schema = settings_schema()
    assert schema["properties"]["backend"]["x-env"] == ["AUTOGRAPH_BACKEND"]
    assert schema["properties"]["backend"]["x-flag"] == "--backend"
    assert schema["properties"]["mode"]["x-env"] == ["AUTOGRAPH_MODE", "AUTOGRAPH"]
    assert schema["$defs"]["Packages"]["properties"]["allow"]["x-env"] == ["AUTOGRAPH_PACKAGES"]


def _readme_settings_rows() -> dict[str, list[str]]:
    readme = (REPO / "docs" / "guide" / "settings.md").read_text()
    section = readme.split("## Settings reference", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))] if line.startswith("| `") else None
        if cells:
            rows[cells[0].strip("`")] = cells
    return rows


def test_readme_settings_table_matches_the_fields():
    """One row per key: its name, its default and every variable that sets it."""
    from autograph.settings import env_vars_of, settings_keys

    rows = _readme_settings_rows()
    keys = {".".join(path): field for path, field in settings_keys()}
    assert set(rows) == set(keys), "README's settings table and Settings.model_fields differ"
    for name, field in keys.items():
        default = field.get_default(call_default_factory=True)
        shown = default if isinstance(default, str) else json.dumps(list(default) if isinstance(default, tuple) else default)
        key_cell, default_cell, _meaning, env_cell = rows[name]
        assert default_cell == f"`{shown}`", (name, default_cell, shown)
        for var in env_vars_of(field):
            assert f"`{var.name}" in env_cell, (name, var.name)
            if var.flag:
                assert f"`{var.flag}" in env_cell, (name, var.flag)


# ---------------------------------------------------------------- YAML aliases


def _alias_bomb(levels: int = 9) -> str:
    text = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    names = "abcdefghijklmnop"
    for i in range(1, levels):
        prev, name = names[i - 1], names[i]
        text += f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]\n"
    return text


@pytest.mark.parametrize("text, where", [("a: &a [*a]\n", ":1:8:"), (_alias_bomb(), ":2:8:"),
                                         ("backend: &b eager\nmode: *b\n", ":2:7:")],
                         ids=["recursive", "bomb", "plain"])
def test_yaml_aliases_are_refused_before_anything_is_built(tmp_path, text, where):
    import time

    path = write(tmp_path, text)
    start = time.perf_counter()
    message = error_of(path, env={})
    assert time.perf_counter() - start < 5
    assert message.startswith(f"{path}{where} YAML alias *") and "aliases are not allowed" in message
    assert "aliases are not allowed" in error_of(env={"AUTOGRAPH_CONFIG": str(path)})
