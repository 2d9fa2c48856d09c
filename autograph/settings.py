"""autograph's settings: one validated model, merged from four sources.

Lowest to highest precedence: defaults -> YAML file -> ``AUTOGRAPH_*`` environment
variables -> command-line flags. This module is the only reader of ``AUTOGRAPH_*``
variables, so every knob has exactly one documented meaning. Errors never reach the
user as a pydantic dump: each says which file:line:col (or variable, or flag) is
wrong, what was expected, and the closest valid name when it looks like a typo.

Deliberately torch-free and light: the ``.pth`` start-up hook imports it.
"""
from __future__ import annotations

import difflib
import fnmatch
import importlib
import os
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Mapping, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, StrictBool, field_validator

from autograph.errors import SettingsError

BUILTIN_BACKENDS = ("auto", "eager", "triton", "inductor")
LOG_CHANNELS = (
    "all",          # every channel below
    "hook",         # modules intercepted, functions wrapped/unwrapped
    "guards",       # guards of each new cache entry
    "recompiles",   # why an entry missed (the first failing guard)
    "graph_breaks", # each break with its reason and source line
    "graph",        # the captured FX graph (tabular)
    "graph_code",   # the FX graph's Python code
    "bytecode",     # original and transformed bytecode
    "backend",      # backend compile times and kernels
    "perf",         # per-call timings of the shim
    "verify",       # verify mode: each mismatch between a compiled call and the original
)
LOG_ALIASES = {"breaks": "graph_breaks", "graphs": "graph", "kernels": "backend"}  # the explain room's names
CONFIG_FILE_NAME = "autograph.yaml"

# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------

_GLOB_PART = r"[A-Za-z0-9_*?\[\]!-]+"
_DOTTED_GLOB = re.compile(rf"^{_GLOB_PART}(\.{_GLOB_PART})*$")


@dataclass(frozen=True)
class Rule:
    """One ``module_glob[:qualname_glob]`` rule.

    A glob matches a dotted name when it matches the name itself or any of its
    dotted prefixes (``fnmatch`` syntax, case-sensitive, ``*`` also crosses dots):
    ``mymodels`` matches ``mymodels`` and ``mymodels.layers.attn``; the qualname glob
    ``Attention`` matches ``Attention.forward``. No qualname glob means every function.
    """

    module_glob: str
    qualname_glob: str | None = None

    @property
    def text(self) -> str:
        if self.qualname_glob is None:
            return self.module_glob
        return f"{self.module_glob}:{self.qualname_glob}"

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> "Rule":
        """Parse and validate ``text``; raises ``ValueError`` saying what is wrong."""
        if not isinstance(text, str):
            raise ValueError(f"a rule must be a string like 'mymodels' or 'mymodels.attn:Attention.forward', got {text!r}")
        raw = text.strip()
        if not raw:
            raise ValueError("empty rule: write a module glob such as 'mymodels' or 'mymodels.layers.*'")
        module, sep, qualname = raw.partition(":")
        if sep and ":" in qualname:
            raise ValueError(f"invalid rule {raw!r}: at most one ':' separates the module glob from the qualname glob")
        if not _DOTTED_GLOB.match(module):
            raise ValueError(
                f"invalid rule {raw!r}: module glob {module!r} must be dotted names or globs "
                "(letters, digits, '_', '*', '?', '[...]'), e.g. 'mymodels.layers.*'"
            )
        if sep and not _DOTTED_GLOB.match(qualname):
            raise ValueError(
                f"invalid rule {raw!r}: qualname glob {qualname!r} must be a dotted qualified name or glob, "
                "e.g. 'Attention.forward' or '*.forward'"
            )
        return cls(module, qualname if sep else None)

    def matches_module(self, module: str) -> bool:
        """True when the module glob covers ``module`` (or a package containing it)."""
        return _matches_dotted(module, self.module_glob)

    def matches_function(self, module: str, qualname: str) -> bool:
        """True when both globs cover ``module`` and ``qualname``."""
        if not self.matches_module(module):
            return False
        return self.qualname_glob is None or _matches_dotted(qualname, self.qualname_glob)


# Top-level modules autograph never instruments, whatever the rules say: its own dependencies
# (and theirs), the test runner, the interpreter's start-up modules, and (below) the standard
# library. Instrumenting them would run autograph's shim inside autograph itself: a hang or a
# broken `import torch` at start-up. `autograph` is listed too (except autograph.testing, its
# test models). A test checks the list against the installed requirements.
NEVER_INSTRUMENTED = frozenset({
    "autograph", "torch", "torchgen", "functorch", "triton", "wrapt", "pydantic", "pydantic_core",
    "annotated_types", "typing_extensions", "typing_inspection", "yaml", "_yaml", "bytecode", "depyf",
    "astor", "dill", "sympy", "isympy", "mpmath", "networkx", "jinja2", "markupsafe", "filelock", "fsspec",
    "numpy", "setuptools", "pkg_resources", "_distutils_hack", "pip", "pytest", "_pytest", "pluggy", "py",
    "iniconfig", "packaging", "hypothesis", "sitecustomize", "usercustomize", "__main__", "__mp_main__",
})
_OWN_TEST_MODELS = "autograph.testing"


