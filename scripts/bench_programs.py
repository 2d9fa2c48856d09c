"""Whole programs, side by side: plain PyTorch against autograph (auto, inductor) and torch.compile.

Each (workload, mode, variant) runs in a child process of its own with fresh on-disk caches, then
once more on the same caches (the warm start). In the child, two copies of the model take turns
step by step: the variant's copy and a plain twin, so the machine's load hits both alike and the
steady step is reported as a ratio to the twin's.

    python scripts/bench_programs.py                      # the default table (about 15-20 minutes on 2 cores)
    python scripts/bench_programs.py --smoke              # seconds: tiny run, eager variants only
    python scripts/bench_programs.py --runs gpt:train:auto,resnet:infer:inductor
    python scripts/bench_programs.py --runs programs      # tests/programs' training steps (issue 26)

Mode ``program`` times a training program of ``tests/programs`` (``mlp_sgd``, ``cnn_adamw``,
``transformer_amp``, ``eval_loop``: one ``train_step`` as its ``main()`` calls it) with its *training package*
selected through the import hook (``autograph.install``, ``compile_threshold`` 1), or its step
functions wrapped in ``torch.compile`` (variant ``compile``), against a plain twin loaded from
the same file under another module name. Variants ``auto_vs_compile`` and
``inductor_vs_compile`` take ``torch.compile``'s step as the twin instead: the hook's steady
step over torch.compile's, interleaved in one process.

Numbers per run: wrap (``torch.compile(model)``, which imports Dynamo and inductor, or
``autograph.compile``/``install``; timed apart, since the first step does not include it); first
step; time until steady (the variant's own step time summed until its steps stay within 10% of
the steady median); steady step (median of the last steps) and its ratio to the plain twin's;
peak RSS of the child; the warm start's wrap, first step, their sum (what a user waits for before
the first result) and time until steady. ``--warm-repeats N`` takes N warm starts per run, in
turn across the runs after all cold runs, and reports their medians.
``auto`` runs until every background compile has settled (or ``--settle-seconds``) before the
steady steps are taken. The hook variants compile the model with ``autograph.compile`` (the same
capture and backends the import hook uses, without the hook's ``compile_threshold`` warm-up).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_RUNS = (
    "gpt:train:plain,gpt:train:auto,"
    "bert:infer:plain,bert:infer:auto,"
    "llama:train:plain,llama:train:auto,"
    "resnet:infer:plain,resnet:infer:auto,resnet:infer:inductor,resnet:infer:compile,"
    "unet:infer:plain,unet:infer:auto,unet:infer:inductor,unet:infer:compile"
)
SMOKE_RUNS = ("gpt:infer:plain,resnet:train:eager,unet:infer:eager,bert:train:eager,llama:infer:eager,"
              "mlp_sgd:program:eager,cnn_adamw:program:compile_none")
COMPILING = ("auto", "inductor", "compile")
PROGRAMS = ("mlp_sgd", "cnn_adamw", "transformer_amp", "eval_loop")  # tests/programs: a user's training package
PROGRAM_RUNS = ",".join(f"{p}:program:{v}" for p in PROGRAMS for v in ("plain", "auto", "inductor", "compile"))
PROGRAMS_DIR = ROOT / "tests" / "programs"


def _program_module(package: str, name: str | None = None):
    """``tests/programs/<package>/train.py`` loaded under ``name`` (a module the hook never selects),
    or imported as ``<package>.train`` (the selected package) when ``name`` is None."""
    import importlib
    import importlib.util

    if name is None:
        return importlib.import_module(f"{package}.train")
    spec = importlib.util.spec_from_file_location(name, PROGRAMS_DIR / package / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program_step(package: str, m, wrap=None):
    """One training step of the program ``package`` (module ``m``), as in its ``main()``; ``wrap``
    (``torch.compile``) is applied to the step functions the program defines."""
    import torch

    wrap = wrap or (lambda f: f)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    if package == "mlp_sgd":
        model = m.MLP()
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = torch.randn(8, 16, generator=gen), torch.randint(0, 4, (8,), generator=gen)
        step = wrap(m.train_step)
        return lambda: step(model, opt, x, y).item()
    if package == "cnn_adamw":
        model = m.Net()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=1_000_000)
        x, y = torch.randn(8, 1, 8, 8, generator=gen), torch.randint(0, 10, (8,), generator=gen)
        step = wrap(m.train_step)
        return lambda: step(model, opt, sched, x, y).item()
    if package == "transformer_amp":
        model = m.TinyLM()
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        data = torch.randint(0, 32, (2, 4, 9), generator=gen)
        micro, apply = wrap(m.micro_step), wrap(m.apply_step)

        def step():
            losses = [micro(model, b[:, :-1], b[:, 1:], 1024.0, 2).item() for b in data]
            apply(model, opt, 1024.0)
            return losses
        return step
    if package == "eval_loop":
        model = m.Classifier()
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        x, y = torch.randn(8, 12, generator=gen), torch.randint(0, 3, (8,), generator=gen)
        step = wrap(m.train_step)
        return lambda: step(model, opt, x, y).item()
    raise ValueError(f"unknown program {package!r} (known: {', '.join(PROGRAMS)})")


def _program_steps(package: str, variant: str, cache_dir: str | None) -> tuple:
    """The variant's step and its plain twin's, for a program of tests/programs."""
    import torch

    sys.path.insert(0, str(PROGRAMS_DIR))
    variant, _, twin = variant.partition("_vs_")  # auto_vs_compile: the twin is torch.compile's
    if twin == "compile":
        wrap = lambda f: torch.compile(f, backend="inductor")  # noqa: E731
        plain = _program_step(package, _program_module(package, f"compiled_twin_{package}"), wrap)
    else:
        plain = _program_step(package, _program_module(package, f"plain_twin_{package}"))
    if variant == "plain":
        return _program_step(package, _program_module(package, f"plain_{package}")), plain
    if variant.startswith("compile"):  # torch.compile(train_step); compile_none: its eager backend (smoke)
        backend = "eager" if variant == "compile_none" else "inductor"
        wrap = lambda f: torch.compile(f, backend=backend)  # noqa: E731
        return _program_step(package, _program_module(package, f"compiled_{package}"), wrap), plain
    import autograph
    from autograph.settings import Settings

    settings = Settings(backend=variant, compile_threshold=1, **({"cache_dir": cache_dir} if cache_dir else {}))
    autograph.install(package, settings=settings)
    return _program_step(package, _program_module(package)), plain


def _child(workload_name: str, mode: str, variant: str, steps: int, settle_seconds: float) -> dict:
    """One run in this process; returns its numbers."""
    import torch

    torch.set_num_threads(1)  # 2 shared cores: one thread each keeps twins and worker apart
    import autograph
    from autograph.backends import background
    from autograph.testing.programs import WORKLOADS
    from autograph.testing.programs.workloads import infer_step, train_step

    auto = variant.partition("_vs_")[0] == "auto"  # auto_vs_compile too: it waits for its graphs to settle
    if auto:
        background.HOT_CALLS, background.HOT_SECONDS = 2, 0.0  # ask at once: the run is short
    if mode == "program":
        wrap_start = time.perf_counter()  # the program's set-up: the hook's install or torch.compile's wrap
        variant_step, plain_step = _program_steps(workload_name, variant, os.environ.get("AUTOGRAPH_CACHE_DIR"))
        wrap = time.perf_counter() - wrap_start
        model = opt = plain = plain_opt = None
    else:
        w = WORKLOADS[workload_name]
        plain, plain_opt, batch = w.build(seed=0)
        model, opt, _ = w.build(seed=0)
        wrap_start = time.perf_counter()  # torch.compile(model) imports Dynamo and inductor here
        if variant in ("auto", "inductor", "eager"):
            model = autograph.compile(model, backend=variant)
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        elif variant == "compile":
            model = torch.compile(model)
        wrap = time.perf_counter() - wrap_start

    def step(m, o):
        t0 = time.perf_counter()
        if mode == "program":
            (variant_step if m is model else plain_step)()
        elif mode == "train":
            train_step(w, m, o, batch)
        else:
            infer_step(w, m, batch)
        return time.perf_counter() - t0

    times, twin = [], []
    start = time.perf_counter()

    def settled() -> bool:
        return not auto or all(g.state in ("eager", "inductor") for g in background.graphs())

    if mode == "program":
        model, plain = object(), object()  # the two steps are told apart by these
    while True:
        times.append(step(model, opt))
        twin.append(step(plain, plain_opt))
        if len(times) >= steps and settled():
            break
        if auto and time.perf_counter() - start > settle_seconds:
            break
        if auto and not settled():
            time.sleep(0.01)
    tail = max(3, steps // 2)
    rounds = 1
    if mode == "program":  # a program's step is short: time rounds of steps, at least 5 ms each
        rounds = max(1, min(50, int(0.005 / max(statistics.median(twin), 1e-6))))
        tail = max(tail, 40)
    for _ in range(tail):  # the steady steps, after everything has settled (interleaved with the twin's)
        times.append(sum(step(model, opt) for _ in range(rounds)) / rounds)
        twin.append(sum(step(plain, plain_opt) for _ in range(rounds)) / rounds)
    steady = statistics.median(times[-tail:])
    twin_steady = statistics.median(twin[-tail:])
    until = sum(times)
    for i in range(len(times)):
        if all(t <= steady * 1.1 for t in times[i:i + 3]) and statistics.median(times[i:]) <= steady * 1.1:
            until = sum(times[:i])
            break
    return {
        "workload": workload_name, "mode": mode, "variant": variant, "wrap_s": wrap, "first_step_s": times[0],
        "wrap_and_first_step_s": wrap + times[0],
        "until_steady_s": until, "steady_ms": steady * 1e3, "twin_steady_ms": twin_steady * 1e3,
        "ratio_to_plain": steady / twin_steady, "steps": len(times),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "versions": [g.describe() for g in background.graphs()] if auto else [],
    }


SIDE_VARIANTS = ("plain", "auto", "inductor", "compile")


def _graph_counts(w, mode: str, batch: tuple) -> dict:
    """Graphs and operations each side makes of one step: autograph's capture (a counting backend
    that runs the graph as captured) and TorchDynamo's (``CompileCounter``), on fresh models."""
    import torch
    import torch._dynamo.testing
    import autograph
    from autograph.testing.programs.workloads import infer_step, train_step

    hook = {"graphs": 0, "ops": 0}

    def count(gm, example_inputs):
        hook["graphs"] += 1
        hook["ops"] += sum(n.op in ("call_function", "call_method", "call_module") for n in gm.graph.nodes)
        return gm.forward

    counter = torch._dynamo.testing.CompileCounter()
    for wrap in (lambda m: autograph.compile(m, backend=count), lambda m: torch.compile(m, backend=counter)):
        model, _, _ = w.build(seed=0)
        model = wrap(model)
        if mode == "train":
            train_step(w, model, torch.optim.Adam(model.parameters(), lr=1e-3), batch)
        else:
            infer_step(w, model, batch)
    autograph.reset()
    torch._dynamo.reset()
    return {"hook_graphs": hook["graphs"], "hook_ops": hook["ops"],
            "dynamo_graphs": counter.frame_count, "dynamo_ops": counter.op_count}


