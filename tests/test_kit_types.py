"""The kits' generated types are what kits/generate.py makes of the schema now.

The generator runs quicktype, pinned in kits/package.json; this test installs it with
``npm ci`` into kits/node_modules (git-ignored) when npm is there, and skips, saying
why, when it is not. CI has npm and the registry.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT

KITS = ROOT / "kits"


@pytest.mark.slow
def test_regenerating_the_schema_and_the_kit_types_changes_nothing():
    if not (KITS / "node_modules" / ".bin" / "quicktype").exists():
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed: quicktype, which generates the kit types, needs it")
        installed = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=KITS,
            capture_output=True,
            text=True,
            check=False,
        )
        if installed.returncode != 0:
            pytest.skip(f"npm ci could not install quicktype: {installed.stderr.strip()[-300:]}")
    done = subprocess.run(
        [sys.executable, str(KITS / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, (
        f"generated files are stale; run 'python kits/generate.py':\n{done.stdout}{done.stderr}"
    )
