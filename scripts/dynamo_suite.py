"""PyTorch's own Dynamo unit tests, run against autograph: one line per test, then totals.

    python scripts/dynamo_suite.py                     # every file of tests/upstream/dynamo/
    python scripts/dynamo_suite.py FILE [FILE...]      # these vendored files
    python scripts/dynamo_suite.py -k partial          # tests whose id matches a regex
    python scripts/dynamo_suite.py --json suite.json   # also write every outcome as JSON
    python scripts/dynamo_suite.py --reference         # the same tests under torch.compile itself

Classes (see autograph/testing/dynamo_adapter.py): strict (values and Dynamo's graph/op
counts), values (values right, a count differs), fallback (right only because a capture
failed and the function ran eagerly), wrong (a value or exception differs from eager),
out-of-scope (tests Dynamo's own machinery), skipped (needs CUDA).

Exit status: 1 when any test of any file is ``wrong`` (CI runs this), else 0.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

UPSTREAM = ROOT / "tests" / "upstream" / "dynamo"


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _upstream_commit(path: Path) -> str:
    """The upstream commit the README next to the vendored file names for it (its table row)."""
    readme = path.parent / "README.md"
    found = re.search(rf"`{re.escape(path.name)}`[^\n]*?`([0-9a-f]{{40}})`", readme.read_text()) \
        if readme.exists() else None
    return found.group(1)[:12] if found else "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="vendored Dynamo test files (default: every test_*.py "
                                                 "of tests/upstream/dynamo)")
    parser.add_argument("-k", dest="pattern", help="only tests whose Class.test_name matches this regex")
    parser.add_argument("--json", dest="json_path", help="write the outcomes and totals here")
    parser.add_argument("--reference", action="store_true",
                        help="run under torch.compile itself (no routing) for comparison")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per test (default 120)")
    parser.add_argument("-v", "--verbose", action="store_true", help="let the tests print")
    parser.add_argument("--markdown", help="also write the totals and the failure clusters as Markdown here "
                                           "(the generated part of docs/coverage.md)")
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    paths = [Path(f).resolve() for f in args.files] or sorted(UPSTREAM.glob("test_*.py"))
    reports = [_run_file(path, args) for path in paths]
    if len(reports) > 1:
        print(_all_files_line([r[1] for r in reports]))
    if args.markdown:
        parts = [_markdown_table(reports, torch.__version__)] if len(reports) > 1 else []
        Path(args.markdown).write_text("\n".join(parts + [_markdown(*r, torch.__version__) for r in reports]))
    if args.json_path:
        data = [_json(*r, args.reference, torch.__version__) for r in reports]
        text = json.dumps(data[0] if len(data) == 1 else {"files": data}, indent=1)
        Path(args.json_path).write_text(text.replace(str(ROOT) + "/", "") + "\n")  # repository-relative
    return 1 if any(counts["wrong"] for _, counts, _, _, _ in reports) else 0


def _run_file(path: Path, args) -> tuple:
    """Classify every test of one vendored file, print one line per test and the totals."""
    import torch

    from autograph.testing import dynamo_adapter as da

    module = da.load_module(path)
    tests = da.collect(module, args.pattern)
    t0 = time.perf_counter()
    outcomes = []
    for test in tests:
        o = da.classify(test, reference=args.reference, timeout=args.timeout, quiet=not args.verbose)
        outcomes.append(o)
        print(f"{o.klass:<12} {o.name}  {o.reason}".rstrip(), flush=True)
    seconds = time.perf_counter() - t0
    counts = da.totals(outcomes)
    n = counts["in_scope"] or 1
    who = "torch.compile (reference)" if args.reference else "autograph"
    print(f"\n{who} on {path.name} (upstream commit {_upstream_commit(path)}), torch {torch.__version__}, "
          f"autograph commit {_git_commit()}, {datetime.date.today().isoformat()}, {seconds:.0f} s")
    print(f"  in scope {counts['in_scope']} (of {counts['total']}; out of scope {counts['out-of-scope']}, "
          f"skipped {counts['skipped']})")
    correct = counts["strict"] + counts["values"]
    print(f"  strict pass {counts['strict']} ({100 * counts['strict'] / n:.1f}%), values correct "
          f"{correct + counts['fallback']} (of which fell back {counts['fallback']}, "
          f"{100 * counts['fallback'] / n:.1f}%), values but counts differ {counts['values']}, "
          f"wrong {counts['wrong']}\n", flush=True)
    groups = da.clusters(outcomes)
    if groups:
        print("  not strict, by cause:")
        for name, names in groups.items():
            print(f"    {len(names):4d}  {name}")
        print()
    return outcomes, counts, groups, path, seconds


def _json(outcomes, counts, groups, path: Path, seconds: float, reference: bool, torch_version: str) -> dict:
    from autograph.testing import dynamo_adapter as da

    return {"file": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
            "upstream_commit": _upstream_commit(path), "torch": torch_version,
            "autograph_commit": _git_commit(), "date": datetime.date.today().isoformat(),
            "reference": reference, "seconds": round(seconds, 1), "totals": counts,
            "scope_rules": [{"name": r.name, "pattern": r.pattern, "why": r.why} for r in da.SCOPE_RULES],
            "clusters": groups, "tests": [o.as_dict() for o in outcomes]}


def _summed(counts_per_file: list[dict]) -> dict:
    keys = ("in_scope", "strict", "values", "fallback", "wrong")
    return {k: sum(c[k] for c in counts_per_file) for k in keys}


def _all_files_line(counts_per_file: list[dict]) -> str:
    total = _summed(counts_per_file)
    n = total["in_scope"] or 1
    return (f"all {len(counts_per_file)} files: strict {total['strict']} of {total['in_scope']} in scope "
            f"({100 * total['strict'] / n:.1f}%), counts differ {total['values']}, fell back "
            f"{total['fallback']} ({100 * total['fallback'] / n:.1f}%), wrong {total['wrong']}")


def _markdown_table(reports: list[tuple], torch_version: str) -> str:
    """One row per file and a total row: the table at the top of docs/coverage.md."""
    lines = [f"Measured on autograph commit `{_git_commit()}`, {datetime.date.today().isoformat()}, torch "
             f"{torch_version}, on the 2-core CPU machine.", "",
             "| file | in scope | strict | counts differ | fell back | wrong |", "|---|---|---|---|---|---|"]
    rows = [(f"`{path.name}`", counts) for _, counts, _, path, _ in reports]
    rows.append(("**all**", _summed([counts for _, counts in rows])))
    for name, c in rows:
        n = c["in_scope"] or 1
        lines.append(f"| {name} | {c['in_scope']} | {c['strict']} ({100 * c['strict'] / n:.1f}%) | {c['values']} "
                     f"| {c['fallback']} ({100 * c['fallback'] / n:.1f}%) | {c['wrong']} |")
    return "\n".join(lines + [""])


def _markdown(outcomes, counts, groups, path: Path, seconds: float, torch_version: str) -> str:
    n = counts["in_scope"] or 1
    by_name = {o.name: o for o in outcomes}
    lines = [f"### `{path.name}`", "",
             f"Measured on autograph commit `{_git_commit()}`, {datetime.date.today().isoformat()}, torch "
             f"{torch_version}, `{path.name}` at upstream commit `{_upstream_commit(path)}`, "
             f"{seconds:.0f} s on the 2-core CPU machine.", "",
             "| in scope | strict pass | values correct | of which fell back | values, counts differ | wrong |",
             "|---|---|---|---|---|---|",
             f"| {counts['in_scope']} | {counts['strict']} ({100 * counts['strict'] / n:.1f}%) | "
             f"{counts['strict'] + counts['values'] + counts['fallback']} | {counts['fallback']} "
             f"({100 * counts['fallback'] / n:.1f}%) | {counts['values']} | {counts['wrong']} |", ""]
    for name, names in groups.items():
        lines.append(f"#### {name} ({len(names)})")
        lines.append("")
        for test in names:
            reason = by_name[test].reason
            reason = re.sub(r"^.*?with fullgraph=True: |^\S+: /\S+:\d+: |Remove the construct.*$", "", reason)
            reason = re.sub(r"/\S+/", "", reason).strip()
            lines.append(f"- `{test}`: {reason[:160]}")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
