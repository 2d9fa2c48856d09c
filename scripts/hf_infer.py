"""A few inference calls of a small HuggingFace model, checked against eager.

    AUTOGRAPH_PACKAGES=transformers.models.gpt2 python -m autograph run scripts/hf_infer.py
    python scripts/hf_infer.py --model bert         # no hook: plain eager vs eager
    AUTOGRAPH_PACKAGES=transformers python -m autograph run scripts/hf_infer.py --model hf:mistral

The model is built from a small config with random weights (nothing is
downloaded). Each call's result is compared with the same model run eagerly:
under the import hook the reference runs with the shims stepping aside, so it
is the original code. Prints one line per call and exits 1 on a mismatch.
"""
from __future__ import annotations

import argparse
import sys

import torch

from autograph.testing.compare import same
from autograph.testing.models import build


def _eager():
    """A context in which shimmed functions run their original code."""
    from autograph.runtime.shim import capturing

    return capturing()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gpt2",
                        help="gpt2, bert, llama or hf:<transformers model type> (default gpt2)")
    parser.add_argument("--calls", type=int, default=5,
                        help="inference calls to make (default 5: under the hook the 3rd captures, compile_threshold)")
    args = parser.parse_args(argv)

    model, example = build(args.model)
    model.eval()
    failures = 0
    for i in range(args.calls):
        torch.manual_seed(i)
        inputs = {k: torch.randint_like(v, 0, 128) if v.dtype == torch.long else torch.randn_like(v)
                  for k, v in example.items()}
        with torch.no_grad():
            out = model(**inputs)
            with _eager():
                ref = model(**inputs)
        ok, detail = same(ref, out)
        failures += not ok
        print(f"call {i}: {'OK' if ok else 'MISMATCH'} ({detail})")
    print(f"{args.model}: {'OK' if not failures else f'{failures} mismatching call(s)'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
