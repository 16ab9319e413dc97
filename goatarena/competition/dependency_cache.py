"""A Rust build's dependencies compiled once, from goatarena's own Rust kit, and copied
into each Rust submission before its build.

Without it every Rust submission compiles serde and serde_json afresh (about a minute
on two cores). The cache is the ``target/`` folder left by building the kit's starter
(the organiser's trusted code, never an entrant's output) in the sandbox, with the
competition's limits; it is kept read-only in the competition's folder
(``cache/rust-KEY/``, KEY from the kit's files). A Rust submission that brings no
``target/`` of its own gets a copy of it before its build: cargo finds the dependencies
fresh (their fingerprints name the crates, the compiler and the flags, not the folder)
and compiles the entrant's crate alone.

An entrant's build sees its own copy and never the cache: the competition's folder is
hidden from every build, and the copy is made anew for each build, so a ``build.rs`` or
a Makefile that rewrites the dependencies it was given changes its own bot alone.
"""

from __future__ import annotations

import hashlib
import shutil
import time
import tomllib
from pathlib import Path

import trio

from goatarena.competition.builds import (
    BuildLimits,
    build_folder,
    close_after_build,
    open_to_build,
)

RUST_KIT = Path(__file__).resolve().parent.parent / "kits" / "rust"
"""goatarena's own Rust kit, as ``goatarena new-bot rust`` copies it."""
TARGET = "target"
"""The folder cargo builds into, in the cache and in a submission."""
BUILT = (TARGET, "bot", "Cargo.lock")
"""What a build of the kit leaves in its folder: never part of the key or the copy."""
ELF_MAGIC = b"\x7fELF"
"""How a compiled program begins (a script may run something in ``target/``)."""
RETRY_S = 600.0
"""How long after a failed build of the cache (out of time on a busy machine, say) the
next Rust submission tries it again; meanwhile builds go on without it."""


def kit_key(kit: Path) -> str:
    """A short hash of the kit's files: a changed kit is a new cache."""
    digest = hashlib.sha256()
    for path in sorted(kit.rglob("*")):
        if path.is_file() and not set(BUILT) & set(path.relative_to(kit).parts):
            digest.update(path.relative_to(kit).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class DependencyCache:
    """The competition's cache of the Rust kit's compiled dependencies."""

    def __init__(
        self,
        folder: Path,
        limits: BuildLimits,
        *,
        hidden: tuple[str, ...] = (),
        hidden_where_possible: tuple[str, ...] = (),
        sandbox: str = "bwrap",
        kit: Path = RUST_KIT,
    ) -> None:
        self.kit = kit
        self.folder = folder / f"rust-{kit_key(kit)}"
        self.limits = limits
        self.hidden = hidden
        self.hidden_where_possible = hidden_where_possible
        self.sandbox = sandbox
        self.failed = ""
        """Why the cache could not be built (then builds go on without it)."""
        self._failed_at = 0.0
        self._lock = trio.Lock()

    async def ready(self) -> Path | None:
        """The cached ``target/`` folder, built first if need be; None when it cannot be
        built (the reason in :attr:`failed`; tried again :data:`RETRY_S` later)."""
        async with self._lock:
            if (self.folder / TARGET).is_dir():
                return self.folder / TARGET
            if self.failed and time.monotonic() - self._failed_at < RETRY_S:
                return None
            self.failed = ""
            await self._build()
            return self.folder / TARGET if not self.failed else None

    async def _build(self) -> None:
        """Build the kit in a hidden folder and rename it into place: whole or not at all."""
        making = self.folder.with_name(f".{self.folder.name}.part")
        if making.exists():
            await trio.to_thread.run_sync(_remove, making)
        making.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        ignored = shutil.ignore_patterns(*BUILT)
        await trio.to_thread.run_sync(lambda: shutil.copytree(self.kit, making, ignore=ignored))
        open_to_build(making)
        built = await build_folder(
            making,
            "make",
            None,
            self.limits,
            self.folder.with_name(f"{self.folder.name}.log"),
            hidden=self.hidden,
            hidden_where_possible=self.hidden_where_possible,
            sandbox=self.sandbox,
        )
        if built.ok and (making / TARGET).is_dir():
            await trio.to_thread.run_sync(_forget_the_kits_own_crate, making)
        await trio.to_thread.run_sync(close_after_build, making)
        if not built.ok or not (making / TARGET).is_dir():
            self.failed = built.reason or "the kit's build left no target folder"
            self._failed_at = time.monotonic()
            return
        making.rename(self.folder)

    async def seed(self, submission: Path) -> bool:
        """Copy the cache into a Rust submission's folder (before its build), unless it
        brought a ``target/`` of its own; whether it was copied."""
        if (submission / TARGET).exists():
            return False
        cached = await self.ready()
        if cached is None:
            return False
        await trio.to_thread.run_sync(_copy_writable, cached, submission / TARGET)
        return True


def drop_built_dependencies(built: Path) -> bool:
    """Remove a built Rust submission's ``target/`` (about 150 MB of compiled dependencies
    a version) once its build left ``./bot`` a compiled program of its own, as the kit's
    Makefile makes it (a copy of cargo's output); a ``./bot`` that is a script, or a link,
    keeps it. Whether it was removed."""
    bot, target = built / "bot", built / TARGET
    if bot.is_symlink() or not bot.is_file() or target.is_symlink() or not target.is_dir():
        return False
    with bot.open("rb") as program:
        if program.read(len(ELF_MAGIC)) != ELF_MAGIC:
            return False
    _remove(target)
    return True


def _copy_writable(cached: Path, target: Path) -> None:
    """A copy of the (read-only) cache its build may write (modification times kept)."""
    shutil.copytree(cached, target, symlinks=True)
    for path in [target, *target.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | (0o700 if path.is_dir() else 0o600))


def _forget_the_kits_own_crate(built: Path) -> None:
    """Remove the fingerprints of the kit's own crate from its build, so that cargo
    compiles an entrant's crate of the same name whatever its files' times say."""
    manifest = built / "Cargo.toml"
    if not manifest.is_file():
        return
    package = tomllib.loads(manifest.read_text())["package"]["name"]
    for fingerprint in (built / TARGET).glob(f"*/.fingerprint/{package}-*"):
        shutil.rmtree(fingerprint)


def _remove(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o700)
    shutil.rmtree(folder)
