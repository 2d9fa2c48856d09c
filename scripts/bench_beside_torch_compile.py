"""Steady training step of `torch.compile(model)` with and without autograph's import hook.

One process, interleaved: the GPT-shaped model of ``tests/runtime/gptlike`` is loaded twice,
once under ``autograph.install("tests.runtime.gptlike")`` and once as a plain copy (same file,
another module name, not instrumented); both are wrapped in ``torch.compile`` and trained step
by step in turn (forward, backward, AdamW step), one torch thread. Prints the median steady
step of each after ``--warmup`` steps, and their ratio. (Same losses with dropout on are checked
by ``tests/runtime/test_dynamo.py`` in separate processes.)

    python scripts/bench_beside_torch_compile.py --backend aot_eager --backend inductor
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import autograph  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", default=None, help="torch.compile backend (repeatable)")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    path = REPO / "tests" / "runtime" / "gptlike" / "model.py"
    spec = importlib.util.spec_from_file_location("plain_gptlike_model", path)
    plain = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = plain  # importlib's recipe: dataclasses look their module up while it runs
    spec.loader.exec_module(plain)
    print("| torch.compile backend | alone: steady step ms | under the hook: steady step ms | ratio |")
    print("|---|---|---|---|")
    with autograph.install("tests.runtime.gptlike"):
        import tests.runtime.gptlike.model as hooked

        for backend in args.backend or ["aot_eager"]:
            torch._dynamo.reset()
            runs = {}
            for name, module in (("alone", plain), ("hooked", hooked)):
                torch.manual_seed(0)
                with contextlib.redirect_stdout(io.StringIO()):  # the model prints its size: keep the table clean
                    model = module.GPT(module.GPTConfig(block_size=32)).train()
                runs[name] = (torch.compile(model, backend=backend), torch.optim.AdamW(model.parameters(), lr=1e-3))
            data = torch.randint(0, 64, (4, 33), generator=torch.Generator().manual_seed(1))
            x, y = data[:, :-1].contiguous(), data[:, 1:].contiguous()
            times: dict[str, list[float]] = {name: [] for name in runs}
            for step in range(args.steps):
                for name, (model, optimizer) in runs.items():
                    t0 = time.perf_counter()
                    _, loss = model(x, y)
                    loss.backward()
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)
                    if step >= args.warmup:
                        times[name].append(time.perf_counter() - t0)
            alone, under = (statistics.median(times[n]) * 1e3 for n in ("alone", "hooked"))
            print(f"| {backend} | {alone:.2f} | {under:.2f} | {under / alone:.3f} |")


if __name__ == "__main__":
    main()
