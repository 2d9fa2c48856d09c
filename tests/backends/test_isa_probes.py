"""Inductor's CPU ISA check remembers the load probes that succeeded, per cache directory, and
answers them in the next process; failures, changed libraries and damaged files probe again."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from torch._inductor import cpu_vec_isa

from autograph.backends import isa_probes

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def probing(monkeypatch, tmp_path):
    """The check as a function probing one library per ISA (torch's caches untouched), with a
    counting stand-in for the ``python -c`` probe; returns (run the check, probes made, answers)."""
    library = tmp_path / "probe.so"
    library.write_bytes(b"library")
    isas = [cpu_vec_isa.VecAVX2(), cpu_vec_isa.VecAVX512()]
    made: list[str] = []
    answer = {"ok": True}

    def probe(isa, output_path):
        made.append(str(isa))
        return answer["ok"]

    def check():
        return [str(isa) for isa in isas if cpu_vec_isa.VecISA._probe_load(isa, str(library))]

    monkeypatch.setattr(cpu_vec_isa.VecISA, "_probe_load", probe)
    monkeypatch.setattr(cpu_vec_isa, "valid_vec_isa_list", check)
    return library, made, answer


def test_a_probe_that_succeeded_is_answered_from_the_cache(probing, tmp_path):
    library, made, _ = probing
    cache = tmp_path / "cache"
    assert isa_probes.valid_isas(cache) == ["avx2", "avx512"]
    assert made == ["avx2", "avx512"]
    assert isa_probes.valid_isas(cache) == ["avx2", "avx512"]
    assert made == ["avx2", "avx512"]  # no probe the second time
    files = sorted((cache / "isa-probes").iterdir())
    assert len(files) == 2 and json.loads(files[0].read_text())["library"][0] == str(library)


def test_the_probe_is_put_back_after_the_check(probing, tmp_path):
    _, made, _ = probing
    before = cpu_vec_isa.VecISA.__dict__["_probe_load"]
    isa_probes.valid_isas(tmp_path / "cache")
    assert cpu_vec_isa.VecISA.__dict__["_probe_load"] is before


def test_a_failed_probe_is_not_remembered(probing, tmp_path):
    _, made, answer = probing
    answer["ok"] = False
    assert isa_probes.valid_isas(tmp_path / "cache") == []
    assert isa_probes.valid_isas(tmp_path / "cache") == []
    assert made == ["avx2", "avx512", "avx2", "avx512"]
    assert not (tmp_path / "cache" / "isa-probes").exists()


def test_a_rebuilt_library_is_probed_again(probing, tmp_path):
    library, made, _ = probing
    isa_probes.valid_isas(tmp_path / "cache")
    library.write_bytes(b"another library")  # inductor built it again: another size and time
    isa_probes.valid_isas(tmp_path / "cache")
    assert made == ["avx2", "avx512"] * 2


def test_another_cache_directory_probes_again(probing, tmp_path):
    _, made, _ = probing
    isa_probes.valid_isas(tmp_path / "one")
    isa_probes.valid_isas(tmp_path / "two")
    assert made == ["avx2", "avx512"] * 2


def test_no_cache_directory_probes_every_time(probing):
    _, made, _ = probing
    isa_probes.valid_isas(None)
    isa_probes.valid_isas(None)
    assert made == ["avx2", "avx512"] * 2


@pytest.mark.parametrize("damage", ["altered", "empty", "another description"])
def test_a_damaged_record_is_a_miss_and_is_replaced(probing, tmp_path, damage):
    _, made, _ = probing
    cache = tmp_path / "cache"
    isa_probes.valid_isas(cache)
    for f in (cache / "isa-probes").iterdir():
        text = f.read_text()
        if damage == "altered":
            f.write_text(text.replace("avx", "sse"))
        elif damage == "empty":
            f.write_text("")
        else:
            f.write_text(json.dumps({**json.loads(text), "cpu": ["another machine"]}, sort_keys=True))
    isa_probes.valid_isas(cache)
    assert made == ["avx2", "avx512"] * 2
    isa_probes.valid_isas(cache)  # the probes wrote the records again
    assert made == ["avx2", "avx512"] * 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_cache_probes_and_remembers_nothing(probing, tmp_path):
    _, made, _ = probing
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    try:
        assert isa_probes.valid_isas(cache) == ["avx2", "avx512"]
        assert isa_probes.valid_isas(cache) == ["avx2", "avx512"]
    finally:
        cache.chmod(0o755)
    assert made == ["avx2", "avx512"] * 2


def test_an_unwritable_cache_probes_and_remembers_nothing(probing, tmp_path):
    _, made, _ = probing
    cache = tmp_path / "cache"
    cache.write_text("a file where the directory would be")
    assert isa_probes.valid_isas(cache) == ["avx2", "avx512"]
    assert isa_probes.valid_isas(cache) == ["avx2", "avx512"]
    assert made == ["avx2", "avx512"] * 2


def test_the_inductor_backends_check_on_the_programs_thread_uses_the_cache(monkeypatch, tmp_path):
    """``prepare_inductor`` (before the inductor backend's first CPU load or compile) checks with
    the backend's cache directory."""
    import threading

    from autograph.backends import inductor_preload

    seen = []
    monkeypatch.setattr(inductor_preload, "_done", False)
    monkeypatch.setattr(inductor_preload, "_isa_known", lambda module: False)
    monkeypatch.setattr(isa_probes, "valid_isas",
                        lambda cache_dir: seen.append((cache_dir, threading.current_thread().name)) or [])
    inductor_preload.prepare_inductor(tmp_path)
    assert seen == [(tmp_path, "autograph-isa-check")]


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_loading_a_file_checks_with_the_requests_cache_for_cpu_graphs_only(monkeypatch, tmp_path, device):
    """The loader thread of ``auto`` (and the compile worker) check with the request's cache."""
    import torch

    from autograph.backends import inductor_artifacts

    def f(x):
        return torch.sin(x) + 1

    gm = torch.fx.symbolic_trace(f)
    req = inductor_artifacts.request(gm, [torch.ones(3, device=device)], tmp_path)
    seen = []
    monkeypatch.setattr(isa_probes, "valid_isas", lambda cache_dir: seen.append(cache_dir) or [])
    monkeypatch.setattr(inductor_artifacts, "load_file", lambda *args: "loaded")
    assert inductor_artifacts.load_request(req["path"], inductor_artifacts.serialize(req)) == "loaded"
    assert seen == ([tmp_path] if device == "cpu" else [])


_PROCESS = textwrap.dedent("""
    import sys
    from pathlib import Path
    import torch._inductor.codecache
    from torch._inductor import cpu_vec_isa
    from autograph.backends import isa_probes
    real = cpu_vec_isa.VecISA._probe_load
    probes = []
    def counted(isa, path):
        probes.append(str(isa))
        return real(isa, path)
    cpu_vec_isa.VecISA._probe_load = counted
    found = [str(isa) for isa in isa_probes.valid_isas(Path(sys.argv[1]))]
    assert cpu_vec_isa.VecISA._probe_load is counted
    print(len(probes), found)
""")


@pytest.mark.slow
def test_the_next_process_runs_no_load_probe_and_finds_the_same_isas(tmp_path):
    """Real torch, real probes: the second interpreter on the same cache makes none."""
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")

    def run() -> tuple[int, str]:
        proc = subprocess.run([sys.executable, "-c", _PROCESS, str(tmp_path / "cache")], env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        count, _, found = proc.stdout.strip().partition(" ")
        return int(count), found

    probes, found = run()
    if probes == 0:
        pytest.skip("inductor finds no vector ISA to probe on this machine")
    assert run() == (0, found)
