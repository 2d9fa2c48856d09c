"""The versions the package claims are the versions CI tests (setup.cfg vs scripts/test)."""
from __future__ import annotations

import configparser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

REPO = Path(__file__).resolve().parents[1]


def _setup_cfg() -> configparser.ConfigParser:
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    return cfg


def _requirements() -> dict[str, Requirement]:
    lines = _setup_cfg()["options"]["install_requires"].splitlines()
    reqs = [Requirement(line.strip()) for line in lines if line.strip() and not line.strip().startswith("#")]
    return {r.name.lower(): r for r in reqs}


def test_numpy_is_a_dependency():
    assert "numpy" in _requirements()


def test_torch_range_is_the_tested_minor_release():
    spec = _requirements()["torch"].specifier
    assert all(v in spec for v in ("2.13.0", "2.13.1", "2.13.5")), spec
    assert not any(v in spec for v in ("2.12.1", "2.4.0", "2.14.0")), spec


def test_python_range_has_an_upper_bound_and_matching_classifiers():
    cfg = _setup_cfg()
    spec = SpecifierSet(cfg["options"]["python_requires"])
    assert "3.11.9" in spec and "3.10.0" not in spec and "3.13.0" not in spec
    versions = [line.rsplit("::", 1)[1].strip() for line in cfg["metadata"]["classifiers"].splitlines()
                if line.strip().startswith("Programming Language :: Python :: 3.")]
    assert versions and all(f"{v}.0" in spec for v in versions)
    assert all(f"3.{minor}.0" not in spec or f"3.{minor}" in versions for minor in range(8, 16))