def never_instrumented(module: str) -> bool:
    """True for modules the import hook leaves alone whatever the rules (see ``NEVER_INSTRUMENTED``)."""
    if module == _OWN_TEST_MODELS or module.startswith(_OWN_TEST_MODELS + "."):
        return False
    top = module.partition(".")[0]
    return top in NEVER_INSTRUMENTED or top in sys.stdlib_module_names or top in sys.builtin_module_names


def check_deny_rule(rule: "Rule") -> None:
    """Refuse a deny rule that can only name modules autograph never instruments: it changes nothing
    (code of torch or the standard library is never compiled on its own; see "Code outside the selection")."""
    top = rule.module_glob.partition(".")[0]
    if any(ch in top for ch in "*?[") or not never_instrumented(top) or top in ("__main__", "__mp_main__"):
        return
    what = "the standard library" if (top in sys.stdlib_module_names or top in sys.builtin_module_names) \
        else "autograph itself or one of its dependencies"
    raise ValueError(
        f"deny rule {rule.text!r} names modules of {what} ({top!r}), which autograph never instruments: "
        "it would change nothing. Their code is never compiled on its own (it is inlined into your "
        "function's graph or called as one call); deny your own function that calls it instead, "
        "e.g. 'mypkg.train:train_step'")


def check_allow_rule(rule: "Rule") -> None:
    """Refuse an allow rule that can only name modules autograph never instruments (it compiles nothing)."""
    top = rule.module_glob.partition(".")[0]
    if any(ch in top for ch in "*?[") or not never_instrumented(top) or top == "autograph":
        return
    what = "the standard library" if (top in sys.stdlib_module_names or top in sys.builtin_module_names) \
        else "autograph itself or one of its dependencies" if top not in ("__main__", "__mp_main__") \
        else "the script being run"
    raise ValueError(
        f"rule {rule.text!r} selects only modules of {what} ({top!r}), which autograph never instruments "
        "(instrumenting them would make autograph compile itself); it would compile nothing. Select your "
        "own packages instead, e.g. 'mymodels' (see 'never instrumented' in the README)")


def _matches_dotted(name: str, glob: str) -> bool:
    if fnmatch.fnmatchcase(name, glob):
        return True
    dot = name.rfind(".")
    while dot > 0:
        if fnmatch.fnmatchcase(name[:dot], glob):
            return True
        dot = name.rfind(".", 0, dot)
    return False


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


def _closest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    match = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.5)
    return f"; did you mean {match[0]!r}?" if match else ""


RuleText = Annotated[str, AfterValidator(lambda text: Rule.parse(text).text)]


# ---------------------------------------------------------------------------
# How a key is set from outside the file: declared once, on the field
# ---------------------------------------------------------------------------

UNSET: Any = object()  # returned by an EnvVar's ``parse``: the variable sets nothing


def _text(raw: str) -> str:
    return raw.strip()