def _side_by_side(workload_name: str, mode: str, variants: list[str], rounds: int, settle_seconds: float) -> dict:
    """Every variant's model in this one process, their steady steps interleaved round by round
    (in a new random order each round), so the shared machine's load hits them alike; ``auto`` settles
    first. Returns each variant's median and quartiles (ms), ``auto``'s versions and the graph counts."""
    import torch

    torch.set_num_threads(1)
    import autograph
    from autograph.backends import background
    from autograph.testing.programs import WORKLOADS
    from autograph.testing.programs.workloads import infer_step, train_step

    background.HOT_CALLS, background.HOT_SECONDS = 2, 0.0  # ask at once: the run is short
    w = WORKLOADS[workload_name]
    _, _, batch = w.build(seed=0)
    counts = _graph_counts(w, mode, batch)
    models: dict[str, tuple] = {}
    wrap_s: dict[str, float] = {}
    for variant in variants:
        model, opt, _ = w.build(seed=0)
        t0 = time.perf_counter()
        if variant in ("auto", "inductor", "eager"):
            model = autograph.compile(model, backend=variant)
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        elif variant == "compile":
            model = torch.compile(model)
        elif variant != "plain":
            raise ValueError(f"unknown variant {variant!r} (known: plain, eager, auto, inductor, compile)")
        wrap_s[variant] = time.perf_counter() - t0
        models[variant] = (model, opt)

    def step(variant: str) -> float:
        model, opt = models[variant]
        t0 = time.perf_counter()
        if mode == "train":
            train_step(w, model, opt, batch)
        else:
            infer_step(w, model, batch)
        return time.perf_counter() - t0

    from torch._dynamo.utils import counters

    first, cache_hits = {}, {}
    for v in variants:  # inductor's caches: a hit of another variant's compile is the same graph and options
        before = {k: dict(counters[k]) for k in ("inductor", "aot_autograd")}
        first[v] = step(v)
        cache_hits[v] = {f"{k}.{name}": n - before[k].get(name, 0) for k in before
                         for name, n in counters[k].items() if "cache" in name and n != before[k].get(name, 0)}
    start = time.perf_counter()
    while "auto" in models and time.perf_counter() - start < settle_seconds and not all(
            g.state in ("eager", "inductor") for g in background.graphs()):
        step("auto")
        time.sleep(0.01)
    for v in variants:  # one more call each: the trial's last call and first-use costs are behind
        step(v)
    times: dict[str, list[float]] = {v: [] for v in variants}
    shuffle = random.Random(0).shuffle
    order = list(variants)
    for _ in range(rounds):
        shuffle(order)  # not rotated: a rotation keeps each variant's predecessor, whose caches it inherits
        for v in order:
            times[v].append(step(v))
    steady = {}
    for v, ts in times.items():
        q1, median, q3 = statistics.quantiles(ts, n=4) if len(ts) > 1 else (ts[0],) * 3
        steady[v] = {"median_ms": median * 1e3, "q1_ms": q1 * 1e3, "q3_ms": q3 * 1e3}
    out = {"workload": workload_name, "mode": mode, "rounds": rounds, "steady": steady, "first_step_s": first,
           "cache_hits": cache_hits,
           "wrap_s": wrap_s, "versions": [g.describe() for g in background.graphs()] if "auto" in models else [],
           **counts}
    out.update(side_ratios(steady))
    return out


