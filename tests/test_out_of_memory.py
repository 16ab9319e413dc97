"""Running out of memory anywhere in a run is one line, never a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.helpers import RANDOM_BOT
from tests.test_tournament import run


def test_a_run_that_runs_out_of_memory_says_so_in_one_line(tmp_path, monkeypatch):
    from goatarena.cli._common import OUT_OF_MEMORY
    from goatarena.running.runner import Runner

    async def exhausted(self: Runner) -> None:
        raise MemoryError

    monkeypatch.setattr(Runner, "run", exhausted)
    config = tmp_path / "t.toml"
    config.write_text(
        f'name = "t"\nsandbox = "none"\n[bots]\na = "{RANDOM_BOT}"\nb = "{RANDOM_BOT}"\n'
        '[[games]]\nname = "mountain-goats"\n'
    )
    result = run("run", str(config), "--db", str(tmp_path / "t.sqlite"), "--quiet")
    assert result.exit_code == 2
    assert result.output.strip() == OUT_OF_MEMORY
    assert "Traceback" not in result.output


def test_a_referee_process_that_runs_out_of_memory_says_so_in_one_line():
    program = textwrap.dedent(
        """
        from goatarena.running import procs

        async def exhausted(forward_logs):
            raise MemoryError

        procs.serve = exhausted
        procs.main()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "goatarena: a referee process ran out of memory"
