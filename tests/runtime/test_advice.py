"""Recompile-limit advice fits the failing guard's kind (a float is not a dimension to mark dynamic)."""
from __future__ import annotations

import torch

from autograph.guards.model import equals_match, id_match, tensor_match
from autograph.guards.sources import LocalSource
from autograph.runtime.advice import recompile_advice
from autograph.settings import Settings


def estimate(model, dt):
    return dt


def scale(a):
    return a


def test_a_changing_float_is_advised_to_become_a_tensor():
    advice = recompile_advice(equals_match(LocalSource("dt"), 0.0123), estimate, (None, 0.5), {}, Settings())
    assert "dt is a Python float" in advice and "torch.tensor(dt)" in advice
    assert "dynamic" not in advice and f"'{__name__}:estimate'" in advice


def test_a_changing_int_is_named_as_an_int():
    advice = recompile_advice(equals_match(LocalSource("dt"), 3), estimate, (None, 4), {}, Settings())
    assert "dt is a Python int" in advice and "torch.tensor" not in advice


def test_a_changing_size_is_advised_to_be_marked_dynamic():
    guard = tensor_match(LocalSource("a"), torch.ones(3, 4))
    advice = recompile_advice(guard, scale, (torch.ones(3, 5),), {}, Settings())
    assert "the size of a changes in dimension 1" in advice and "autograph.mark_dynamic(a, 1)" in advice
    static = recompile_advice(guard, scale, (torch.ones(3, 5),), {}, Settings(dynamic="static"))
    assert "dynamic is 'static'" in static


def test_a_changing_dtype_is_not_a_dimension():
    guard = tensor_match(LocalSource("a"), torch.ones(3))
    advice = recompile_advice(guard, scale, (torch.ones(3, dtype=torch.float64),), {}, Settings())
    assert "dtype" in advice and "mark_dynamic" not in advice


def test_a_different_object_each_call_is_named_an_identity():
    guard = id_match(LocalSource("a"), object())
    advice = recompile_advice(guard, scale, (object(),), {}, Settings())
    assert "different object on each call" in advice and "identity" in advice and "dynamic" not in advice


# -- the advice's deny rule removes the warning (issue 26) ------------------------------

ADVISED_MODEL = '''
import torch

def scaled(x, tag):
    y = x * 2
    print("", end="")  # a graph break: the rest runs in a resume function
    return y if tag == "never" else y * 3  # specialised on the text: one entry per value
'''

ADVISED_SCRIPT = '''
import torch
import advpkg.model
x = torch.ones(3)
for i in range(12):
    advpkg.model.scaled(x, f"tag{i}")
'''


def _run_advised(tmp_path, deny: str = ""):
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "advpkg").mkdir(exist_ok=True)
    (tmp_path / "advpkg" / "__init__.py").write_text("")
    (tmp_path / "advpkg" / "model.py").write_text(ADVISED_MODEL)
    (tmp_path / "main.py").write_text(ADVISED_SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    repo = Path(__file__).resolve().parents[2]
    env.update(PYTHONPATH=os.pathsep.join([str(repo), str(tmp_path)]), AUTOGRAPH_PACKAGES="advpkg",
               AUTOGRAPH_CONFIG="", AUTOGRAPH_COMPILE_THRESHOLD="1", AUTOGRAPH_BACKEND="eager")
    if deny:
        env["AUTOGRAPH_DENY"] = deny
    return subprocess.run([sys.executable, "-m", "autograph", "run", "main.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_deny_rule_a_recompile_warning_advises_removes_the_warning(tmp_path):
    import re

    first = _run_advised(tmp_path)
    assert first.returncode == 0, first.stderr
    assert "RecompileLimitWarning" in first.stderr
    rule = re.search(r"a packages\.deny rule such as '([^']+)'", first.stderr).group(1)
    assert rule == "advpkg.model:scaled"  # the function the resume function belongs to
    second = _run_advised(tmp_path, deny=rule)
    assert second.returncode == 0, second.stderr
    assert "RecompileLimitWarning" not in second.stderr


def test_a_deny_rule_for_library_code_is_an_error_naming_the_rule(tmp_path):
    result = _run_advised(tmp_path, deny="torch.autograd.profiler:record_function.__exit__")
    assert result.returncode != 0
    assert "deny rule 'torch.autograd.profiler:record_function.__exit__'" in result.stderr
