"""Dumps: one readable, compilable Python file per function with the whole dispatch, plus kernel files."""
import re

import torch

import autograph
from autograph.explain import events
from autograph.explain.dump import dump, dump_all, dump_source
from autograph.settings import Settings
from tests.explain import seeds


def _toy():
    f = autograph.compile(seeds.toy_example, backend="eager")
    a = torch.linspace(-1, 1, 10)
    f(a, torch.ones(10))
    f(a, -torch.ones(10))
    f(torch.ones(3), torch.ones(3))  # second entry
    return f


def test_dump_file_has_the_whole_dispatch(tmp_path):
    files = dump(_toy(), tmp_path)
    assert [p.name for p in files] == ["seeds.toy_example.py"]
    text = files[0].read_text()
    compile(text, str(files[0]), "exec")  # valid Python
    dispatch = text[text.index("\ndef toy_example(a, b):") + 1:]
    assert dispatch.splitlines()[:5] == [
        "def toy_example(a, b):",
        "    if guard_0(a, b):",
        "        return transformed_0(a, b)",
        "    if guard_1(a, b):",
        "        return transformed_1(a, b)",
    ]
    for needed in ("def guard_0_first_failure(a, b):", "def guard_0(a, b):", "def transformed_0(a, b):",
                   "def transformed_1(a, b):", "#   a: Tensor float32 cpu size (10,) stride (1,) requires_grad=False",
                   # the size change makes the second entry dynamic (dynamic: auto), with its shape guard
                   "#   a: Tensor float32 cpu size (?,) stride (1,) requires_grad=False",
                   "#   2 <= a.size(0)"):
        assert needed in text, needed
    # subgraphs are classes named after the graph the transformed code calls
    called = set(re.findall(r"(__compiled_fn_\d+)\(a, b\)", text))
    assert len(called) == 2
    for name in called:
        assert f"class {name}_graph(torch.nn.Module):" in text and f"{name} = {name}_graph()" in text
    # resume functions: marked original source, then their own dispatch, defined once
    resumes = set(re.findall(r"return (__resume_at_\d+_\d+)\(b, __out\[0\]\)", text))
    assert len(resumes) == 2
    for name in resumes:
        assert text.count(f"\ndef {name}(b, x):") == 1
        assert f"# Resume function {name} continues at seeds.py:" in text
    assert re.search(r"^#         b = b \* -1 +<== resumes here$", text, re.M)
    assert re.search(r"^#     return x \* b +<== resumes here$", text, re.M)


def test_dump_source_of_module_forward():
    m = autograph.compile(seeds.LinearRelu(), backend="eager")
    m(torch.randn(2, 4))
    text = dump_source(m)
    compile(text, "<dump>", "exec")
    assert "def forward(self, x):\n    if guard_0(self, x):\n        return transformed_0(self, x)" in text


def test_dump_all_writes_one_file_per_function_and_kernel_files(tmp_path):
    class Kernel:
        def __init__(self, name, source):
            self.name, self.source = name, source

    def kernel_backend(gm, example_inputs):
        def run(*args):
            return gm(*args)
        run.kernels = [Kernel("fused_abs_add_div", "@triton.jit\ndef fused_abs_add_div(in_ptr, out_ptr):\n    pass\n")]
        run.wrapper_source = "def call(args):\n    fused_abs_add_div[(1,)](*args)\n"
        return run

    f = autograph.compile(seeds.toy_example, backend=kernel_backend)
    g = autograph.compile(seeds.foo2, backend="eager")
    f(torch.ones(4), torch.ones(4))
    g(torch.ones(4), torch.ones(4))
    files = dump_all(tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "seeds.toy_example.py" in names and "seeds.foo2.py" in names
    kernel_files = [n for n in names if n.endswith(".kernels.py")]
    assert kernel_files and all(n.startswith("seeds.toy_example.__compiled_fn_") for n in kernel_files)
    assert not any("__resume_at_" in n.split(".")[1] for n in names)  # resumes live in their parent's file
    for p in files:
        compile(p.read_text(), str(p), "exec")
    ktext = (tmp_path / kernel_files[0]).read_text()
    assert "def fused_abs_add_div(in_ptr, out_ptr):" in ktext and "fused_abs_add_div[(1,)](*args)" in ktext
    assert f"# its kernels: {kernel_files[0]}" in (tmp_path / "seeds.toy_example.py").read_text()


def test_settings_dump_rewrites_the_file_on_each_new_entry(tmp_path):
    events.activate(Settings(dump=tmp_path))
    f = autograph.compile(seeds.toy_example, backend="eager")
    f(torch.ones(4), torch.ones(4))
    path = tmp_path / "seeds.toy_example.py"
    assert path.exists() and "if guard_1(" not in path.read_text()
    f(torch.ones(5), torch.ones(5))
    assert "if guard_1(a, b):" in path.read_text()
    events.deactivate()
    f(torch.ones(6), torch.ones(6))
    assert "if guard_2(" not in path.read_text()


def test_dump_of_plain_function_says_what_to_do():
    import pytest

    with pytest.raises(TypeError, match="is not compiled by autograph"):
        dump_source(seeds.foo2)


def test_autograph_dump_and_log_from_the_environment(tmp_path):
    """End to end: AUTOGRAPH_DUMP / AUTOGRAPH_LOG under `python -m autograph run`."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pkg = tmp_path / "dumppkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "import torch\n\ndef toy_example(a, b):\n    x = a / (torch.abs(a) + 1)\n"
        "    if b.sum() < 0:\n        b = b * -1\n    return x * b\n")
    script = tmp_path / "main.py"
    script.write_text("import torch\nfrom dumppkg.model import toy_example\n"
                      "for n in (4, 4, 5):\n    toy_example(torch.ones(n), -torch.ones(n))\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{root}:{tmp_path}", "HOME": str(tmp_path),
           "AUTOGRAPH_PACKAGES": "dumppkg", "AUTOGRAPH_BACKEND": "eager", "AUTOGRAPH_COMPILE_THRESHOLD": "1",
           "AUTOGRAPH_DUMP": str(tmp_path / "dump"), "AUTOGRAPH_LOG": "breaks"}
    proc = subprocess.run([sys.executable, "-m", "autograph", "run", str(script)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("[autograph.breaks] graph break in toy_example at model.py:5:") == 2
    text = (tmp_path / "dump" / "model.toy_example.py").read_text()
    compile(text, "dump", "exec")
    assert "    if guard_1(a, b):\n        return transformed_1(a, b)" in text


def test_dump_and_inspect_show_the_same_transformed_code():
    """One text for one entry (a break inside `with`, where a decompiler writes `as __temp_N`)."""
    f = autograph.compile(seeds.break_inside_with, backend="eager")
    f(torch.ones(3), torch.ones(3))
    entry = autograph.inspect(f).entries[0]
    assert entry.breaks and "with " in entry.transformed
    text = dump_source(f)
    body = entry.transformed.replace("def break_inside_with(", "def transformed_0(", 1)
    assert body in text
