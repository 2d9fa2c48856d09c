"""Build hooks that setup.cfg cannot express.

1. Ship ``autograph-startup.pth`` into site-packages, for normal *and* editable
   (``pip install -e .``) installs: it activates the import hook at interpreter start
   when ``AUTOGRAPH_PACKAGES`` or ``AUTOGRAPH_CONFIG`` is set.
2. Build the optional C extension ``autograph._native`` from ``native/*.c`` when those
   sources exist. Without a compiler the build prints one line and carries on:
   autograph then uses its pure-Python guard checks.
"""
from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
PTH_NAME = "autograph-startup.pth"
PTH_SOURCE = HERE / "autograph" / "hook" / PTH_NAME


class build_py_with_startup_pth(build_py):
    """Also copies the start-up ``.pth`` to the root of the build (= site-packages)."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            self.copy_file(str(PTH_SOURCE), os.path.join(self.build_lib, PTH_NAME), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not self.editable_mode:
            outputs.append(os.path.join(self.build_lib, PTH_NAME))
        return outputs


class _StrategyWithStartupPth:
    """Wraps setuptools' editable strategy: same wheel, plus the start-up ``.pth``."""

    def __init__(self, strategy):
        self.strategy = strategy

    def __call__(self, wheel, files, mapping):
        self.strategy(wheel, files, mapping)
        wheel.writestr(PTH_NAME, PTH_SOURCE.read_bytes())

    def __enter__(self):
        self.strategy.__enter__()
        return self

    def __exit__(self, *exc_info):
        return self.strategy.__exit__(*exc_info)


cmdclass: dict[str, type] = {"build_py": build_py_with_startup_pth}

try:
    from setuptools.command.editable_wheel import editable_wheel
except ImportError:  # setuptools < 64: no PEP 660 editable wheels
    editable_wheel = None

if editable_wheel is not None and hasattr(editable_wheel, "_select_strategy"):

    class editable_wheel_with_startup_pth(editable_wheel):
        def _select_strategy(self, *args, **kwargs):
            return _StrategyWithStartupPth(super()._select_strategy(*args, **kwargs))

    cmdclass["editable_wheel"] = editable_wheel_with_startup_pth
elif editable_wheel is not None:
    print("autograph setup: this setuptools cannot add autograph-startup.pth to editable installs; "
          "AUTOGRAPH_PACKAGES=... python script.py will not activate autograph (python -m autograph run still works)")


class optional_build_ext(build_ext):
    """A failed build of the C fast path is reported in one line, never fatal."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, missing headers, ...
            self._report(exc)

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._report(exc)

    @staticmethod
    def _report(exc: Exception) -> None:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        print(f"autograph setup: optional C extension autograph._native not built ({reason}); "
              "using the pure-Python guard checks", file=sys.stderr)


native_sources = sorted(glob.glob("native/*.c", root_dir=HERE))
ext_modules = []
if native_sources:
    ext_modules.append(Extension("autograph._native", sources=native_sources, optional=True))
    cmdclass["build_ext"] = optional_build_ext

setup(cmdclass=cmdclass, ext_modules=ext_modules)
