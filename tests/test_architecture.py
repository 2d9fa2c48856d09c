"""docs/ARCHITECTURE.md's "may import" table, asserted over the real imports.

Every ``import``/``from ... import`` in a room's files (at module level or inside a function),
and every ``importlib.import_module("...")``/``__import__("...")`` with a literal name, must name
a room the table lets it import. ``settings`` and ``errors`` are leaves everyone may import; the
package root ``autograph`` is the public API. A crossing is fixed in the code, or the table is
changed (with its reason) in the same commit.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "autograph"
DOC = ROOT / "docs" / "ARCHITECTURE.md"
LEAVES = {"settings", "errors"}
PUBLIC = "autograph"  # the package root: `import autograph`, `from autograph import compile`


def allowed_imports() -> dict[str, set[str]]:
    """Room -> rooms it may import, from the table's "may import" column."""
    rooms: dict[str, str] = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith(("`autograph/", "`native/")):
            continue  # (other three-column tables: only the rooms' table names folders of the project)
        for name in re.findall(r"`([^`]+)`", cells[0]):
            rooms[_room_of_path(name)] = cells[2]
    everything = set(rooms) | {PUBLIC}
    allowed: dict[str, set[str]] = {}
    for room, text in rooms.items():
        if text.startswith("everything"):
            allowed[room] = set(everything)
        elif text.startswith("the public API"):
            allowed[room] = {PUBLIC}
        else:
            # "capture (lazily, on a miss), guards, settings" -> {capture, guards, settings}
            # a named module (`hook.startup.print_report_at_exit`) allows its room
            words = re.sub(r"\([^)]*\)", "", text).replace("—", "").replace("`", "").split(",")
            allowed[room] = {w.strip().split()[0].split(".")[0] for w in words if w.strip()}
            assert allowed[room] <= everything, (room, allowed[room] - everything)
    return allowed


def _room_of_path(name: str) -> str:
    # `autograph/hook/` -> hook, `autograph/settings.py` -> settings, `__main__.py` -> cli, `native/` -> native
    name = name.strip("/").removeprefix("autograph/").removesuffix(".py")
    return {"__main__": "cli"}.get(name, name)


def room_of_module(module: str) -> str | None:
    """The room of an ``autograph...`` module name (None outside autograph)."""
    parts = module.split(".")
    if parts[0] != "autograph":
        return None
    if len(parts) == 1:
        return PUBLIC
    head = parts[1]
    if head == "_native":
        return "native"
    if head == "__main__":
        return "cli"
    return head


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, lazy ones included."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(package, node.module, node.level)
            # `from autograph import explain` / `from autograph.capture.engine import api`: submodules
            subs = [f"{base}.{alias.name}" for alias in node.names if _is_module(f"{base}.{alias.name}")]
            out += [(node.lineno, name) for name in subs]
            if len(subs) < len(node.names):  # names defined by the module itself
                out.append((node.lineno, base))
        elif isinstance(node, ast.Call) and _is_import_call(node.func) and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.append((node.lineno, arg.value))
    return out


def _resolve(package: str, module: str | None, level: int) -> str:
    if not level:
        return module or ""
    base = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join(base + ([module] if module else []))


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return (path.with_suffix(".py").exists() or (path / "__init__.py").exists()
            or any(path.parent.glob(path.name + ".*.so")) or name == "autograph._native")


def _is_import_call(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id in ("import_module", "__import__"))


def crossings() -> list[str]:
    allowed = allowed_imports()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        room = room_of_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        if room is None or room == PUBLIC or path.name == "__init__.py" and path.parent == PACKAGE:
            continue
        for line, module in imported_modules(path):
            target = room_of_module(module)
            if target is None or target == room or target in LEAVES:
                continue
            if target not in allowed.get(room, set()):
                found.append(f"{path.relative_to(ROOT)}:{line}: {room} imports {module} ({target})")
    return found


def test_table_lists_every_room():
    rooms = {room_of_module("autograph." + p.stem if p.is_file() else "autograph." + p.name)
             for p in PACKAGE.iterdir() if (p.suffix == ".py" or (p / "__init__.py").exists())
             and p.name != "__init__.py"}
    assert rooms <= set(allowed_imports()) | {PUBLIC}, rooms - set(allowed_imports())


