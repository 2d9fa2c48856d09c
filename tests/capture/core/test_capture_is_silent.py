"""Capture shows nothing of its own: an operation that fails on fake tensors (the program's own
error, raised again by the real run or caught by the program) prints no torch log at capture.
Run in a child process: torch's log handlers write to the process's stderr, which pytest's
logging capture would otherwise take over."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROGRAM = '''
import torch
import autograph


def combine(a, b):
    try:
        return a @ b, "matmul"
    except RuntimeError:
        return a * b.sum(), "fallback"


compiled = autograph.compile(combine, backend="eager")
for sa, sb in [((2, 3), (3, 2)), ((2, 3), (2, 3)), ((2, 2), (3, 1))]:
    a, b = torch.ones(sa), torch.ones(sb)
    got, want = compiled(a, b), combine(a, b)
    assert got[1] == want[1] and torch.equal(got[0], want[0])
print("ok")
'''


def test_an_operation_failing_on_fake_tensors_logs_nothing():
    root = Path(__file__).resolve().parents[3]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRAPH", "TORCH_LOGS"))}
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    assert proc.stderr == "", proc.stderr
