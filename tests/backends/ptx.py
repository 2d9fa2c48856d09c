"""Compile generated CUDA kernel sources to PTX with triton's real compiler (no GPU needed)."""
from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path


def compile_kernels_to_ptx(record: dict, directory: Path) -> list[list[str]]:
    """Compile every kernel of a ``TritonBackend._generate(..., gpu=True)`` record for sm_90.

    Parameters without a recorded signature are ``i32`` when they are element counts or
    symbolic sizes (``xnumel``, ``rnumel``, ``s0``...) and ``constexpr`` otherwise (block sizes:
    the autotune config's values). Asserts each kernel's entry is in the PTX; returns the
    kernels' parameter names.
    """
    import triton
    from triton.backends.compiler import GPUTarget

    params_of = []
    for name, source in record["kernels"]:
        path = directory / f"{name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        autotuner = getattr(module, name)
        params = list(inspect.signature(autotuner.fn.fn).parameters)
        signature = dict(record["signatures"][name])
        constexprs = {}
        for i, p in enumerate(params):
            if p in signature:
                continue
            if p in ("xnumel", "rnumel") or (p[:1] == "s" and p[1:].isdigit()):
                signature[p] = "i32"
            else:
                signature[p] = "constexpr"
                constexprs[(i,)] = autotuner.configs[0].kwargs[p]
        compiled = triton.compile(triton.compiler.ASTSource(fn=autotuner.fn, signature=signature, constexprs=constexprs),
                                  target=GPUTarget("cuda", 90, 32))
        assert ".entry " + name in compiled.asm["ptx"]
        params_of.append(params)
    return params_of
