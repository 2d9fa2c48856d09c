"""Compile generated CUDA kernel sources to PTX with triton's real compiler (no GPU needed).

The compile runs in a child process of its own. Triton decides once per process, when it
is first imported, whether ``@triton.jit`` makes real JITFunctions or interpreter ones
(``TRITON_INTERPRET``), and it keeps its caches on disk (``TRITON_CACHE_DIR``...): a test
that flips the variable inside a process that already imported triton in interpreter
mode, or that shares the caches of the rest of the suite, passes or fails depending on
what ran before it. The child starts with every ``TRITON_*`` variable of the caller
removed, interpreter mode off, and its own cache, dump and override directories.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TIMEOUT_SECONDS = 600


def ptx_environment(directory: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The child's environment: ``base`` (default ``os.environ``) without any ``TRITON_*``
    variable, with triton's home and caches under ``directory``."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not k.startswith("TRITON_")}
    home = directory / "triton-home"
    env.update(TRITON_HOME=str(home), TRITON_CACHE_DIR=str(home / "cache"),
               TRITON_DUMP_DIR=str(home / "dump"), TRITON_OVERRIDE_DIR=str(home / "override"))
    return env


def compile_kernels_to_ptx(record: dict, directory: Path, *, config: int = 0,
                           aligned: bool = False) -> list[list[str]]:
    """Compile every kernel of a ``TritonBackend._generate(..., gpu=True)`` record for sm_90.

    Parameters without a recorded signature are ``i32`` when they are element counts or
    symbolic sizes (``xnumel``, ``rnumel``, ``s0``...) and ``constexpr`` otherwise (block sizes:
    the values and ``num_warps`` of autotune config number ``config``, clipped to the last).
    ``aligned``: pointers and sizes are known to be multiples of 16, as triton's launcher
    specializes them at run time for 16-byte aligned tensors and sizes divisible by 16 (what
    lets it vectorize loads: without it every masked access is scalar). Asserts each kernel's
    entry is in the PTX, written to ``directory/<kernel>.ptx``; returns the kernels' parameter names.
    """
    directory.mkdir(parents=True, exist_ok=True)
    request = directory / "ptx-request.json"
    request.write_text(json.dumps({"kernels": [list(k) for k in record["kernels"]],
                                   "signatures": record["signatures"], "config": config, "aligned": aligned}))
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), str(request), str(directory)],
                          env=ptx_environment(directory), capture_output=True, text=True,
                          timeout=TIMEOUT_SECONDS)
    assert proc.returncode == 0, f"PTX compile failed (status {proc.returncode}):\n{proc.stderr[-6000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def load_kernel_module(directory: Path, name: str, source: str):
    """Kernel ``name``'s generated module written to ``directory`` and imported: ``(autotuner,
    its kernel's parameter names)``. Import triton in non-interpreting mode first."""
    import importlib.util
    import inspect

    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    autotuner = getattr(module, name)
    return autotuner, list(inspect.signature(autotuner.fn.fn).parameters)


def _compile_in_this_process(record: dict, directory: Path) -> list[list[str]]:
    """The child's work: triton is imported here for the first time, not interpreting."""
    import triton
    from triton.backends.compiler import GPUTarget

    assert not triton.knobs.runtime.interpret, "the PTX child must not run in interpreter mode"
    params_of = []
    for name, source in record["kernels"]:
        autotuner, params = load_kernel_module(directory, name, source)
        config = autotuner.configs[min(record.get("config", 0), len(autotuner.configs) - 1)]
        signature = dict(record["signatures"][name])
        constexprs, attrs = {}, {}
        for i, p in enumerate(params):
            if p in signature:
                if record.get("aligned"):
                    attrs[(i,)] = [["tt.divisibility", 16]]
                continue
            if p in ("xnumel", "ynumel", "rnumel") or (p[:1] == "s" and p[1:].isdigit()):
                signature[p] = "i32"
                if record.get("aligned"):
                    attrs[(i,)] = [["tt.divisibility", 16]]
            else:
                signature[p] = "constexpr"
                constexprs[(i,)] = config.kwargs[p]
        source = triton.compiler.ASTSource(fn=autotuner.fn, signature=signature, constexprs=constexprs, attrs=attrs)
        options = {"num_warps": config.num_warps} if record.get("config", 0) else {}
        compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options)
        assert ".entry " + name in compiled.asm["ptx"], f"{name}: no entry in the PTX"
        (directory / f"{name}.ptx").write_text(compiled.asm["ptx"])  # for tests that read the code
        params_of.append(params)
    return params_of


if __name__ == "__main__":
    request_path, work_dir = Path(sys.argv[1]), Path(sys.argv[2])
    result = _compile_in_this_process(json.loads(request_path.read_text()), work_dir)
    print(json.dumps(result))