def side_ratios(steady: dict) -> dict:
    """The issue's two ratios from side-by-side medians: ``auto`` over the better of plain and
    torch.compile, and hook inductor over torch.compile (each where its variants ran); the same
    from the lower quartiles (``_q1``), which the load moves less: it only ever adds time, and
    under heavy load a median lands in either mode of a bimodal distribution."""
    out = {}
    for stat, suffix in (("median_ms", ""), ("q1_ms", "_q1")):
        value = {v: s[stat] for v, s in steady.items() if stat in s}
        best = [value[v] for v in ("plain", "compile") if v in value]
        if "auto" in value and best:
            out["auto_over_best" + suffix] = value["auto"] / min(best)
        if "inductor" in value and "compile" in value:
            out["inductor_over_compile" + suffix] = value["inductor"] / value["compile"]
    return out


def side_table(results: list[dict]) -> str:
    """The side-by-side runs as a markdown table: median [lower, upper quartile] per variant."""
    variants = [v for v in SIDE_VARIANTS + ("eager",) if any(v in r.get("steady", {}) for r in results)]
    head = ("| workload | mode | rounds | " + " | ".join(variants) + " | auto ÷ best(plain, compile) "
            "| inductor ÷ compile | same, lower quartiles | graphs (ops): hook / Dynamo | auto's version |\n"
            "|" + "---|" * (len(variants) + 8))
    rows = []
    for r in results:
        if "error" in r:
            rows.append(f"| {r['workload']} | {r['mode']} | error: {r['error'][:80]} |")
            continue
        cells = []
        for v in variants:
            s = r["steady"].get(v)
            cells.append("—" if s is None else f"{s['median_ms']:.3f} [{s['q1_ms']:.3f}, {s['q3_ms']:.3f}]")
        version = "; ".join(d.split(" (")[0] for d in r.get("versions", [])) or "—"
        rows.append(f"| {r['workload']} | {r['mode']} | {r['rounds']} | " + " | ".join(cells)
                    + f" | {_fmt(r.get('auto_over_best'))} | {_fmt(r.get('inductor_over_compile'))} "
                    f"| {_fmt(r.get('auto_over_best_q1'))}, {_fmt(r.get('inductor_over_compile_q1'))} "
                    f"| {r['hook_graphs']} ({r['hook_ops']}) / {r['dynamo_graphs']} ({r['dynamo_ops']}) | {version} |")
    return "\n".join([head, *rows])


