"""The Rust dependency cache: built once from the organiser's kit in the sandbox, copied
into each Rust submission before its build; an entrant's build can neither reach the
cache nor hand its poisoned copy on to the next entrant."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from goatarena.competition.builds import (
    BuildLimits,
    build_folder,
    close_after_build,
    open_to_build,
)
from goatarena.competition.dependency_cache import (
    RETRY_S,
    RUST_KIT,
    DependencyCache,
    drop_built_dependencies,
    kit_key,
)
from goatarena.referee.sandbox import probe

pytestmark = pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")

LIMITS = BuildLimits(
    seconds=20, memory_bytes=512 << 20, processes=64, file_bytes=16 << 20, log_bytes=8 << 10
)
DEPENDENCY = Path("release") / "deps" / "libserde.rlib"
KIT_MAKEFILE = """\
bot:
\tmkdir -p target/release/deps target/release/.fingerprint/kitbot-1 \\
\t\ttarget/release/.fingerprint/serde-2
\techo trusted > target/release/deps/libserde.rlib
\tprintf '#!/bin/sh\\n' > bot && chmod +x bot
"""
HOSTILE_MAKEFILE = """\
bot:
\t-echo poisoned > {cache}/release/deps/libserde.rlib
\t-echo poisoned > {cache}/release/deps/libnew.rlib
\techo poisoned > target/release/deps/libserde.rlib
\tprintf '#!/bin/sh\\n' > bot && chmod +x bot
"""
HONEST_MAKEFILE = """\
bot:
\tcat target/release/deps/libserde.rlib
\tprintf '#!/bin/sh\\n' > bot && chmod +x bot
"""


def a_kit(tmp_path: Path) -> Path:
    """A stand-in for the Rust kit whose build leaves a "compiled dependency" at once."""
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "Makefile").write_text(KIT_MAKEFILE)
    (kit / "Cargo.toml").write_text('[package]\nname = "kitbot"\n')
    return kit


def submitted(competition: Path, number: int, makefile: str, cache: DependencyCache):
    """Submission ``number`` built as the server builds a Rust one: seeded, then built."""
    folder = competition / "builds" / str(number)
    folder.mkdir(parents=True)
    (folder / "Makefile").write_text(makefile)

    async def build():
        seeded = await cache.seed(folder)
        open_to_build(folder)
        built = await build_folder(
            folder, "make", "./bot", LIMITS, competition / f"build-{number}.log",
            hidden_where_possible=(str(competition),),
        )  # fmt: skip
        close_after_build(folder)
        return seeded, built

    return (*trio.run(build), folder)


def test_an_entrants_build_cannot_poison_the_cache_nor_the_next_entrant(tmp_path):
    competition = tmp_path / "results" / "class-competition"
    cache = DependencyCache(
        competition / "cache", LIMITS, hidden_where_possible=(str(competition),),
        kit=a_kit(tmp_path),
    )  # fmt: skip
    cached = trio.run(cache.ready)
    assert cached is not None, cache.failed
    assert (cached / DEPENDENCY).read_text() == "trusted\n"
    hostile = HOSTILE_MAKEFILE.format(cache=cached)
    seeded, built, folder = submitted(competition, 1, hostile, cache)
    assert seeded and built.ok, built.log
    assert built.log.count("Directory nonexistent") == 2, built.log  # hidden from builds
    # The attacker spoiled only their own copy; the cache they never saw.
    assert (folder / "target" / DEPENDENCY).read_text() == "poisoned\n"
    assert (cached / DEPENDENCY).read_text() == "trusted\n"
    assert not (cached / "release" / "deps" / "libnew.rlib").exists()
    seeded, built, folder = submitted(competition, 2, HONEST_MAKEFILE, cache)
    assert seeded and built.ok, built.log
    assert "trusted" in built.log and "poisoned" not in built.log


def test_the_cache_is_built_once_and_a_submissions_own_target_is_left_alone(tmp_path):
    competition = tmp_path / "results" / "class-competition"
    kit = a_kit(tmp_path)
    cache = DependencyCache(competition / "cache", LIMITS, kit=kit)
    first = trio.run(cache.ready)
    assert first is not None and first.parent.name == f"rust-{kit_key(kit)}"
    made = first.stat().st_ino
    # The kit's own crate is forgotten: an entrant's crate of its name is always compiled.
    assert [path.name for path in (first / "release" / ".fingerprint").iterdir()] == ["serde-2"]
    assert trio.run(cache.ready) == first and first.stat().st_ino == made
    own = tmp_path / "own"
    (own / "target").mkdir(parents=True)
    assert trio.run(cache.seed, own) is False
    assert list((own / "target").iterdir()) == []
    # A changed kit is a new cache; the shipped kit keys without its build output.
    (kit / "Cargo.toml").write_text('[package]\nname = "other"\n')
    assert kit_key(kit) != first.parent.name.removeprefix("rust-")
    assert kit_key(RUST_KIT) == kit_key(RUST_KIT)


def test_a_kit_that_does_not_build_leaves_no_cache_and_says_why(tmp_path):
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "Makefile").write_text("bot:\n\texit 3\n")
    cache = DependencyCache(tmp_path / "cache", LIMITS, kit=kit)
    submission = tmp_path / "submission"
    submission.mkdir()
    assert trio.run(cache.seed, submission) is False
    assert cache.failed == "the build failed (exit status 2)"  # make's, for the failed rule
    assert not (submission / "target").exists()
    assert not cache.folder.exists()
    # Not tried again at once (each Rust submission would wait for it), but later.
    (kit / "Makefile").write_text(KIT_MAKEFILE)
    assert trio.run(cache.ready) is None
    cache._failed_at -= RETRY_S
    assert trio.run(cache.ready) is not None and cache.failed == ""


@pytest.mark.parametrize(
    ("bot", "dropped"),
    [(b"\x7fELF\x02\x01", True), (b"#!/bin/sh\nexec target/release/bot\n", False), (None, False)],
)
def test_a_built_versions_dependencies_go_once_its_bot_is_a_program_of_its_own(
    tmp_path, bot, dropped
):
    built = tmp_path / "built"
    (built / "target" / "release" / "deps").mkdir(parents=True)
    (built / "target" / DEPENDENCY).write_text("compiled")
    (built / "target" / "release" / "deps").chmod(0o500)  # as a closed build leaves it
    if bot is not None:
        (built / "bot").write_bytes(bot)
    assert drop_built_dependencies(built) is dropped
    assert (built / "target").exists() is not dropped


def test_a_target_that_is_a_link_is_never_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious").write_text("kept")
    built = tmp_path / "built"
    built.mkdir()
    (built / "bot").write_bytes(b"\x7fELF")
    (built / "target").symlink_to(elsewhere)
    assert drop_built_dependencies(built) is False
    assert (elsewhere / "precious").read_text() == "kept"