def _comma_list(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


def _joined(value: tuple[str, ...]) -> str:
    return ",".join(value)


def _whole_number(raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError("expected a whole number such as 8") from None


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _switch(raw: str) -> bool:
    word = raw.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise ValueError("expected 1/true/yes/on or 0/false/no/off")


def _switch_text(value: bool) -> str:
    return "1" if value else "0"


def _report_value(raw: str) -> Any:
    word = raw.strip()
    return True if word.lower() in _TRUE else False if word.lower() in _FALSE else word


def _verify_value(raw: str) -> Any:
    word = raw.strip().lower()
    return "strict" if word == "strict" else _switch(word)


def _report_text(value: Any) -> str:
    return _switch_text(value) if isinstance(value, bool) else str(value)


def _optional_path_text(value: Path | None) -> str:
    return "" if value is None else str(value)


def _autograph_switch(raw: str) -> Any:
    word = raw.strip().lower()
    if word in _FALSE:
        return "off"
    if word in _TRUE:
        return UNSET
    raise ValueError("expected 0 (autograph off) or 1 (on)")


@dataclass(frozen=True)
class EnvVar:
    """How a settings key is set outside the YAML file, kept in the field's metadata.

    The one declaration every other place derives from: reading the environment
    (``load_settings``), writing it for child processes (``export_env``), the JSON
    Schema (``x-env``, ``x-flag``), the CLI's ``run`` flags and the README table check.
    Adding a key is a field with an ``EnvVar`` and its consumer, nothing else.
    """

    name: str                                   # AUTOGRAPH_BACKEND
    parse: Callable[[str], Any] = _text         # the variable's text -> the value validated (UNSET: no override)
    render: Callable[[Any], str] | None = str   # the value -> text ``parse`` reads back; None: never exported
    empty_is_unset: bool = True                 # ``VAR=`` (empty or blank) counts as not set at all
    append: bool = False                        # a list appended to the file's list instead of replacing it
    flag: str | None = None                     # the ``autograph run`` option setting the same key
    flag_without_value: Any = UNSET             # value of a bare ``--flag`` (UNSET: the flag needs a value)


def env_vars_of(field: Any) -> tuple[EnvVar, ...]:
    """The ``EnvVar`` declarations in a pydantic field's metadata, in declaration order."""
    return tuple(m for m in field.metadata if isinstance(m, EnvVar))


def settings_keys() -> list[tuple[tuple[str, ...], Any]]:
    """Every leaf settings key as ``(path, FieldInfo)``: ``("packages", "allow")``, ``("backend",)``, ..."""
    keys: list[tuple[tuple[str, ...], Any]] = []

    def walk(model: type[BaseModel], prefix: tuple[str, ...]) -> None:
        for name, field in model.model_fields.items():
            sub = field.annotation
            if isinstance(sub, type) and issubclass(sub, BaseModel):
                walk(sub, prefix + (name,))
            else:
                keys.append((prefix + (name,), field))

    walk(Settings, ())
    return keys


def environment_variables() -> list[tuple[tuple[str, ...], EnvVar]]:
    """Every ``(key path, EnvVar)``, in the order the environment is applied (a later one wins)."""
    return [(path, var) for path, field in settings_keys() for var in env_vars_of(field)]


def cli_flags() -> dict[str, tuple[str, EnvVar]]:
    """``autograph run`` options: ``{"--backend": ("backend", EnvVar), "--packages": ("packages.allow", ...)}``
    (a nested key by its dotted path)."""
    return {var.flag: (".".join(path), var) for path, var in environment_variables() if var.flag}


class Packages(BaseModel):
    """Which code gets compiled: allow rules, minus deny rules (deny beats allow)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow: Annotated[tuple[RuleText, ...], EnvVar("AUTOGRAPH_PACKAGES", parse=_comma_list, render=_joined, append=True,
                                                        flag="--packages")] = Field(
        default=(),
        description="Rules 'module_glob[:qualname_glob]' selecting functions to compile, e.g. 'mymodels' or 'mymodels.attn:Attention.forward'.",
    )
    deny: Annotated[tuple[RuleText, ...], EnvVar("AUTOGRAPH_DENY", parse=_comma_list, render=_joined, append=True,
                                                       flag="--deny")] = Field(
        default=(),
        description="Rules excluding modules or functions; a deny rule always beats an allow rule.",
    )

    @field_validator("allow", "deny", mode="before")
    @classmethod
    def _one_rule_is_a_list(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("allow", "deny", mode="after")
    @classmethod
    def _no_duplicates(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(value))

    @field_validator("allow", mode="after")
    @classmethod
    def _selects_something_instrumentable(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for text in value:
            check_allow_rule(Rule.parse(text))
        return value

    @field_validator("deny", mode="after")
    @classmethod
    def _denies_something_instrumentable(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for text in value:
            check_deny_rule(Rule.parse(text))
        return value


class Settings(BaseModel):
    """Every setting autograph has. Immutable: derive a changed copy with ``model_copy(update=...)``."""

    # (``autograph.compile(f, backend=callable)`` puts a callable in ``backend`` with model_copy:
    # a per-compile override, never validated, never exported.)
    model_config = ConfigDict(extra="forbid", frozen=True)

    packages: Packages = Field(default_factory=Packages, description="Allow/deny rules selecting the functions to compile.")
    backend: Annotated[str, EnvVar("AUTOGRAPH_BACKEND", flag="--backend")] = Field(
        default="auto",
        description="'auto' | 'eager' | 'triton' | 'inductor' | 'module:function' naming a user backend "
        "with the torch.compile backend signature.",
    )
    recompile_limit: Annotated[int, EnvVar("AUTOGRAPH_RECOMPILE_LIMIT", parse=_whole_number)] = Field(
        default=8, ge=1, strict=True,
        description="Cache entries per code object before autograph gives up on it and runs it eagerly.",
    )
    compile_threshold: Annotated[int, EnvVar("AUTOGRAPH_COMPILE_THRESHOLD", parse=_whole_number,
                                                                     flag="--threshold")] = Field(
        default=3, ge=1, strict=True,
        description="Functions selected by the import hook are captured on their N-th call; earlier calls run "
        "eagerly, so code that runs once (constructors, initialisers, optimizer set-up) is never compiled. "
        "autograph.compile targets are captured on their first call.",
    )
    dynamic: Annotated[Literal["auto", "static", "always"], EnvVar("AUTOGRAPH_DYNAMIC")] = Field(
        default="auto",
        description="'auto': specialise sizes, generalise a dimension once it changes; 'static': always specialise; "
        "'always': dynamic sizes from the first capture.",
    )
    fullgraph: Annotated[bool, EnvVar("AUTOGRAPH_FULLGRAPH", parse=_switch, render=_switch_text)] = Field(
        default=False, strict=True,
        description="true: a graph break is a capture error (handled by on_error) instead of a resume function.",
    )
    on_error: Annotated[Literal["fallback", "raise"], EnvVar("AUTOGRAPH_ON_ERROR")] = Field(
        default="fallback",
        description="When capture or compilation fails: 'fallback' runs eagerly and records why; 'raise' raises CaptureError.",
    )
    mode: Annotated[Literal["compile", "run-only", "off"], EnvVar("AUTOGRAPH_MODE"),
                    EnvVar("AUTOGRAPH", parse=_autograph_switch, render=None)] = Field(
        default="compile",
        description="'compile': capture and compile on a cache miss; 'run-only': reuse cached work, never compile anew; "
        "'off': call the original functions.",
    )
    report: Annotated[Union[bool, Path], EnvVar("AUTOGRAPH_REPORT", parse=_report_value, render=_report_text,
                                                flag="--report", flag_without_value=True)] = Field(
        default=False,
        description="true: print the run report at exit; a path: also write it there as JSON (one file per "
        "rank under torchrun: r.json -> r.rank0.json).",
    )
    report_style: Annotated[Literal["summary", "all", "quiet"], EnvVar("AUTOGRAPH_REPORT_STYLE",
                                                                      flag="--report-style")] = Field(
        default="summary",
        description="How the run report is printed: 'summary' (one row per function, worst first), 'all' "
        "(every table) or 'quiet' (nothing printed; the JSON file only).",
    )
    log: Annotated[tuple[str, ...], EnvVar("AUTOGRAPH_LOG", parse=_comma_list, render=_joined, empty_is_unset=False,
                                         flag="--log")] = Field(
        default=(), description="Log channels to enable: " + ", ".join(LOG_CHANNELS) + ".")
    cache_dir: Annotated[Path | None, EnvVar("AUTOGRAPH_CACHE_DIR", render=_optional_path_text)] = Field(
        default=None,
        description="Directory for on-disk caches (compiled kernels); null: $XDG_CACHE_HOME/autograph or ~/.cache/autograph.",
    )
    dump: Annotated[Path | None, EnvVar("AUTOGRAPH_DUMP", render=_optional_path_text)] = Field(
        default=None,
        description="Directory where every new cache entry's guards, transformed code, graphs and kernels are "
        "written as files; null: no dumps.",
    )
    verify: Annotated[Union[StrictBool, Literal["strict"]],
                      EnvVar("AUTOGRAPH_VERIFY", parse=_verify_value, render=_report_text,
                             flag="--verify", flag_without_value=True)] = Field(
        default=False, union_mode="left_to_right",
        description="Check compiled calls against the original function: the first verify_calls calls of each "
        "cache entry also run the original on copies of the arguments and compare; a mismatch is reported, "
        "the entry disabled and the original's outcome used. Costs one eager call plus argument copies per "
        "checked call. 'strict': the same, and a run with a mismatch exits with status 1 (for CI).",
    )
    verify_calls: Annotated[int, EnvVar("AUTOGRAPH_VERIFY_CALLS", parse=_whole_number)] = Field(
        default=3, ge=1, strict=True,
        description="How many calls of each cache entry verify mode checks.",
    )

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        value = value.strip()
        if value in BUILTIN_BACKENDS:
            return value
        if ":" in value:
            module, _, function = value.partition(":")
            if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", module) and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", function):
                return value
            raise ValueError(f"backend {value!r} is not 'module:function' (e.g. 'mypkg.backends:my_backend')")
        raise ValueError(
            f"unknown backend {value!r}{_closest(value, BUILTIN_BACKENDS)} "
            f"Expected one of {', '.join(BUILTIN_BACKENDS)} or 'module:function'"
        )

    @field_validator("report", mode="before")
    @classmethod
    def _report_bool_or_path(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, (bool, Path)):
            return value
        if isinstance(value, str) and value.strip():  # a path, even "yes" (the file's booleans are YAML's)
            return value if info.mode == "json" else Path(value)
        raise ValueError(f"report must be true, false or a path for a JSON report, got {value!r}")

    @field_validator("log", mode="before")
    @classmethod
    def _log_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("log", mode="after")
    @classmethod
    def _known_channels(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        value = tuple(LOG_ALIASES.get(channel, channel) for channel in value)
        for channel in value:
            if channel not in LOG_CHANNELS:
                raise ValueError(f"unknown log channel {channel!r}{_closest(channel, LOG_CHANNELS)} Known: {', '.join(LOG_CHANNELS)}")
        if "all" in value:
            return tuple(c for c in LOG_CHANNELS if c != "all")
        return tuple(dict.fromkeys(value))

    def cache_path(self) -> Path:
        """The directory for on-disk caches (``cache_dir`` or the platform default)."""
        if self.cache_dir is not None:
            return self.cache_dir.expanduser()
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Path(base) / "autograph"

    def logs(self, channel: str) -> bool:
        """True when ``channel`` is enabled."""
        return channel in self.log


def field_owner_name(path: tuple[str, ...]) -> str:
    """The schema ``$defs`` name of the model holding a nested key (``("packages", "allow")`` -> ``Packages``)."""
    model: type[BaseModel] = Settings
    for name in path[:-1]:
        annotation = model.model_fields[name].annotation
        assert isinstance(annotation, type) and issubclass(annotation, BaseModel), (path, annotation)
        model = annotation
    return model.__name__


def settings_schema() -> dict[str, Any]:
    """The JSON Schema of the YAML file (committed as config/settings.schema.json)."""
    schema = Settings.model_json_schema()
    for path, field in settings_keys():  # where each key can also be set: x-env, x-flag
        owner = schema if len(path) == 1 else schema["$defs"][field_owner_name(path)]
        prop = owner["properties"][path[-1]]
        for var in env_vars_of(field):
            prop.setdefault("x-env", []).append(var.name)
            if var.flag:
                prop["x-flag"] = var.flag
    schema["title"] = "autograph settings"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


# ---------------------------------------------------------------------------
# Error formatting
# ---------------------------------------------------------------------------

def _fields_at(loc: tuple) -> tuple[str, ...]:
    """The valid keys at the level of ``loc`` (for 'did you mean')."""
    model = Packages if len(loc) >= 2 and loc[0] == "packages" else Settings
    return tuple(model.model_fields)


def _describe(error: Mapping[str, Any], where: str) -> str:
    loc = tuple(error.get("loc", ()))
    dotted = ".".join(str(p) for p in loc)
    kind = error.get("type", "")
    value = error.get("input")
    if kind == "extra_forbidden":
        key = str(loc[-1])
        parent = ".".join(str(p) for p in loc[:-1])
        scope = f" in '{parent}'" if parent else ""
        valid = _fields_at(loc)
        return f"{where}unknown key {key!r}{scope}{_closest(key, valid) or '.'} Valid keys: {', '.join(valid)}"
    if kind == "value_error":
        cause = error.get("ctx", {}).get("error")
        message = str(cause) if cause is not None else error.get("msg", "")
        return f"{where}{dotted}: {message}"
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        choices = re.findall(r"'([^']*)'", expected)
        return f"{where}{dotted}: {value!r} is not one of {expected}{_closest(str(value), choices)}"
    return f"{where}{dotted}: {error.get('msg', 'invalid value')} (got {value!r})"


# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------


MAX_SETTINGS_BYTES = 1 << 20  # a settings file is a few lines; anything this big is the wrong file


def _read_text(path: Path) -> str:
    """The file's UTF-8 text, or a :class:`SettingsError` saying plainly why it is not a settings file."""
    try:
        size = path.stat().st_size
        if size > MAX_SETTINGS_BYTES:
            raise SettingsError(
                f"{path}: the settings file is {size:,} bytes, over autograph's limit of {MAX_SETTINGS_BYTES:,}; "
                "a settings file is a few lines of YAML. Check that --config/AUTOGRAPH_CONFIG names the right file"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read the settings file: {exc.strerror or exc}") from None
    if b"\0" in raw:
        raise SettingsError(f"{path}: this is a binary file, not a YAML settings file. "
                            "Check that --config/AUTOGRAPH_CONFIG names the right file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SettingsError(f"{path}:{line}:{column}: the settings file is not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                            "save it as UTF-8") from None
    if not text.strip():
        raise SettingsError(f"{path}: the settings file is empty. Write at least one setting (a file with only "
                            "a comment uses the defaults on purpose) or stop pointing --config/AUTOGRAPH_CONFIG at it")
    return text


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[tuple, tuple[int, int]]]:
    """Parse ``path``; return the data and a map ``loc -> (line, col)`` (1-based) for error messages."""
    import yaml

    text = _read_text(path)
    try:
        _refuse_aliases(path, yaml.parse(text, Loader=yaml.SafeLoader))
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = exc.problem or exc.context or "malformed YAML"
        raise SettingsError(f"{where}: malformed YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise SettingsError(f"{path}: malformed YAML: {exc}") from None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise SettingsError(f"{path}:1:1: the settings file must be a mapping of keys (backend: ..., packages: ...), got a {type(data).__name__}")
    marks: dict[tuple, tuple[int, int]] = {}

    def walk(node: Any, loc: tuple) -> None:
        marks.setdefault(loc, (node.start_mark.line + 1, node.start_mark.column + 1))
        if isinstance(node, yaml.MappingNode):
            seen: set = set()
            for key_node, value_node in node.value:
                key = key_node.value
                if key in seen:
                    raise SettingsError(
                        f"{path}:{key_node.start_mark.line + 1}:{key_node.start_mark.column + 1}: duplicate key {key!r}"
                    )
                seen.add(key)
                marks[loc + (key, "<key>")] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                walk(value_node, loc + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, loc + (index,))

    walk(root, ())
    return data, marks


def _refuse_aliases(path: Path, events: Any) -> None:
    """A settings file has no use for YAML aliases, and an alias can nest itself (``a: &a [*a]``:
    unbounded recursion) or repeat data exponentially (a few hundred bytes, gigabytes in memory):
    refuse the first one, before anything is built from the file."""
    import yaml

    for event in events:
        if isinstance(event, yaml.AliasEvent):
            mark = event.start_mark
            raise SettingsError(f"{path}:{mark.line + 1}:{mark.column + 1}: YAML alias *{event.anchor}: aliases are "
                                "not allowed in a settings file (they can repeat or nest data without bound); "
                                "write the value out")


def _yaml_location(path: Path, marks: dict, error: dict) -> str:
    loc = tuple(error.get("loc", ()))
    if error.get("type") == "extra_forbidden" and loc:
        found = marks.get(loc[:-1] + (loc[-1], "<key>"))
        if found:
            return f"{path}:{found[0]}:{found[1]}: "
    while loc:
        if loc in marks:
            line, col = marks[loc]
            return f"{path}:{line}:{col}: "
        loc = loc[:-1]
    return f"{path}: "


def _validate(data: dict[str, Any], locate) -> Settings:
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        lines = [_describe(err, locate(err)) for err in exc.errors()]
        raise SettingsError("\n".join(lines)) from None


def _config_path(config: str | Path | None, env: Mapping[str, str]) -> Path | None:
    if config is not None:
        return Path(config)
    if CONFIG_ENV in env:
        value = env[CONFIG_ENV].strip()
        return Path(value) if value else None  # set but empty: no file at all
    default = Path(CONFIG_FILE_NAME)
    if default.is_file():
        return default
    project = Path(PYPROJECT_FILE_NAME)
    return project if _pyproject_table(project) is not None else None


PYPROJECT_FILE_NAME = "pyproject.toml"


def _is_toml(path: Path) -> bool:
    return path.suffix == ".toml"


def _pyproject_table(path: Path) -> dict[str, Any] | None:
    """The ``[tool.autograph]`` table of a ``pyproject.toml`` (as black, ruff, mypy and pytest
    read theirs), or None when the file or the table is absent."""
    if not path.is_file():
        return None
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    table = data.get("tool", {}).get("autograph")
    return table if isinstance(table, dict) else None


def _read_toml(path: Path) -> dict[str, Any]:
    """``[tool.autograph]`` of ``path``; a file that is not TOML or lacks the table is an error."""
    import tomllib

    try:
        data = tomllib.loads(_read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("autograph")
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: no [tool.autograph] table; autograph's settings go there "
                            "(or in autograph.yaml)")
    return table


CONFIG_ENV = "AUTOGRAPH_CONFIG"  # the settings file, not a key: set but empty means no file at all


def env_variable_names() -> list[str]:
    """Every ``AUTOGRAPH_*`` variable autograph reads (the settings file's and every key's)."""
    return [CONFIG_ENV] + [var.name for _, var in environment_variables()]


def _get(settings: BaseModel, path: tuple[str, ...]) -> Any:
    value: Any = settings
    for name in path:
        value = getattr(value, name)
    return value


def _put(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for name in path[:-1]:
        data = data.setdefault(name, {})
    data[path[-1]] = value


def _env_overrides(base: Settings, env: Mapping[str, str]) -> tuple[dict[str, Any], dict[tuple[str, ...], str]]:
    """Overrides from the environment, plus ``key path -> variable`` to name the culprit in errors."""
    data: dict[str, Any] = {}
    origin: dict[tuple[str, ...], str] = {}
    for path, var in environment_variables():
        raw = env.get(var.name)
        if raw is None or (var.empty_is_unset and not raw.strip()):
            continue
        try:
            value = var.parse(raw)
        except ValueError as exc:
            raise SettingsError(f"{var.name}={raw!r}: {exc}") from None
        if value is UNSET:
            continue
        if var.append:
            value = list(_get(base, path)) + list(value)
        _put(data, path, value)
        origin[path] = var.name
    if "packages" in data:
        data["packages"] = {**base.packages.model_dump(), **data["packages"]}
    return data, origin


def _origin_of(loc: tuple, origin: dict[tuple[str, ...], str]) -> str:
    """The variable that set the key at ``loc`` (or the longest key path above it)."""
    for n in range(len(loc), 0, -1):
        if tuple(loc[:n]) in origin:
            return origin[tuple(loc[:n])]
    inner = [name for path, name in origin.items() if path[:len(loc)] == tuple(loc)]
    return "/".join(inner) or f"AUTOGRAPH_{'_'.join(map(str, loc)).upper()}"


def _overlay(base: Settings, overrides: dict[str, Any], name_of: Callable[[tuple], str]) -> Settings:
    if not overrides:
        return base
    data = base.model_dump()
    data.update(overrides)

    def locate(error: dict) -> str:
        loc = tuple(str(part) for part in error.get("loc", ()))
        return f"{name_of(loc)}: " if loc else ""

    return _validate(data, locate)


def load_settings(
    config: str | Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cli: Mapping[str, Any] | None = None,
    check_backend: bool = True,
) -> Settings:
    """Build the effective settings: defaults -> YAML -> environment -> ``cli`` overrides.

    ``config`` is the YAML file (else ``AUTOGRAPH_CONFIG``, else ``./autograph.yaml`` if
    present); ``env`` defaults to ``os.environ``; ``cli`` maps field names to values
    (``{"backend": "eager"}``). With ``check_backend`` a ``module:function`` backend is
    imported now, so a typo fails before anything runs. Raises :class:`SettingsError`.
    """
    env = os.environ if env is None else env
    settings = Settings()
    path = _config_path(config, env)
    if path is not None:
        if not path.is_file():
            source = "--config" if config is not None else "AUTOGRAPH_CONFIG"
            raise SettingsError(f"{path}: settings file not found (given by {source}); check the path or unset it")
        if _is_toml(path):
            settings = _validate(_read_toml(path), lambda err: f"{path} [tool.autograph]: ")
        else:
            data, marks = _read_yaml(path)
            settings = _validate(data, lambda err: _yaml_location(path, marks, err))

    overrides, origin = _env_overrides(settings, env)
    settings = _overlay(settings, overrides, lambda loc: _origin_of(loc, origin))

    if cli:
        settings = _cli_overlay(settings, cli)

    if check_backend:
        check_backend_importable(settings.backend)
    return settings


def _cli_overlay(settings: Settings, cli: Mapping[str, Any]) -> Settings:
    """Command-line values over ``settings``: a key by name or dotted path (``packages.allow``); a flag's
    text is read as its variable's is (``--threshold 5``, ``--packages a,b`` appended to the file's rules)."""
    known = {".".join(path): path for path, _ in settings_keys()} | {key: (key,) for key in Settings.model_fields}
    by_key = {key: (flag, var) for flag, (key, var) in cli_flags().items()}
    unknown = [key for key in cli if key not in known]
    if unknown:
        raise SettingsError(f"unknown setting {unknown[0]!r}{_closest(unknown[0], tuple(known)) or '.'}")
    data: dict[str, Any] = {}
    for key, value in cli.items():
        if value is None:
            continue
        flag, var = by_key.get(key, (f"--{key.replace('_', '-')}", None))
        if var is not None and isinstance(value, str):
            try:
                value = var.parse(value)
            except ValueError as exc:
                raise SettingsError(f"{flag}={value!r}: {exc}") from None
            if value is UNSET:
                continue
        path = known[key]
        if var is not None and var.append:
            value = list(_get(settings, path)) + list(value)
        _put(data, path, value)
    if "packages" in data and isinstance(data["packages"], dict):
        data["packages"] = {**settings.packages.model_dump(), **data["packages"]}
    flags = {path: flag for flag, (path, _) in cli_flags().items()}

    def name_of(loc: tuple) -> str:
        for n in range(len(loc), 0, -1):
            if ".".join(loc[:n]) in flags:
                return flags[".".join(loc[:n])]
        return f"--{str(loc[0]).replace('_', '-')}"

    return _overlay(settings, data, name_of)


def check_backend_importable(backend: str) -> None:
    """Import a ``module:function`` backend now; raise :class:`SettingsError` if it is not there."""
    if ":" not in backend:
        return
    module_name, _, attr_path = backend.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise SettingsError(
            f"backend {backend!r}: cannot import module {module_name!r} ({exc}). "
            "Check the name and that its package is installed or on PYTHONPATH"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the module itself failed while importing
        import traceback

        frames = traceback.extract_tb(exc.__traceback__)
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        raise SettingsError(
            f"backend {backend!r}: importing module {module_name!r} raised {type(exc).__name__}: {exc}{where}. "
            "Fix that module or choose another backend"
        ) from None
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise SettingsError(f"backend {backend!r}: module {module_name!r} has no attribute {attr_path!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise SettingsError(f"backend {backend!r}: {attr_path!r} is not callable; a backend is backend(gm, example_inputs)")


# Variables named AUTOGRAPH_* that are not settings: the tools of this repository read them.
OTHER_VARIABLES = {"AUTOGRAPH_PYTHON": "scripts/setup: the Python that creates .venv"}
SIBLING_CONFIG_NAMES = ("autograph.yml", ".autograph.yaml", ".autograph.yml", "autograph.json", "autograph.toml")


def unknown_variables(env: Mapping[str, str] | None = None) -> list[str]:
    """A warning for each ``AUTOGRAPH_*`` variable that autograph does not read (a typo is
    otherwise silently ignored), with the closest known name."""
    env = os.environ if env is None else env
    known = set(env_variable_names()) | set(OTHER_VARIABLES) | {"AUTOGRAPH"}
    out = []
    for name in sorted(env):
        if name.startswith("AUTOGRAPH_") and name not in known:
            hint = _closest(name, sorted(known - {"AUTOGRAPH"})) or "."
            out.append(f"unknown environment variable {name} is ignored{hint} "
                       "(`python -m autograph config check` lists the settings and their variables)")
    return out


def unread_config_files(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> list[str]:
    """A warning for a settings file next to the program that autograph will not read
    (``autograph.yml`` when it looks for ``autograph.yaml``)."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    if env.get(CONFIG_ENV, "").strip() or CONFIG_ENV in env:
        return []
    out = []
    for name in SIBLING_CONFIG_NAMES:
        if (cwd / name).is_file():
            read = CONFIG_FILE_NAME if (cwd / CONFIG_FILE_NAME).is_file() else None
            out.append(f"{name} is not read (autograph reads {CONFIG_FILE_NAME}, [tool.autograph] in "
                       f"{PYPROJECT_FILE_NAME}, or the file --config/AUTOGRAPH_CONFIG names)"
                       + (f"; {read} is used instead" if read else f"; rename it to {CONFIG_FILE_NAME}"))
    return out


def nothing_selected(settings: Settings) -> list[str]:
    """A warning when no rule selects anything: the program would run with nothing compiled."""
    if settings.mode == "off" or settings.packages.allow:
        return []
    return ["no package is selected (packages.allow is empty): the import hook compiles nothing, only functions "
            "given to autograph.compile are; name your packages with --packages mymodels, "
            "AUTOGRAPH_PACKAGES=mymodels or packages.allow in autograph.yaml"]


def unusable_dump_dir(settings: Settings) -> list[str]:
    """A warning when ``dump`` names a directory that cannot be created or written."""
    if settings.dump is None:
        return []
    path = settings.dump.expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return [f"dump directory {str(path)!r} cannot be created ({exc.strerror or exc}): no dumps will be written"]
    if not os.access(path, os.W_OK | os.X_OK):
        return [f"dump directory {str(path)!r} is not writable: no dumps will be written"]
    return []


def start_warnings(settings: Settings, env: Mapping[str, str] | None = None, *, config_given: bool = False) -> list[str]:
    """Every settings problem that is not an error but would make autograph silently do nothing."""
    files = [] if config_given else unread_config_files(env)
    return unknown_variables(env) + files + nothing_selected(settings) + unusable_dump_dir(settings)


def export_env(settings: Settings) -> dict[str, str]:
    """Environment variables that make a child process load exactly ``settings``.

    ``AUTOGRAPH_CONFIG`` is exported empty: the variables are complete, no file is read.
    """
    env = {CONFIG_ENV: ""}
    for path, var in environment_variables():
        if var.render is not None:
            env[var.name] = var.render(_get(settings, path))
    return env


def startup_requested(env: Mapping[str, str] | None = None) -> bool:
    """True when the environment asks for the import hook at interpreter start."""
    env = os.environ if env is None else env
    if env.get("AUTOGRAPH", "").strip().lower() in _FALSE:
        return False
    return bool(env.get("AUTOGRAPH_PACKAGES", "").strip() or env.get(CONFIG_ENV, "").strip())


# ---------------------------------------------------------------------------
# Process-wide settings
# ---------------------------------------------------------------------------

_current: Settings | None = None
_current_lock = threading.Lock()


def current_settings() -> Settings:
    """The settings of this process: set by install()/the CLI, else loaded once from the environment."""
    global _current
    settings = _current
    if settings is None:
        with _current_lock:
            if _current is None:
                _current = load_settings(check_backend=False)
            settings = _current
    return settings


def loaded_settings() -> Settings | None:
    """The process settings if already set or loaded, else ``None`` (loads nothing)."""
    return _current


def set_current_settings(settings: Settings | None) -> None:
    """Replace the process-wide settings (``None``: load from the environment again on next use)."""
    global _current
    if settings is not None and not isinstance(settings, Settings):
        raise TypeError(f"set_current_settings expects a Settings, got {type(settings).__name__}")
    with _current_lock:
        _current = settings
    for callback in list(_change_listeners):
        callback()


_change_listeners: list[Callable[[], None]] = []


def on_settings_change(callback: Callable[[], None]) -> None:
    """Call ``callback`` after every ``set_current_settings`` (the runtime re-reads its switches)."""
    if callback not in _change_listeners:
        _change_listeners.append(callback)
