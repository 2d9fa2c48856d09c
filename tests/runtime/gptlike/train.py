"""Train the nanoGPT-shaped model a few steps; print one JSON line of results.

Environment: ``TC`` (``eager``/``aot_eager``/``inductor``: wrap the model in ``torch.compile`` with that
backend; empty: no torch.compile), ``STEPS`` (default 10), ``BENCH`` (steps timed at the end).
"""
import json
import os
import time

import torch

from tests.runtime.gptlike.model import GPT, GPTConfig


def main() -> None:
    steps = int(os.environ.get("STEPS", "10"))
    backend = os.environ.get("TC", "")
    torch.manual_seed(0)
    model = GPT(GPTConfig(block_size=32))
    model.train()
    optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.95), "cpu")
    run = torch.compile(model, backend=backend) if backend else model
    data = torch.randint(0, 64, (steps, 4, 33), generator=torch.Generator().manual_seed(1))
    losses, times = [], []
    for i in range(steps):
        t0 = time.perf_counter()
        x, y = data[i, :, :-1].contiguous(), data[i, :, 1:].contiguous()
        _, loss = run(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    print(json.dumps({"losses": losses, "times": times}))


if __name__ == "__main__":
    main()
