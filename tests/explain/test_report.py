"""The run report: per-function tables and the same data as JSON (--report=PATH)."""
import io
import json

import torch

import autograph
from autograph.explain.report import print_report, report
from tests.explain import seeds
from autograph.settings import Settings


def _run_with_recompile():
    f = autograph.compile(seeds.toy_example, backend="eager")
    a, b = torch.linspace(-1, 1, 10), -torch.ones(10)
    for _ in range(3):
        f(a, b)
    f(torch.ones(4), torch.ones(4))  # new shape: the size guard of `a` fails -> recompile
    return f


def test_function_report_counts():
    f = _run_with_recompile()  # kept alive: a collected function's cache entries are freed
    rep = report()
    top = next(r for r in rep.functions if r.qualname == "toy_example")
    assert (top.calls, top.hits, top.captures, top.cache_entries) == (4, 2, 2, 2)
    assert len(top.recompiles) == 1
    guard, words = top.recompiles[0]
    assert guard.startswith("___check_tensor(a, torch.float32, 'cpu', (10,), (1,)")
    assert words.startswith("a: Tensor float32 cpu size (10,)")
    line = seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    assert [(b.where, b.reason.split(" (")[0]) for b in top.breaks] == \
        [(f"seeds.py:{line}", "data-dependent branch on a tensor value")] * 2
    assert top.ops_in_graphs == 10 and top.torch_call_share is None
    assert top.capture_seconds > 0
    resumes = [r for r in rep.functions if r.resume_of == "toy_example"]
    assert resumes and all(r.qualname.startswith("toy_example.__resume_at_") for r in resumes)
    del f


def test_text_table_per_function():
    _run_with_recompile()
    text = str(report())
    assert text.startswith("autograph run report: ")
    first = seeds.toy_example.__code__.co_firstlineno
    assert f"| toy_example (seeds.py:{first})" in text
    for row in ("| calls                 | 4", "| cache hits            | 2", "| captures              | 2",
                "| recompiles            | 1", "| torch calls in graphs | n/a", "| graph breaks          | 2"):
        assert row in text, row
    assert "guard failed: ___check_tensor(a, torch.float32, 'cpu', (10,), (1,)" in text
    assert "— resume function of toy_example" in text
    line = seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    # both entries break at the same place: one line, counted
    assert f"| [data-dependent-branch] data-dependent branch on a tensor value (`if b.sum() < 0:`, seeds.py:{line}) ×2 " \
        in text


def test_print_report_writes_json_when_report_is_a_path(tmp_path):
    _run_with_recompile()
    path = tmp_path / "sub" / "report.json"
    stream = io.StringIO()
    print_report(Settings(report=path, report_style="all"), stream=stream)
    data = json.loads(path.read_text())
    assert data["autograph_report"] == 1
    top = next(f for f in data["functions"] if f["qualname"] == "toy_example")
    assert top["calls"] == 4 and top["cache_hits"] == 2 and top["captures"] == 2
    assert top["recompiles"][0]["guard"].startswith("___check_tensor(a,")
    assert top["graph_breaks"][0]["filename"] == seeds.__file__
    assert top["graph_breaks"][0]["lineno"] == seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    assert top["torch_call_share"] is None and data["not_measured"]
    assert data["totals"]["functions"] == len(data["functions"])
    out = stream.getvalue()
    assert "| toy_example (seeds.py:" in out and f"report written to {path}" in out


def test_print_report_true_prints_only(tmp_path, capsys):
    _run_with_recompile()
    print_report(Settings(report=True, report_style="all", cache_dir=tmp_path))
    captured = capsys.readouterr()
    assert captured.out == "" and "| calls " in captured.err


def test_empty_report():
    assert str(report()).startswith("autograph run report: no compiled function was called.\nbackend: ")
    assert report().as_dict()["functions"] == []


