"""Whether this machine can build a starter kit: its ``kit.toml``'s toolchain check.

Every kit's ``kit.toml`` names a shell check that exits 0 when the toolchain is present
and the Debian packages that install it. ``new-bot`` runs the check after copying the
kit, so that a missing compiler or library is named with the one command that installs
it, rather than found by ``make`` as ``go: No such file or directory``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

CHECK_TIMEOUT_S = 60.0
"""Long enough for a cold ``javac -version`` or ``cargo --version`` on a loaded machine."""


@dataclass(frozen=True)
class Toolchain:
    """A kit's toolchain: the check that says it is present and what installs it."""

    title: str
    check: str
    apt: tuple[str, ...]

    @classmethod
    def from_kit(cls, kit: Path) -> Toolchain:
        """The toolchain ``kit/kit.toml`` describes."""
        with (kit / "kit.toml").open("rb") as file:
            data = tomllib.load(file)
        toolchain = data.get("toolchain", {})
        return cls(
            title=str(data.get("title", kit.name)),
            check=str(toolchain.get("check", "true")),
            apt=tuple(str(package) for package in toolchain.get("apt", [])),
        )


def check_environment() -> dict[str, str]:
    """The environment of the check: this interpreter's folder first on PATH, as the
    Python kit's ``./bot`` runs this interpreter (``new-bot`` pins it)."""
    env = dict(os.environ)
    here = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([here, env.get("PATH", os.defpath)])
    return env


def missing_toolchain(toolchain: Toolchain) -> str | None:
    """What is missing to build with ``toolchain`` and the command that installs it, as
    one sentence; None when its check passes.

    The check's steps (joined by ``&&``) run one by one, so that the sentence names the
    step that failed (``go version``, ``test -f .../json.hpp``) and what it said.
    """
    for step in (part.strip() for part in toolchain.check.split("&&")):
        failure = failed_step(step)
        if failure is not None:
            advice = install_advice(toolchain)
            return f"the {toolchain.title} toolchain is missing ({failure}); {advice}"
    return None


def failed_step(step: str) -> str | None:
    """How the shell command ``step`` failed, or None if it exits 0."""
    try:
        checked = subprocess.run(
            ["/bin/sh", "-c", step],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=CHECK_TIMEOUT_S,
            env=check_environment(),
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"`{step}` could not run: {error}"
    if checked.returncode == 0:
        return None
    said = checked.stderr.strip().splitlines()
    return f"`{step}` failed" + (f": {said[-1]}" if said else "")


def install_advice(toolchain: Toolchain) -> str:
    """The one command that installs what the toolchain needs (its packages not yet
    installed, or all of them when that cannot be told)."""
    if not toolchain.apt:
        return "see the kit's README.md for what it needs"
    packages = not_installed(toolchain.apt) or list(toolchain.apt)
    words = " ".join(shlex.quote(package) for package in packages)
    if shutil.which("apt-get") is None:
        return f"install Debian's {words} or your system's equivalent"
    sudo = "" if os.geteuid() == 0 else "sudo "
    return f"install it with: {sudo}apt-get install {words}"


def not_installed(packages: tuple[str, ...]) -> list[str]:
    """The Debian ``packages`` that dpkg does not list as installed ([] if it cannot tell)."""
    dpkg_query = shutil.which("dpkg-query")
    if dpkg_query is None:
        return []
    missing = []
    for package in packages:
        try:
            status = subprocess.run(
                [dpkg_query, "-W", "-f=${Status}", package],
                capture_output=True,
                text=True,
                timeout=CHECK_TIMEOUT_S,
            )
        except (OSError, subprocess.TimeoutExpired):
            return []
        if status.stdout.split()[-1:] != ["installed"]:  # "unknown ok not-installed", ""
            missing.append(package)
    return missing
