"""No capture module imports, at import time, a module that imports it back.

A cycle among module-level imports makes what is defined depend on which module is imported
first (a family half-initialised when the interpreter installs it). Function-level imports and
``if TYPE_CHECKING:`` ones are not import-time edges.
"""
import ast
import pathlib

CAPTURE = pathlib.Path(__file__).resolve().parents[3] / "autograph" / "capture"


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(CAPTURE.parents[1]).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_time_edges(tree: ast.Module, modules: set[str]) -> set[str]:
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                for alias in child.names:
                    full = f"{child.module}.{alias.name}"
                    out.add(full if full in modules else child.module)
            elif isinstance(child, ast.Import):
                out.update(alias.name for alias in child.names)
            visit(child)
    visit(tree)
    return out & modules


def _cycle_from(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A path of import-time edges from ``start`` back to itself, if any."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in graph[node]:
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
    return None


def test_capture_modules_form_no_import_time_cycle():
    trees = {_module_name(p): ast.parse(p.read_text(), str(p)) for p in CAPTURE.rglob("*.py")}
    graph = {name: _import_time_edges(tree, set(trees)) - {name} for name, tree in trees.items()}
    cycles = [c for c in (_cycle_from(graph, name) for name in sorted(graph)) if c]
    assert not cycles, " -> ".join(cycles[0])
