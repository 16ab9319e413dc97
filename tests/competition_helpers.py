"""What the competition's tests share: a competition served by ``goatarena serve`` in a
process of its own, as an organiser starts it."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def served(folder: Path, file: str = "class.toml") -> Iterator[str]:
    """Serve the competition of ``folder/file`` on a free port while the block runs; the
    block gets the site's address (``http://127.0.0.1:PORT``)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "serve", file, "--port", "0"],
        stderr=subprocess.PIPE, text=True, cwd=folder,
    )  # fmt: skip
    try:
        assert child.stderr is not None
        line = child.stderr.readline()
        found = re.search(r"http://[0-9.:]+", line)
        assert found, line
        yield found.group(0)
    finally:
        child.terminate()
        child.wait(timeout=10)
