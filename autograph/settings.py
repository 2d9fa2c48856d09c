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
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Mapping, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

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


class Packages(BaseModel):
    """Which code gets compiled: allow rules, minus deny rules (deny beats allow)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow: tuple[RuleText, ...] = Field(
        default=(),
        description="Rules 'module_glob[:qualname_glob]' selecting functions to compile, e.g. 'mymodels' or 'mymodels.attn:Attention.forward'.",
    )
    deny: tuple[RuleText, ...] = Field(
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


class Settings(BaseModel):
    """Every setting autograph has. Immutable: derive a changed copy with ``model_copy(update=...)``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    packages: Packages = Field(default_factory=Packages, description="Allow/deny rules selecting the functions to compile.")
    backend: str = Field(
        default="auto",
        description="'auto' | 'eager' | 'triton' | 'inductor' | 'module:function' naming a user backend "
        "with the torch.compile backend signature.",
    )
    recompile_limit: int = Field(
        default=8, ge=1, strict=True,
        description="Cache entries per code object before autograph gives up on it and runs it eagerly.",
    )
    dynamic: Literal["auto", "static", "always"] = Field(
        default="auto",
        description="'auto': specialise sizes, generalise a dimension once it changes; 'static': always specialise; "
        "'always': dynamic sizes from the first capture.",
    )
    on_error: Literal["fallback", "raise"] = Field(
        default="fallback",
        description="When capture or compilation fails: 'fallback' runs eagerly and records why; 'raise' raises CaptureError.",
    )
    mode: Literal["compile", "run-only", "off"] = Field(
        default="compile",
        description="'compile': capture and compile on a cache miss; 'run-only': reuse cached work, never compile anew; "
        "'off': call the original functions.",
    )
    report: Union[bool, Path] = Field(
        default=False,
        description="true: print the run report at exit; a path: also write it there as JSON.",
    )
    log: tuple[str, ...] = Field(default=(), description="Log channels to enable: " + ", ".join(LOG_CHANNELS) + ".")
    cache_dir: Path | None = Field(
        default=None,
        description="Directory for on-disk caches (compiled kernels); null: $XDG_CACHE_HOME/autograph or ~/.cache/autograph.",
    )
    dump: Path | None = Field(
        default=None,
        description="Directory where every new cache entry's guards, transformed code, graphs and kernels are "
        "written as files; null: no dumps.",
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
    def _report_bool_or_path(cls, value: Any) -> Any:
        if isinstance(value, (bool, Path)):
            return value
        if isinstance(value, str) and value.strip():
            return Path(value)
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


def settings_schema() -> dict[str, Any]:
    """The JSON Schema of the YAML file (committed as config/settings.schema.json)."""
    schema = Settings.model_json_schema()
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


def _describe(error: dict, where: str) -> str:
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
    if "AUTOGRAPH_CONFIG" in env:
        value = env["AUTOGRAPH_CONFIG"].strip()
        return Path(value) if value else None  # set but empty: no file at all
    default = Path(CONFIG_FILE_NAME)
    return default if default.is_file() else None


# Variables read from the environment. Values are strings; lists are comma-separated.
ENV_VARS = {
    "AUTOGRAPH": "0 turns autograph off (mode: off); 1 or unset leaves it on",
    "AUTOGRAPH_CONFIG": "the YAML settings file (set but empty: no file, not even ./autograph.yaml)",
    "AUTOGRAPH_PACKAGES": "comma-separated rules appended to packages.allow",
    "AUTOGRAPH_DENY": "comma-separated rules appended to packages.deny",
    "AUTOGRAPH_BACKEND": "backend",
    "AUTOGRAPH_RECOMPILE_LIMIT": "recompile_limit (an integer)",
    "AUTOGRAPH_DYNAMIC": "dynamic",
    "AUTOGRAPH_ON_ERROR": "on_error",
    "AUTOGRAPH_MODE": "mode",
    "AUTOGRAPH_REPORT": "report: 1/true, 0/false, or a path",
    "AUTOGRAPH_LOG": "comma-separated log channels (replaces log)",
    "AUTOGRAPH_CACHE_DIR": "cache_dir (empty: the default)",
    "AUTOGRAPH_DUMP": "dump (empty: no dumps)",
}
_SCALAR_ENV = {
    "AUTOGRAPH_BACKEND": "backend",
    "AUTOGRAPH_DYNAMIC": "dynamic",
    "AUTOGRAPH_ON_ERROR": "on_error",
    "AUTOGRAPH_MODE": "mode",
    "AUTOGRAPH_LOG": "log",
}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _split_rules(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _env_overrides(base: Settings, env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Overrides from the environment, plus ``field -> variable`` to name the culprit in errors."""
    data: dict[str, Any] = {}
    origin: dict[str, str] = {}
    allow, deny = list(base.packages.allow), list(base.packages.deny)
    if env.get("AUTOGRAPH_PACKAGES", "").strip():
        allow += _split_rules(env["AUTOGRAPH_PACKAGES"])
        origin["packages"] = "AUTOGRAPH_PACKAGES"
    if env.get("AUTOGRAPH_DENY", "").strip():
        deny += _split_rules(env["AUTOGRAPH_DENY"])
        origin["packages"] = "AUTOGRAPH_DENY" if "packages" not in origin else "AUTOGRAPH_PACKAGES/AUTOGRAPH_DENY"
    if "packages" in origin:
        data["packages"] = {"allow": allow, "deny": deny}
    for var, field in _SCALAR_ENV.items():
        if var in env and (env[var].strip() or field == "log"):  # VAR= (empty) means unset; empty log: none
            data[field] = env[var]
            origin[field] = var
    if "AUTOGRAPH_RECOMPILE_LIMIT" in env:
        raw = env["AUTOGRAPH_RECOMPILE_LIMIT"].strip()
        try:
            data["recompile_limit"] = int(raw)
        except ValueError:
            raise SettingsError(f"AUTOGRAPH_RECOMPILE_LIMIT={raw!r}: expected a whole number such as 8") from None
        origin["recompile_limit"] = "AUTOGRAPH_RECOMPILE_LIMIT"
    if "AUTOGRAPH_REPORT" in env:
        raw = env["AUTOGRAPH_REPORT"].strip()
        data["report"] = True if raw.lower() in _TRUE else False if raw.lower() in _FALSE or not raw else raw
        origin["report"] = "AUTOGRAPH_REPORT"
    if "AUTOGRAPH_CACHE_DIR" in env:
        raw = env["AUTOGRAPH_CACHE_DIR"].strip()
        data["cache_dir"] = raw or None
        origin["cache_dir"] = "AUTOGRAPH_CACHE_DIR"
    if "AUTOGRAPH_DUMP" in env:
        data["dump"] = env["AUTOGRAPH_DUMP"].strip() or None
        origin["dump"] = "AUTOGRAPH_DUMP"
    if "AUTOGRAPH" in env:
        raw = env["AUTOGRAPH"].strip().lower()
        if raw in _FALSE:
            data["mode"] = "off"
            origin["mode"] = "AUTOGRAPH"
        elif raw not in _TRUE and raw:
            raise SettingsError(f"AUTOGRAPH={env['AUTOGRAPH']!r}: expected 0 (autograph off) or 1 (on)")
    return data, origin


def _overlay(base: Settings, overrides: dict[str, Any], name_of) -> Settings:
    if not overrides:
        return base
    data = base.model_dump()
    data.update(overrides)

    def locate(error: dict) -> str:
        loc = tuple(error.get("loc", ()))
        return f"{name_of(str(loc[0]) if loc else '')}: " if loc else ""

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
        data, marks = _read_yaml(path)
        settings = _validate(data, lambda err: _yaml_location(path, marks, err))

    overrides, origin = _env_overrides(settings, env)
    settings = _overlay(settings, overrides, lambda field: f"{origin.get(field, 'AUTOGRAPH_' + field.upper())}")

    if cli:
        unknown = [key for key in cli if key not in Settings.model_fields]
        if unknown:
            raise SettingsError(f"unknown setting {unknown[0]!r}{_closest(unknown[0], tuple(Settings.model_fields)) or '.'}")
        cli_data = {key: value for key, value in cli.items() if value is not None}
        settings = _overlay(settings, cli_data, lambda field: f"--{field.replace('_', '-')}")

    if check_backend:
        check_backend_importable(settings.backend)
    return settings


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


def export_env(settings: Settings) -> dict[str, str]:
    """Environment variables that make a child process load exactly ``settings``.

    ``AUTOGRAPH_CONFIG`` is exported empty: the variables are complete, no file is read.
    """
    report = settings.report
    return {
        "AUTOGRAPH_CONFIG": "",
        "AUTOGRAPH_PACKAGES": ",".join(settings.packages.allow),
        "AUTOGRAPH_DENY": ",".join(settings.packages.deny),
        "AUTOGRAPH_BACKEND": settings.backend,
        "AUTOGRAPH_RECOMPILE_LIMIT": str(settings.recompile_limit),
        "AUTOGRAPH_DYNAMIC": settings.dynamic,
        "AUTOGRAPH_ON_ERROR": settings.on_error,
        "AUTOGRAPH_MODE": settings.mode,
        "AUTOGRAPH_REPORT": ("1" if report else "0") if isinstance(report, bool) else str(report),
        "AUTOGRAPH_LOG": ",".join(settings.log),
        "AUTOGRAPH_CACHE_DIR": "" if settings.cache_dir is None else str(settings.cache_dir),
        "AUTOGRAPH_DUMP": "" if settings.dump is None else str(settings.dump),
    }


def startup_requested(env: Mapping[str, str] | None = None) -> bool:
    """True when the environment asks for the import hook at interpreter start."""
    env = os.environ if env is None else env
    if env.get("AUTOGRAPH", "").strip().lower() in _FALSE:
        return False
    return bool(env.get("AUTOGRAPH_PACKAGES", "").strip() or env.get("AUTOGRAPH_CONFIG", "").strip())


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