def test_rooms_import_only_what_the_table_allows():
    found = crossings()
    assert not found, "imports that cross docs/ARCHITECTURE.md's table:\n" + "\n".join(found)


def test_the_scan_sees_lazy_and_importlib_imports(tmp_path):
    source = ("import os\n"
              "def f():\n    from autograph.capture.engine import api\n"
              "def g():\n    import importlib\n    importlib.import_module('autograph.explain.report')\n")
    path = ROOT / "autograph" / "_scan_probe_.py"
    path.write_text(source)
    try:
        names = [m for _, m in imported_modules(path)]
    finally:
        path.unlink()
    assert "autograph.capture.engine.api" in names and "autograph.explain.report" in names


# ---------------------------------------------------------------- inside capture/
# Function-level imports count as much as module-level ones here: a lazy import is a dependency
# all the same (it only hides an import-time cycle).

CAPTURE = PACKAGE / "capture"
# capture's three layers, lowest first: a module may import its own layer and those below it.
# core: the Value protocol, the registry families plug in through, breaks, guards, state;
# families: the modelled-value families (and the builder that picks one);
# engine: interpreter, graph, codegen, api -- it installs the families (families/install.py).
LAYERS = ("core", "families", "engine")
# the leaves of core: they import only each other
FOUNDATION = {"autograph.capture.core.breaks", "autograph.capture.core.catching", "autograph.capture.core.state",
              "autograph.capture.core.registry"}

def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _type_checking_lines(path: Path) -> set[int]:
    """Lines of ``if TYPE_CHECKING:`` blocks (imports for annotations only: no dependency at run time)."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= set(range(node.lineno, node.end_lineno + 1))
    return lines


def _capture_imports() -> list[tuple[str, int, str]]:
    """(importer, line, imported capture module) for every import inside capture/, lazy ones included."""
    out = []
    for path in sorted(CAPTURE.rglob("*.py")):
        typing_only = _type_checking_lines(path)
        for line, module in imported_modules(path):
            if module.startswith("autograph.capture.") and _is_module(module) and line not in typing_only:
                out.append((_module_of(path), line, module))
    return out


def test_capture_foundation_imports_only_the_foundation():
    found = [f"{m}:{line} imports {t}" for m, line, t in _capture_imports() if m in FOUNDATION and t not in FOUNDATION]
    assert not found, "capture's foundation modules import a module above them:\n" + "\n".join(found)


def layer_of(module: str) -> str | None:
    """``autograph.capture.<layer>....`` -> layer (None for ``autograph.capture`` itself)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["autograph", "capture"] else None


def upward_imports(imports: list[tuple[str, int, str]]) -> list[str]:
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    return [f"{m}:{line} ({layer_of(m)}) imports {t} ({layer_of(t)})" for m, line, t in imports
            if layer_of(m) in rank and layer_of(t) in rank and rank[layer_of(t)] > rank[layer_of(m)]]


def test_every_capture_module_is_in_a_layer():
    stray = [p.relative_to(ROOT).as_posix() for p in CAPTURE.rglob("*.py")
             if p != CAPTURE / "__init__.py" and layer_of(_module_of(p)) not in LAYERS]
    assert not stray, f"capture modules outside {LAYERS}: {stray}"


def test_capture_layers_import_only_downwards():
    """core <- families <- engine, module-level and function-level imports alike."""
    found = upward_imports(_capture_imports())
    assert not found, "capture imports pointing up a layer:\n" + "\n".join(found)


def test_the_layer_scan_sees_relative_and_function_level_imports():
    source = ("from ..engine import interpreter\n"
              "def f():\n    from autograph.capture.engine.codegen import Codegen\n"
              "def g():\n    from ..families import sets\n")
    path = CAPTURE / "core" / "_scan_probe_.py"
    path.write_text(source)
    try:
        imports = [("autograph.capture.core._scan_probe_", line, m) for line, m in imported_modules(path)]
    finally:
        path.unlink()
    assert len(upward_imports(imports)) == 3, imports