def _run_side_by_side(target: str, variants: list[str], rounds: int, settle: float, timeout: float) -> dict:
    """One side-by-side child process (fresh caches of its own)."""
    workload, mode = target.split(":")
    with tempfile.TemporaryDirectory(prefix="bench-programs-side-") as tmp:
        env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(Path(tmp) / "autograph"),
                   TORCHINDUCTOR_CACHE_DIR=str(Path(tmp) / "inductor"),
                   PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--side-child", target, "--variants", ",".join(variants),
               "--rounds", str(rounds), "--settle-seconds", str(settle)]
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"workload": workload, "mode": mode, "error": f"timed out after {timeout:.0f} s"}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"workload": workload, "mode": mode, "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def _run_child(run: str, steps: int, settle: float, caches: Path, timeout: float) -> dict:
    workload, mode, variant = run.split(":")
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(caches / "autograph"),
               TORCHINDUCTOR_CACHE_DIR=str(caches / "inductor"),
               PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", run, "--steps", str(steps),
           "--settle-seconds", str(settle)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"workload": workload, "mode": mode, "variant": variant, "error": f"timed out after {timeout:.0f} s"}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"workload": workload, "mode": mode, "variant": variant,
                "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    out = json.loads(lines[-1])
    out["process_s"] = time.perf_counter() - t0
    return out


