"""DataLoader workers (spawn and fork) under ``python -m autograph run`` are instrumented, nothing fails to pickle."""
from __future__ import annotations

import json

import pytest

from tests.reliability.conftest import run_autograph, write

PACKAGE = {
    "dlpkg/__init__.py": "",
    "dlpkg/ops.py": """
        import torch

        def transform(x):
            return (x * 2 + 1).relu()
    """,
    "dlpkg/data.py": """
        import os
        import torch
        from torch.utils.data import Dataset

        from dlpkg import ops


        class Squares(Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                x = torch.full((3,), float(i))
                # inside the worker: is the selected function wrapped by autograph's shim?
                wrapped = hasattr(ops.transform, "__wrapped__")
                return ops.transform(x), wrapped, os.getpid()
    """,
}

SCRIPT = """
import json, os, sys
import torch
from torch.utils.data import DataLoader

from dlpkg.data import Squares
from dlpkg import ops

if __name__ == "__main__":
    method = sys.argv[1]
    loader = DataLoader(Squares(), batch_size=2, num_workers=2, multiprocessing_context=method)
    rows = []
    for values, wrapped, pids in loader:
        rows.append({"values": values.tolist(), "wrapped": wrapped.tolist(), "pids": pids.tolist()})
    expected = [((torch.full((3,), float(i)) * 2 + 1).relu()).tolist() for i in range(6)]
    got = [v for row in rows for v in row["values"]]
    json.dump({"rows": rows, "ok": got == expected, "parent_wrapped": hasattr(ops.transform, "__wrapped__"),
               "parent_pid": os.getpid()}, open("result.json", "w"))
"""


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_dataloader_workers_are_instrumented(tmp_path, method):
    write(tmp_path, {**PACKAGE, "train.py": SCRIPT})
    done = run_autograph(["run", "--backend", "eager", "train.py", method], cwd=tmp_path,
                         env={"AUTOGRAPH_PACKAGES": "dlpkg"}, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "pickl" not in done.stderr.lower(), done.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["ok"], result
    assert result["parent_wrapped"]
    workers = {pid for row in result["rows"] for pid in row["pids"]}
    assert result["parent_pid"] not in workers and len(workers) >= 1
    assert all(all(row["wrapped"]) for row in result["rows"]), result["rows"]


@pytest.mark.slow  # ~12 s: a third spawn run, the negative twin of the test above
def test_dataloader_workers_follow_the_selection(tmp_path):
    """A package that is not selected stays unwrapped in the workers too."""
    write(tmp_path, {**PACKAGE, "train.py": SCRIPT})
    done = run_autograph(["run", "--backend", "eager", "train.py", "spawn"], cwd=tmp_path,
                         env={"AUTOGRAPH_PACKAGES": "otherpkg"}, timeout=180)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["ok"] and not result["parent_wrapped"]
    assert not any(any(row["wrapped"]) for row in result["rows"]), result["rows"]
