"""A few training steps of the tiny transformer, printing the loss.

Plain PyTorch: run it with ``python examples/train.py`` or, compiled,
``python -m autograph run --config config/autograph.yaml examples/train.py``.
"""
from __future__ import annotations

import argparse

import torch

from tinymodels import TinyTransformer
from tinymodels.data import batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = TinyTransformer.small()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for step, tokens in enumerate(batches(args.steps), start=1):
        loss = model.loss(tokens)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step:2d}  loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
