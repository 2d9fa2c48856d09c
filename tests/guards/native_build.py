"""Load ``autograph._native``, building it into a temporary directory when not installed."""
from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_or_build():
    """The extension module, or None when it is not built and no C compiler is available."""
    try:
        from autograph import _native
        return _native
    except ImportError:
        pass
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    sources = sorted(glob.glob(str(ROOT / "native" / "*.c")))
    if not cc or not sources:
        return None
    out = Path(tempfile.mkdtemp(prefix="autograph-native-")) / ("_native" + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = [cc, "-O2", "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"], *sources, "-o", str(out)]
    if subprocess.run(cmd, capture_output=True).returncode != 0:
        return None
    spec = importlib.util.spec_from_file_location("autograph._native", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["autograph._native"] = module
    import autograph
    autograph._native = module
    from autograph.guards import extension
    extension.load.cache_clear()
    return module
