"""The optimizer update alone: ``opt.step()`` eagerly, through autograph's compiled update
(``backend: inductor``, backends/optimizer_update.py) and ``torch.compile(opt.step)``, side by side.

The models and optimizers of ``tests/programs`` (``eval_loop``: Classifier + Adam; ``transformer_amp``:
TinyLM + Adam; ``cnn_adamw``: Net + AdamW; ``mlp_sgd``: MLP + SGD), three copies each with the
same gradients. Each round times ``--steps`` steps of each copy in turn (the order rotates), so
the machine's load hits all three alike; the table gives the median of the rounds' per-step
times and the spread (first and third quartile), one thread.

    python scripts/bench_optimizer_update.py                     # eval_loop and transformer_amp
    python scripts/bench_optimizer_update.py --programs mlp_sgd --rounds 20
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _build(program: str):
    import importlib
    import torch

    sys.path.insert(0, str(ROOT / "tests" / "programs"))
    m = importlib.import_module(f"{program}.train")
    torch.manual_seed(0)
    make = {"eval_loop": (m.__dict__.get("Classifier"), lambda ps: torch.optim.Adam(ps, lr=1e-2)),
            "transformer_amp": (m.__dict__.get("TinyLM"), lambda ps: torch.optim.Adam(ps, lr=3e-3)),
            "cnn_adamw": (m.__dict__.get("Net"), lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.01)),
            "mlp_sgd": (m.__dict__.get("MLP"), lambda ps: torch.optim.SGD(ps, lr=0.05))}[program]
    model_cls, opt_of = make
    base = model_cls()
    copies = []
    for _ in range(3):
        model = model_cls()
        model.load_state_dict(base.state_dict())
        copies.append((model, opt_of(model.parameters())))
    return copies


def _grads(copies, i: int) -> None:
    import torch

    gen = torch.Generator().manual_seed(i)
    params = [list(model.parameters()) for model, _ in copies]
    for ps in zip(*params):
        g = torch.randn(ps[0].shape, generator=gen) * 1e-2
        for p in ps:
            p.grad = g.clone()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", default="eval_loop,transformer_amp")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()

    import torch

    import autograph
    from autograph.backends import optimizer_update
    from autograph.settings import Settings, set_current_settings

    torch.set_num_threads(1)
    set_current_settings(Settings(backend="inductor", compile_threshold=1))

    def apply_step(opt):
        opt.step()

    print("| program | eager opt.step() | autograph inductor | torch.compile(opt.step) | autograph ÷ torch.compile |")
    print("|---|---|---|---|---|")
    for program in args.programs.split(","):
        copies = _build(program)
        hooked = autograph.compile(apply_step)
        compiled = torch.compile(lambda opt: opt.step(), backend="inductor")
        steps = [lambda opt: opt.step(), hooked, compiled]
        for i in range(4):  # warm-up: state, the trace and both compiles
            _grads(copies, i)
            for step, (_, opt) in zip(steps, copies):
                step(opt)
        update = optimizer_update.update_of(copies[1][1])
        times: list[list[float]] = [[], [], []]
        for r in range(args.rounds):
            _grads(copies, 100 + r)
            order = [(r + k) % 3 for k in range(3)]
            for k in order:
                step, opt = steps[k], copies[k][1]
                t0 = time.perf_counter()
                for _ in range(args.steps):
                    step(opt)
                times[k].append((time.perf_counter() - t0) / args.steps * 1e6)

        def cell(ts: list[float]) -> str:
            q = statistics.quantiles(ts, n=4)
            return f"{statistics.median(ts):.0f} µs ({q[0]:.0f}-{q[2]:.0f})"

        ratio = statistics.median(a / b for a, b in zip(times[1], times[2]))
        print(f"| {program} | {cell(times[0])} | {cell(times[1])} | {cell(times[2])} | {ratio:.2f} |")
        print(f"<!-- {program}: {update.describe() if update else 'no update'} -->", file=sys.stderr)


if __name__ == "__main__":
    main()