def test_cli_hands_over_to_print_report(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pkg = tmp_path / "reportpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "import torch\n\ndef toy_example(a, b):\n    x = a / (torch.abs(a) + 1)\n"
        "    if b.sum() < 0:\n        b = b * -1\n    return x * b\n")
    script = tmp_path / "main.py"
    script.write_text("import torch\nfrom reportpkg.model import toy_example\n"
                      "for _ in range(3):\n    toy_example(torch.ones(5), -torch.ones(5))\nprint('done')\n")
    out_json = tmp_path / "r.json"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{root}{':' + str(tmp_path)}", "AUTOGRAPH_BACKEND": "eager",
           "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "autograph", "run", f"--report={out_json}", "--report-style=all",
                           "--config", str(_config(tmp_path)), str(script)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert "| reportpkg" not in proc.stdout and "toy_example (model.py:3)" in proc.stderr
    data = json.loads(out_json.read_text())
    top = next(f for f in data["functions"] if f["qualname"] == "toy_example")
    assert top["calls"] == 3 and top["captures"] == 1


def _config(tmp_path):
    cfg = tmp_path / "autograph.yaml"
    cfg.write_text("packages:\n  allow: [reportpkg]\nbackend: eager\n")
    return cfg


# ------------------------------------------------------------ share of torch calls inside graphs

def _counting():
    """Report mode in-process: the counter on, fresh counts; returns a function to undo it."""
    from autograph.explain import torch_calls

    autograph.reset()
    torch_calls.reset()
    torch_calls.start()

    def undo():
        torch_calls.stop()
        torch_calls.reset()
    return undo


def _with_print(x):
    y = torch.relu(x) + 1
    print("between graphs", y.sum().item())  # break; .item() runs outside every graph
    return torch.sin(y) * 2


def _no_break(x):
    return torch.relu(x) * 2 + torch.sin(x)


def test_share_of_torch_calls_in_process(capsys):
    x = torch.randn(8)
    expected = (_with_print(x), _no_break(x))  # before counting: the originals' own calls count too
    undo = _counting()
    try:
        f, g = autograph.compile(_with_print, backend="eager"), autograph.compile(_no_break, backend="eager")
        for _ in range(3):
            assert torch.equal(f(x), expected[0]) and torch.equal(g(x), expected[1])
        rep = report()
    finally:
        undo()
    by_name = {r.qualname: r for r in rep.functions}
    broken, whole = by_name["_with_print"], by_name["_no_break"]
    assert whole.torch_calls_total > 0 and whole.torch_calls_in_graphs == whole.torch_calls_total
    assert whole.torch_call_share == 1.0
    assert f"| torch calls in graphs | 100.0% ({whole.torch_calls_total}/{whole.torch_calls_total})" in str(rep)
    assert broken.torch_calls_total > broken.torch_calls_in_graphs > 0 and broken.torch_call_share < 1.0
    assert broken.torch_calls_total - broken.torch_calls_in_graphs == broken.calls  # one .item() per call
    assert rep.counted and rep.as_dict()["not_measured"] == []


def test_resume_function_has_its_own_share():
    """The code after the break runs in resume functions: their torch calls count there, all in graphs."""
    undo = _counting()
    try:
        f = autograph.compile(_with_print, backend="eager")
        for _ in range(2):
            f(torch.randn(4))
        rep = report()
    finally:
        undo()
    data = {d["qualname"]: d for d in rep.as_dict()["functions"]}
    resumes = [d for q, d in data.items() if q.startswith("_with_print.__resume_at_")]
    assert resumes and all(d["calls"] == 2 for d in resumes)  # .item() and print() each break
    counted = [d for d in resumes if d["torch_calls_total"]]
    assert counted and all(d["torch_call_share"] == 1.0 for d in counted)
    assert rep.as_dict()["torch_call_counting"].startswith("torch calls in graphs:")


def test_other_backends_count_graph_ops_per_run():
    """A backend other than eager: each run of a graph counts its op count (the mode sees no kernels)."""
    undo = _counting()
    try:
        g = autograph.compile(_no_break, backend=lambda gm, example_inputs: gm.forward)
        for _ in range(3):
            g(torch.randn(4))
        rep = report()
    finally:
        undo()
    top = next(r for r in rep.functions if r.qualname == "_no_break")
    assert top.ops_in_graphs == 4  # relu, mul, sin, add
    assert (top.torch_calls_in_graphs, top.torch_calls_total) == (12, 12)


