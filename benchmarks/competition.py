"""A competition taking submissions (``make bench`` runs it): ``goatarena serve FILE`` on a
fresh competition of Mountain Goats, and the Python kit submitted with ``goatarena
submit`` as an entrant would, on loopback only.

1. Time from ``submit`` to an active version (uploaded, built in the sandbox,
   validated), ``--trials`` times one after another. Goal: within 30 s.
2. The same for compiled kits (``--kits``, Rust and Java by default): each kit's starter
   from ``goatarena new-bot``, cleaned, built on the server from its sources (every build
   is a fresh folder; Rust's first waits for the competition's dependency cache to be
   compiled, later ones start from a copy of it). Goal: within 3 minutes. A kit whose
   toolchain check (its kit.toml) fails is reported as skipped.
3. A burst: ``--entrants`` entrants at once, each submitting ``--each`` times in a row
   (builds and validations run one at a time on the server): how long until every one
   is active, and that none is lost.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

KITS = Path(__file__).resolve().parent.parent / "goatarena" / "kits"
KIT = KITS / "python"
FILE = """\
name = "bench"
format = "ladder"
[time]
move_ms = 300
[bots]
random = "builtin:random"
[competition]
languages = ["python", "java", "rust", "cpp", "go", "typescript"]
per_day = 1000
active_versions = 1
compare_games = 0
[[games]]
name = "mountain-goats"
"""
GOAL_S = 30.0
COMPILED_GOAL_S = 180.0


def goatarena(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goatarena", *args],
        cwd=folder, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip


def submit(
    folder: Path, url: str, token: str, bot: str = "mybot", language: str = "python"
) -> tuple[float, str]:
    began = time.perf_counter()
    done = goatarena(folder, "submit", url, bot, "--token", token, "--language", language)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    return time.perf_counter() - began, last if done.returncode == 0 else f"FAILED {last}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--entrants", type=int, default=4)
    parser.add_argument("--each", type=int, default=2)
    parser.add_argument("--kits", default="rust,java", help="compiled kits to time, by comma")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="goatarena-bench-competition-") as scratch:
        folder = Path(scratch)
        (folder / "bench.toml").write_text(FILE)
        shutil.copytree(KIT, folder / "mybot")
        kits = [kit for kit in options.kits.split(",") if kit]
        names = ["first", *kits, *(f"entrant{n}" for n in range(options.entrants))]
        tokens = {
            name: goatarena(folder, "entrant", "add", "bench.toml", name).stdout.split()[-1]
            for name in names
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "goatarena", "serve", "bench.toml", "--port", "0"],
            cwd=folder, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert server.stderr is not None
            found = re.search(r"http://[0-9.:]+", server.stderr.readline())
            assert found, "the server did not start"
            url = found.group(0)
            times = []
            for _ in range(options.trials):
                seconds, outcome = submit(folder, url, tokens["first"])
                times.append(seconds)
                print(f"submit to active: {seconds:5.1f} s ({outcome})")
            verdict = "met" if max(times) <= GOAL_S else "MISSED"
            print(f"median {statistics.median(times):.1f} s, worst {max(times):.1f} s:"
                  f" goal {GOAL_S:g} s {verdict}")  # fmt: skip
            for kit in kits:
                compiled(folder, url, tokens[kit], kit, options.trials)

            def entrant(name: str) -> list[tuple[float, str]]:
                # One entrant's uploads follow each other (the server takes one at a time
                # from each); the entrants' run at once.
                return [submit(folder, url, tokens[name]) for _ in range(options.each)]

            burst = names[1 + len(kits) :]
            jobs = [name for name in burst for _ in range(options.each)]
            began = time.perf_counter()
            with ThreadPoolExecutor(max_workers=options.entrants) as pool:
                outcomes = [done for each in pool.map(entrant, burst) for done in each]
            whole = time.perf_counter() - began
            failed = [outcome for _, outcome in outcomes if outcome.startswith("FAILED")]
            print(f"burst: {len(jobs)} submissions from {options.entrants} entrants at once:"
                  f" all done in {whole:.1f} s ({whole / len(jobs):.1f} s each),"
                  f" {len(failed)} failed or lost")  # fmt: skip
            for outcome in failed:
                print(f"  {outcome}")
        finally:
            server.terminate()
            server.wait(timeout=10)


def compiled(folder: Path, url: str, token: str, kit: str, trials: int) -> None:
    """Time ``kit``'s starter from ``submit`` to active, built from its sources alone."""
    check = tomllib.loads((KITS / kit / "kit.toml").read_text())["toolchain"]["check"]
    if subprocess.run(["sh", "-c", check], capture_output=True, check=False).returncode:
        print(f"{kit}: skipped: its toolchain check fails here ({check})")
        return
    made = goatarena(folder, "new-bot", kit, f"starter-{kit}")
    if made.returncode != 0:
        print(f"{kit}: skipped: new-bot failed: {made.stderr.strip()[-200:]}")
        return
    subprocess.run(["make", "clean"], cwd=folder / f"starter-{kit}", capture_output=True)
    times = []
    for _ in range(max(1, min(trials, 2))):
        seconds, outcome = submit(folder, url, token, f"starter-{kit}", kit)
        times.append(seconds)
        print(f"{kit} submit to active: {seconds:5.1f} s ({outcome})")
    verdict = "met" if max(times) <= COMPILED_GOAL_S else "MISSED"
    print(f"{kit}: worst {max(times):.1f} s: goal {COMPILED_GOAL_S:g} s {verdict}")


if __name__ == "__main__":
    main()
