"""Train the fixture GPT for a few steps with random data, like a user's ``train.py``.

Prints one ``loss <hex>`` line per step (bit-exact), an ``mfu`` line per step from
``estimate_mfu(fwdbwd_per_iter, dt)`` (``dt`` is a new float each step) and the tokens
``generate`` produced for a few ``max_new_tokens``. ``--steps N`` (default 20).
"""
from __future__ import annotations

import sys
import time

import torch

from model import GPT, GPTConfig


def main(steps: int) -> None:
    torch.manual_seed(1337)
    torch.set_num_threads(1)
    config = GPTConfig()
    model = GPT(config)
    optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=1e-3, betas=(0.9, 0.95), device_type="cpu")
    data = torch.randint(0, config.vocab_size, (steps, 4, config.block_size + 1),
                         generator=torch.Generator().manual_seed(0))
    t0 = time.time()
    for step in range(steps):
        x, y = data[step, :, :-1].contiguous(), data[step, :, 1:].contiguous()
        logits, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        t1 = time.time()
        dt, t0 = t1 - t0 + 1e-9 * (step + 1), t1  # a new float every step, as in a real loop
        mfu = model.estimate_mfu(4, dt)
        print(f"step {step} loss {loss.item().hex()} mfu-positive {mfu > 0}")
    model.eval()
    for max_new_tokens in (3, 5, 4):
        out = model.generate(data[0, :1, :4], max_new_tokens, top_k=10)
        print("generated", out.tolist())


if __name__ == "__main__":
    main(int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 20)