def _fmt(x: float | None, unit: str = "", digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}{unit}"


WARM_NUMBERS = ("wrap_s", "first_step_s", "wrap_and_first_step_s", "until_steady_s")


def median_warm_start(starts: list[dict]) -> dict:
    """The warm starts of one run summed up: the median of each number over the starts that
    finished, with every start kept under ``starts`` (an error too)."""
    done = [s for s in starts if "error" not in s]
    out: dict = {"starts": starts}
    if not done:
        out["error"] = starts[-1].get("error", "no warm start") if starts else "no warm start"
        return out
    for key in WARM_NUMBERS:
        values = [s[key] for s in done if key in s]
        if values:
            out[key] = statistics.median(values)
    return out


def table(results: list[dict]) -> str:
    head = ("| workload | mode | variant | wrap | first step | until steady | steady step | ÷ plain twin | peak RSS "
            "| warm: wrap | warm: first step | warm: wrap + first step | warm: until steady |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for r in results:
        if "error" in r:
            rows.append(f"| {r['workload']} | {r['mode']} | {r['variant']} | error: {r['error'][:80]} ||||||||||")
            continue
        warm = r.get("warm") or {}
        rows.append(
            f"| {r['workload']} | {r['mode']} | {r['variant']} | {_fmt(r.get('wrap_s'), ' s')} "
            f"| {_fmt(r['first_step_s'], ' s')} "
            f"| {_fmt(r['until_steady_s'], ' s')} | {_fmt(r['steady_ms'], ' ms')} | {_fmt(r['ratio_to_plain'])} "
            f"| {_fmt(r['peak_rss_mb'], ' MB', 0)} | {_fmt(warm.get('wrap_s'), ' s')} "
            f"| {_fmt(warm.get('first_step_s'), ' s')} | {_fmt(warm.get('wrap_and_first_step_s'), ' s')} "
            f"| {_fmt(warm.get('until_steady_s'), ' s')} |")
    return "\n".join([head, *rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=None, help="workload:mode:variant,... (variants: plain, eager, auto, "
                        "inductor, compile; mode 'program' for tests/programs' training programs), or 'programs', "
                        "'workloads', 'all'")
    parser.add_argument("--smoke", action="store_true", help="a few steps of eager variants: seconds")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--settle-seconds", type=float, default=240.0)
    parser.add_argument("--timeout", type=float, default=420.0, help="per child process")
    parser.add_argument("--warm-repeats", type=int, default=1, help="warm starts per compiling run, taken in "
                        "turn across the runs after every cold run; the table shows their medians (0: none)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--side-by-side", default=None, metavar="WORKLOAD:MODE,...",
                        help="every variant in one process per workload:mode (e.g. resnet:infer,llama:train), their "
                        "steady steps interleaved round by round: median [quartiles] each, auto ÷ the better of plain "
                        "and torch.compile, hook inductor ÷ torch.compile, graph counts")
    parser.add_argument("--variants", default=",".join(SIDE_VARIANTS), help="the variants of --side-by-side")
    parser.add_argument("--rounds", type=int, default=200, help="interleaved rounds of --side-by-side")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--side-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    # 30 steps: the steady step is the median of the last 15 (the last 6 of 12 let one burst of
    # the shared machine's load decide it: plain against its own twin gave 0.22 to 13.65)
    steps = args.steps or (3 if args.smoke else 30)
    if args.side_child:
        workload, mode = args.side_child.split(":")
        result = _side_by_side(workload, mode, args.variants.split(","), args.rounds, args.settle_seconds)
        print(json.dumps(result), flush=True)
        return 0
    if args.side_by_side:
        t0 = time.perf_counter()
        results = []
        for target in args.side_by_side.split(","):
            results.append(_run_side_by_side(target, args.variants.split(","), args.rounds, args.settle_seconds,
                                             args.timeout))
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
        print(f"# {platform.node()}: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {time.perf_counter() - t0:.0f} s in all")
        print(side_table(results))
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
        return 0 if all("error" not in r for r in results) else 1
    if args.child:
        workload, mode, variant = args.child.split(":")
        print(json.dumps(_child(workload, mode, variant, steps, args.settle_seconds)), flush=True)
        return 0
    named = {"programs": PROGRAM_RUNS, "workloads": DEFAULT_RUNS, "all": f"{DEFAULT_RUNS},{PROGRAM_RUNS}"}
    runs = named.get(args.runs, args.runs or (SMOKE_RUNS if args.smoke else DEFAULT_RUNS)).split(",")
    results = []
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:  # each run's caches live until its warm starts are done
        caches = []
        for run in runs:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-programs-")))
            result = _run_child(run, steps, args.settle_seconds, tmp, args.timeout)
            results.append(result)
            caches.append(tmp)
            print(json.dumps(result), file=sys.stderr, flush=True)
        warm = [i for i, run in enumerate(runs) if run.split(":")[2] in COMPILING and "error" not in results[i]]
        starts: dict[int, list[dict]] = {i: [] for i in warm}
        for _ in range(args.warm_repeats):  # in turn, so the machine's load hits every run alike
            for i in warm:
                starts[i].append(_run_child(runs[i], steps, args.settle_seconds, caches[i], args.timeout))
                print(json.dumps({"warm": runs[i], **starts[i][-1]}), file=sys.stderr, flush=True)
        for i in warm:
            if starts[i]:
                results[i]["warm"] = median_warm_start(starts[i])
    print(f"# {platform.node()}: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {time.perf_counter() - t0:.0f} s in all")
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0 if all("error" not in r and "error" not in r.get("warm", {}) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
