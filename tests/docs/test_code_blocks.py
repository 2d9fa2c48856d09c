"""Every code block of README.md and docs/ runs (Sybil parses the Markdown).

* ``python``: executed, one namespace per page; what it prints is compared with a ``text``
  block that follows it directly.
* ``console`` (and ``text`` blocks starting with ``$ ``): each ``$ command`` runs in the
  repository with this Python; its output (stdout and stderr) is compared with the lines
  under it after normalising times, addresses and the home directory.
* ``yaml``: loaded as a settings file; ``json``: parsed; ``bash``: syntax-checked by ``bash -n``.
* Anything else that cannot run here (a GPU, torchrun, a user's own files) is preceded by
  ``<!-- skip: next "reason" -->``: the reason is part of the page.
"""
from __future__ import annotations

import contextlib
import difflib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import unittest
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.markdown import CodeBlockParser, SkipParser

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
# pages owned by other rooms, generated or measured elsewhere (their blocks are listings)
NOT_CHECKED = {"docs/ARCHITECTURE.md", "docs/benchmarks.md", "docs/coverage.md"}
PENDING = "__pending_output__"


def normalise(text: str, *roots: Path) -> list[str]:
    """Times, addresses, object ids and per-process counters out; the checkout's path as ``<repo>``."""
    for root in (*roots, REPO):
        text = text.replace(str(root), "<repo>")
    text = re.sub(r"\b\d+\.\d+ ?s\b", "<t> s", text)
    text = re.sub(r"0x[0-9a-f]+", "0x<addr>", text)
    text = re.sub(r"(___check_obj_id\([^,]+, )\d+\)", r"\1<id>)", text)
    text = re.sub(r"__compiled_fn_\d+", "__compiled_fn_<n>", text)
    text = re.sub(r"(def ___guards_\w+?)_\d+\(", r"\1_<n>(", text)
    text = re.sub(r"(__resume_at_\d+)_\d+", r"\1_<n>", text)
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def _command(line: str) -> tuple[dict[str, str], list[str]]:
    """``VAR=value ... command args`` as (environment additions, argv) with this Python."""
    words = shlex.split(line)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    if words[:1] == ["scripts/demo"]:  # what scripts/demo runs once .venv is set up
        words = ["python", "-m", "autograph", "run", "--config", "config/autograph.yaml", "examples/train.py",
                 *words[1:]]
    if words[:1] == ["autograph"]:
        words = ["python", "-m", "autograph", *words[1:]]
    if words[:1] == ["python"]:
        words[0] = sys.executable
    return env, words


def _run_console(source: str, home: Path) -> None:
    """Run each ``$ command`` in a scratch directory that sees the repository's config/ and examples/;
    ``$ cat FILE`` followed by text writes FILE there first."""
    work = home / "work"
    work.mkdir(exist_ok=True)
    for name in ("config", "examples"):
        if not (work / name).exists():
            (work / name).symlink_to(REPO / name)
    base = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH") and k != "XDG_CACHE_HOME"}
    base.update(PYTHONPATH=str(REPO), HOME=str(home))
    for chunk in re.split(r"(?m)^\$ ", source)[1:]:
        line, _, expected = chunk.partition("\n")
        if line.startswith("cat "):
            (work / line[4:].strip()).write_text(expected)
            continue
        extra, argv = _command(line)
        result = subprocess.run(argv, cwd=work, env={**base, **extra}, capture_output=True, text=True, timeout=600)
        got = normalise(result.stdout + result.stderr, work)
        want = normalise(expected)
        assert got == want, f"$ {line}\n" + "\n".join(difflib.unified_diff(want, got, lineterm=""))


def evaluate_python(example) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example.parsed, str(example.path), "exec"), example.namespace)
    example.namespace[PENDING] = (example.end, out.getvalue())


def evaluate_text(example) -> None:
    source = example.parsed
    pending = example.namespace.pop(PENDING, None)
    if source.startswith("$ "):
        _run_console(source, example.namespace["__home__"])
    elif pending is not None and not example.document.text[pending[0]:example.start].strip():
        got, want = normalise(pending[1]), normalise(source)
        assert got == want, "printed, not as the page says:\n" + "\n".join(difflib.unified_diff(want, got, lineterm=""))


def evaluate_console(example) -> None:
    example.namespace.pop(PENDING, None)
    _run_console(example.parsed, example.namespace["__home__"])


def evaluate_yaml(example) -> None:
    from autograph.settings import load_settings

    path = example.namespace["__home__"] / "block.yaml"
    path.write_text(example.parsed)
    load_settings(path, env={})


def evaluate_json(example) -> None:
    json.loads(example.parsed)


def evaluate_bash(example) -> None:
    result = subprocess.run(["bash", "-n"], input=example.parsed, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


SYBIL = Sybil(parsers=[
    SkipParser(),
    CodeBlockParser("python", evaluate_python),
    CodeBlockParser("text", evaluate_text),
    CodeBlockParser("console", evaluate_console),
    CodeBlockParser("yaml", evaluate_yaml),
    CodeBlockParser("json", evaluate_json),
    CodeBlockParser("bash", evaluate_bash),
])


def _checked_pages() -> list[Path]:
    return [p for p in PAGES if str(p.relative_to(REPO)) not in NOT_CHECKED]


def test_every_code_block_has_a_language_this_test_runs():
    runs = {"python", "text", "console", "yaml", "json", "bash"}
    for page in _checked_pages():
        fences = re.findall(r"(?m)^```(.*)$", page.read_text())
        opening = fences[::2]
        assert all(lang in runs for lang in opening), (page, opening)


@pytest.mark.parametrize("page", _checked_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_code_block_of_the_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(REPO / "examples"))  # the pages' example package, mymodels
    document = SYBIL.parse(page)
    document.namespace["__home__"] = tmp_path
    failures, skipped = [], []
    for example in document:
        try:
            example.evaluate()
        except unittest.SkipTest as skip:
            skipped.append(f"line {example.line}: {skip}")
        except Exception as exc:  # noqa: BLE001 - every block's failure is listed
            failures.append(f"{page.name} line {example.line}: {type(exc).__name__}: {str(exc)[:3000]}")
    assert not failures, "\n\n".join(failures)


def test_every_unrunnable_block_says_why():
    for page in _checked_pages():
        for match in re.finditer(r"<!-- skip: (.*?) -->", page.read_text()):
            assert re.fullmatch(r'next "[^"]{10,}"', match.group(1)), (page, match.group(0))


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_bytes()) <= 15 * 1024