def test_report_off_never_installs_the_mode():
    from autograph.explain import torch_calls

    autograph.reset()
    torch_calls.reset()
    assert not torch_calls.active()
    g = autograph.compile(_no_break, backend="eager")
    seen = []

    def probe(x):
        seen.append(len(torch.overrides._get_current_function_mode_stack()))
        return _no_break(x)
    g(torch.randn(3))
    g(torch.randn(3))
    probe(torch.randn(3))
    assert seen == [0] and not torch_calls.active()
    rep = report()
    top = next(r for r in rep.functions if r.qualname == "_no_break")
    assert top.torch_calls_total is None and top.torch_call_share is None
    assert "| torch calls in graphs | n/a" in str(rep) and rep.as_dict()["not_measured"]


def test_cli_report_counts_torch_calls(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pkg = tmp_path / "sharepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "import torch\n\ndef with_print(x):\n    y = torch.relu(x) + 1\n    print('mid', y.sum().item())\n"
        "    return torch.sin(y) * 2\n\ndef no_break(x):\n    return torch.relu(x) * 2 + torch.sin(x)\n")
    script = tmp_path / "main.py"
    script.write_text("import torch\nfrom sharepkg.model import with_print, no_break\n"
                      "for _ in range(3):\n    with_print(torch.ones(5)); no_break(torch.ones(5))\n"
                      "print(len(torch.overrides._get_current_function_mode_stack()))\n")
    cfg = tmp_path / "autograph.yaml"
    cfg.write_text("packages:\n  allow: [sharepkg]\nbackend: eager\ncompile_threshold: 1\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{root}:{tmp_path}", "HOME": str(tmp_path),
           "AUTOGRAPH_REPORT_STYLE": "all"}
    out_json = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "autograph", "run", f"--report={out_json}", "--config",
                           str(cfg), str(script)], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "1"  # the counter's mode is on while the program runs
    data = {f["qualname"]: f for f in json.loads(out_json.read_text())["functions"]}
    whole, broken = data["no_break"], data["with_print"]
    assert whole["torch_calls_total"] > 0 and whole["torch_call_share"] == 1.0
    assert broken["torch_calls_total"] > broken["torch_calls_in_graphs"] > 0
    assert broken["torch_call_share"] < 1.0
    assert "| torch calls in graphs | 100.0% (" in proc.stderr
    # report off: the program sees no mode on the stack
    proc = subprocess.run([sys.executable, "-m", "autograph", "run", "--config", str(cfg), str(script)],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "0"


# ---------------------------------------------------------------- why a function did not compile


def _with_fake_capture(**fake):
    from autograph.runtime import shim as shim_mod
    from tests.runtime.fakes import FakeCapture, runtime_settings

    capture = FakeCapture(**fake)
    return shim_mod.configure(settings_provider=lambda: runtime_settings(compile_threshold=2, recompile_limit=2),
                              capture=capture)


_sources = iter(range(10**6))


def _fresh(source: str):
    ns = {"torch": torch}
    exec(compile(source, f"<report {next(_sources)}>", "exec"), ns)
    return ns["f"]


def test_every_function_that_did_not_compile_says_why_in_its_row():
    from autograph.errors import CaptureError
    from autograph.runtime import shim as shim_mod
    from autograph.runtime.shim import Shim

    x = torch.ones(2)
    previous = _with_fake_capture()
    try:
        cold = Shim(_fresh("def f(x):\n    return x + 1\n"))
        cold(x)                                                     # called once: below the threshold
        tensor_free = Shim(_fresh("def f(n):\n    return n + 1\n"))
        for _ in range(4):
            tensor_free(3)                                          # no tensor: marked eager after 3
        limited = Shim(_fresh("def f(x):\n    return x * 2\n"))
        for n in range(1, 6):
            limited(torch.ones(n))                                  # recompile limit 2
        shim_mod.restore(previous)
        previous = _with_fake_capture(error=CaptureError("cannot capture f: unsupported thing", "m.py", 3))
        failing = Shim(_fresh("def f(x):\n    return x - 1\n"))
        failing(x), failing(x)
        shim_mod.restore(previous)
        previous = _with_fake_capture(no_tensor_work=True)
        idle = Shim(_fresh("def f(x):\n    return x\n"))
        idle(x), idle(x)
    finally:
        shim_mod.restore(previous)
    rows = {r.qualname + r.filename: r for r in report().functions}
    why = {name: rows[s.stats.qualname + s.stats.filename].not_compiled
           for name, s in [("cold", cold), ("tensor_free", tensor_free), ("limited", limited),
                           ("failing", failing), ("idle", idle)]}
    assert why["cold"] == "cold, not compiled: called once, below compile_threshold (2)"
    assert why["tensor_free"].startswith("called 3 times without tensors")
    assert why["limited"] is None  # it has compiled entries; its eager calls still say why
    limited_row = rows[limited.stats.qualname + limited.stats.filename]
    assert any(reason.startswith("recompile limit (2) reached") for reason, _ in limited_row.eager_reasons)
    assert why["failing"] == "capture failed: m.py:3: cannot capture f: unsupported thing"
    assert why["idle"] == "no tensor work: nothing worth compiling"
    text = str(report())
    assert "| not compiled          | cold, not compiled: called once, below compile_threshold (2)" in text
    assert "recompile limit (2) reached; last failing guard: ___check_tensor(x" in text
    data = report().as_dict()
    assert {f["not_compiled"] for f in data["functions"]} >= {why["cold"], why["failing"], why["idle"]}


def test_report_names_what_auto_resolved_to():
    from autograph.backends.registry import auto_choice

    chosen, why = auto_choice()
    then = ", inductor in the background" if chosen == "eager" else ""  # no compiler to wait for
    assert f"backend: auto → {chosen}{then} ({why})" in str(report(Settings()))
    assert report(Settings(backend="eager")).as_dict()["backend"] == "eager"


def test_decorated_functions_are_labelled_with_their_own_file_and_line(tmp_path, monkeypatch):
    pkg = tmp_path / "decopkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "import functools\nimport torch\n\n"
        "def logged(fn):\n    @functools.wraps(fn)\n    def wrapper(*a, **k):\n        return fn(*a, **k)\n"
        "    return wrapper\n\n"
        "class Net(torch.nn.Module):\n"
        "    @torch.no_grad()\n    def generate(self, x):\n        return x + 1\n\n"
        "    @logged\n    def step(self, x):\n        return x * 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with autograph.install("decopkg", settings=Settings(backend="eager", compile_threshold=1)):
        from decopkg import model

        net = model.Net()
        net.generate(torch.ones(2)), net.step(torch.ones(2))
        where = {r.qualname: r.where for r in report().functions}
    assert where["Net.generate"] == "model.py:11" and where["Net.step"] == "model.py:15"


def _branches(x):
    if x.sum() > 0:  # data-dependent-branch
        x = x + 1
    return x * 2


def _prints(x):
    y = x + 1
    print("", end="")  # side-effect
    return y * 2


def _branches_too(x):
    y = x.cos()
    if y.max() > 2:  # data-dependent-branch, in another function
        return y
    return y - 1


def test_report_counts_breaks_by_kind_across_functions():
    for fn in (_branches, _prints, _branches_too):
        compiled = autograph.compile(fn, backend="eager")
        for size in (3, 3):
            compiled(torch.ones(size))
    rep = report()
    by_kind = rep.breaks_by_kind()
    assert by_kind["data-dependent-branch"] == (2, 2)  # two breaks, in two functions
    assert by_kind["side-effect"] == (1, 1)
    assert list(by_kind)[0] == "data-dependent-branch"  # most frequent first
    data = json.loads(rep.to_json())
    kinds = {k["kind"]: k for k in data["graph_breaks_by_kind"]}
    assert kinds["data-dependent-branch"]["breaks"] == 2 and kinds["data-dependent-branch"]["functions"] == 2
    assert "torch.where" in kinds["data-dependent-branch"]["hint"]
    text = str(rep)
    assert "graph breaks by kind:" in text
    assert "  data-dependent-branch: 2 breaks in 2 functions — Python needs the value inside a tensor" in text
    assert all(b["kind"] for f in data["functions"] for b in f["graph_breaks"])
