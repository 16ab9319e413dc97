"""Submissions taken from upload to the ladder: stored, built, validated, made a version.

:class:`Competition` is what the site calls: :meth:`~Competition.submit` stores an
upload (checked at :mod:`.uploads`' boundary) and records it before it answers, and
:meth:`~Competition.work` builds and validates the submissions one at a time. Every step
is recorded in the competition's database as it ends, so a server killed at any moment
resumes the submissions it had not finished when it starts again (a build or a
validation cut short is done again from the stored archive).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

import trio

from goatarena.competition.builds import (
    BuildLimits,
    build_folder,
    close_after_build,
    open_to_build,
    pin_python,
)
from goatarena.competition.comparison import compare
from goatarena.competition.dependency_cache import DependencyCache, drop_built_dependencies
from goatarena.competition.entrants import upload_refusal
from goatarena.competition.place import Place, claim, default_db, load_competition
from goatarena.competition.uploads import UploadLimits, UploadRefused, store_upload, unpack
from goatarena.competition.validation import validate
from goatarena.errors import GoatArenaError, user_error_in
from goatarena.formats.competition import KIT_LANGUAGES, CompetitionSettings
from goatarena.formats.config import TournamentConfig
from goatarena.formats.ladder.edit import (
    add_version,
    reinstate_bot,
    retire_bot,
    sweep_leftovers,
)
from goatarena.formats.ladder.roster import base_name, version_number
from goatarena.formats.tournament_file import load_config
from goatarena.referee.sandbox import SandboxPolicy
from goatarena.running.game_slots import GameSlots
from goatarena.store.competition import (
    CompetitionStore,
    Entrant,
    Version,
    open_competition_store,
)
from goatarena.store.opening import database_files


class Competition:
    """One competition's submissions and the work on them (one process serves it)."""

    def __init__(self, file: Path, db: Path | None = None, *, sandbox: str | None = None) -> None:
        config, settings = load_competition(file)
        self.file = file
        self.config: TournamentConfig = config
        self.settings: CompetitionSettings = settings
        self.place = Place(file, db or default_db(config))
        self._claimed = claim(self.place.folder)  # one server at a time works on it
        self.store: CompetitionStore = open_competition_store(self.place.database)
        self.sandbox = sandbox or config.sandbox
        self._queue_in, self._queue_out = trio.open_memory_channel[int](1000)
        self._compare_in, self._compare_out = trio.open_memory_channel[int](1000)
        self._ladder_lock = trio.Lock()
        self.slots = GameSlots.of_competition(self.place.db, config.workers)
        """The ladder's slots for timed games: a validation, or a comparison's pair of
        games, takes one, so the machine never plays more games at once than the ladder
        is set to (:mod:`goatarena.running.game_slots`)."""
        self.uploads = UploadLimits.of(settings)
        self.builds = BuildLimits.of(settings)
        self._read_at = file.stat().st_mtime_ns
        self.rust_cache = DependencyCache(
            self.place.folder / "cache",
            self.builds,
            hidden=self._hidden(),
            hidden_where_possible=self._hidden_where_possible(),
            sandbox=self.sandbox,
        )
        self._forget_unacknowledged()
        sweep_leftovers(file)  # what an edit of the ladder's file killed mid-way left
        # A validation's scratch (the bot's stderr) a stop left behind.
        shutil.rmtree(self.place.folder / "scratch", ignore_errors=True)
        self.follow_ladder()

    def close(self) -> None:
        """Close the competition's database and let it go (another server may take it)."""
        self.store.close()
        os.close(self._claimed)

    def _forget_unacknowledged(self) -> None:
        """Remove what an upload cut short by a stop left: its hidden part, or its whole
        archive stored before its row was. Neither was acknowledged."""
        unrecorded = self.store.next_submission_number()
        for left in (self.place.folder / "uploads").glob("*"):
            number = left.name.split(".")[0]
            if left.name.endswith(".part") or (number.isdigit() and int(number) >= unrecorded):
                left.unlink()

    def reload(self) -> None:
        """Read the ladder's file again if it changed: the organiser may change limits or
        close uploads (``closes``) while the competition runs. A file that no longer reads
        leaves the settings as they were."""
        try:
            changed = self.file.stat().st_mtime_ns
        except OSError:
            return
        if changed == self._read_at:
            return
        try:
            config, settings = load_competition(self.file)
        except GoatArenaError:
            return
        self._read_at = changed
        self.config, self.settings = config, settings
        self.uploads = UploadLimits.of(settings)
        self.builds = self.rust_cache.limits = BuildLimits.of(settings)
        self.follow_ladder()

    def follow_ladder(self) -> None:
        """Make the competition's list of versions say what the ladder's file says: the
        file is the truth of what plays, so a version retired there (``goatarena ladder
        retire``, or by hand) is retired here, and one put back is active again. A
        version the file no longer names at all is retired."""
        playing = set(self.config.bots) - set(self.config.ladder.retired)
        changed = {}
        for version in self.store.versions():
            state = "active" if version.name in playing else "retired"
            if version.state != state:
                changed[version.name] = state
        if changed:
            self.store.set_versions_states(changed)

    # Taking an upload (called from a worker thread: it writes a file and the database)

    def submit(self, entrant: Entrant, language: str, chunks: Iterable[bytes]) -> int:
        """Store ``entrant``'s upload whole and record it; its submission number.
        UploadRefused (one line) when a rule refuses it; nothing is kept then. One call at
        a time (the site holds a lock around it)."""
        self.reload()
        refusal = upload_refusal(self.store, self.settings, entrant, language)
        if refusal is not None:
            raise UploadRefused(refusal)
        number = self.store.next_submission_number()
        # Stored under the number its row will get (callers take uploads one at a time):
        # a stop between the two leaves an archive no row names, which the next upload
        # replaces, never a row without its archive.
        uploads = self.place.folder / "uploads"
        for other in uploads.glob(f"{number}.*"):
            other.unlink()
        _, size = store_upload(chunks, uploads, str(number), self.uploads)
        recorded = self.store.add_submission(entrant.id, language, size)
        assert recorded == number, "uploads are taken one at a time"
        return recorded

    def queued(self, number: int) -> None:
        """Have the worker take submission ``number`` (from the event loop)."""
        self._queue_in.send_nowait(number)

    # The work

    async def work(self) -> None:
        """Build and validate submissions, the unfinished ones of a previous run first;
        compare new versions with their previous ones meanwhile."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._comparisons)
            for submission in await trio.to_thread.run_sync(self.store.unfinished):
                await self.process(submission.id)
            async for number in self._queue_out:
                await self.process(number)

    async def _comparisons(self) -> None:
        for submission in await trio.to_thread.run_sync(self.store.comparisons_left):
            await self.compare(submission.id)
        async for number in self._compare_out:
            await self.compare(number)

    async def compare(self, number: int) -> None:
        """Compare submission ``number``'s version with its entrant's previous one."""
        submission = await trio.to_thread.run_sync(self.store.submission, number)
        if submission is None or submission.version is None:
            return
        if submission.comparison and not submission.comparison.startswith("comparing"):
            return  # compared already (a version made as the server started)
        versions = await trio.to_thread.run_sync(self.store.versions_of, submission.entrant)
        older = [version for version in versions if version.submission < number]
        new = next(version for version in versions if version.name == submission.version)
        if not older or self.settings.compare_games < 2:
            return
        previous = max(older, key=lambda version: version.submission)
        await trio.to_thread.run_sync(
            self.store.set_comparison, number, f"comparing with {previous.name}"
        )
        try:
            said = await compare(
                (new.name, new.command),
                (previous.name, previous.command),
                self.config,
                games=self.settings.compare_games,
                sandbox=self._policy(),
                seed=number,
                slots=self.slots,
            )
        except (GoatArenaError, BaseExceptionGroup) as error:
            found = user_error_in(error)
            if found is None:
                raise
            said = f"no comparison: {found}"
        await trio.to_thread.run_sync(self.store.set_comparison, number, said)

    async def process(self, number: int) -> None:
        """Take submission ``number`` through build and validation to the ladder."""
        submission = await trio.to_thread.run_sync(self.store.submission, number)
        if submission is None or submission.state in ("active", "failed"):
            return
        entrant = await trio.to_thread.run_sync(self.store.entrant, submission.entrant)
        assert entrant is not None
        try:
            await self._process(number, entrant, submission.language)
        except (GoatArenaError, BaseExceptionGroup) as error:
            found = user_error_in(error)  # trio hands errors back in groups
            if found is None:
                raise
            await self._set(number, "failed", reason=str(found))
        except OSError as error:
            # The machine's failure with this one submission (a full disk, say) fails it
            # with the reason; raised, it would stop every later build, and again after
            # each restart, since an unfinished submission is taken up again.
            reason = f"the server could not build it: {error.strerror or error}"
            await self._set(number, "failed", reason=reason)

    async def _process(self, number: int, entrant: Entrant, language: str) -> None:
        playing = await trio.to_thread.run_sync(self._version_in_file, number)
        if playing is not None:
            # A stop came between the ladder file's edit and the database's: the version
            # was built and validated, and may be playing; recorded, never built again.
            await self._activate(number, entrant, playing)
            return
        await self._set(number, "building", reason="")
        folder = self.place.build(number)
        if folder.exists():  # a build cut short by a stop: start it again
            await trio.to_thread.run_sync(_remove, folder)
        archive = next(self.place.folder.glob(f"uploads/{number}.*"), None)
        if archive is None:
            raise GoatArenaError("the uploaded archive is missing")
        kit = language in KIT_LANGUAGES and language not in self.settings.commands
        await trio.to_thread.run_sync(
            lambda: unpack(archive, folder, self.uploads, unwrap=kit)  # a zipped kit folder
        )
        if language == "python":
            pin_python(folder)
        if language == "rust" and kit:
            await self.rust_cache.seed(folder)  # the kit's dependencies, compiled once
        open_to_build(folder)
        commands = self.settings.build_commands(language)
        log = self.place.folder / "logs" / f"build-{number}.log"
        log.parent.mkdir(mode=0o700, exist_ok=True)
        built = await build_folder(
            folder,
            commands.build,
            commands.run,
            self.builds,
            log,
            hidden=self._hidden(),
            hidden_where_possible=self._hidden_where_possible(),
            sandbox=self.sandbox,
            # An organiser's command runs from its build: its folder's name is in it.
            in_folder=language in self.settings.commands,
        )
        if built.ok and language == "rust" and kit:  # ./bot is cargo's output, copied
            await trio.to_thread.run_sync(drop_built_dependencies, folder)
        await trio.to_thread.run_sync(close_after_build, folder)
        if not built.ok:
            await self._set(number, "failed", reason=built.reason, build_log=built.log)
            return
        await self._set(number, "validating", build_log=built.log)
        reference = self.settings.reference_bot(self.config.bots)
        scratch = await trio.to_thread.run_sync(self._scratch)
        async with self.slots.held():
            checked = await validate(
                built.command,
                self.config,
                games=self.settings.validation_games,
                reference=self.config.bots[reference],
                sandbox=self._policy(),
                seed=number,
                scratch=scratch,
            )
        if not checked.ok:
            reason = f"validation: {checked.reason}"
            await self._set(
                number, "failed", reason=reason, build_log=_joined(built.log, checked.log)
            )
            return
        await self._activate(number, entrant, built.command)

    async def _activate(self, number: int, entrant: Entrant, command: str) -> None:
        async with self._ladder_lock:
            config = await trio.to_thread.run_sync(load_config, self.file)
            # A stop between the file's edit and the database's: the version is there.
            named = [
                name
                for name, bot in config.bots.items()
                if bot == command and base_name(name) == entrant.name
            ]
            retired: list[str] = []
            known = await trio.to_thread.run_sync(self.store.versions_of, entrant.id)
            if named:
                name = named[0]
            else:
                # Numbered past every version the database knows too (a file edited by
                # hand, or put back from a backup, may lack some).
                least = max((version_number(version.name) for version in known), default=0) + 1
                name, retired = await trio.to_thread.run_sync(
                    lambda: add_version(
                        self.file,
                        entrant.name,
                        command,
                        keep=self.settings.active_versions,
                        least=least,
                    )
                )
            # Its comparison is marked due with it: a stop before it begins leaves it due.
            comparing = self._comparing(known, number)
            await trio.to_thread.run_sync(
                lambda: self.store.add_version(
                    name, entrant.id, number, command, comparing=comparing
                )
            )
            for old in retired:
                await trio.to_thread.run_sync(self.store.set_version_state, old, "retired")
        self._compare_in.send_nowait(number)

    def _scratch(self) -> Path:
        """Where validations keep the bot's stderr meanwhile: the competition's folder,
        which no bot sees, and which a server starting clears of what a stop left."""
        folder = self.place.folder / "scratch"
        folder.mkdir(mode=0o700, exist_ok=True)
        return folder

    def _comparing(self, versions: list[Version], number: int) -> str:
        """``comparing with NAME@k`` when submission ``number``'s version is to be compared
        with an older one of ``versions``; "" when there is none to compare with."""
        older = [version for version in versions if version.submission < number]
        if not older or self.settings.compare_games < 2:
            return ""
        return f"comparing with {max(older, key=lambda version: version.submission).name}"

    def _version_in_file(self, number: int) -> str | None:
        """The command of the ladder file's bot built from submission ``number`` (one of
        its words lies in the build's folder), or None."""
        folder = str(self.place.build(number).absolute())
        for command in load_config(self.file).bots.values():
            if any(word == folder or word.startswith(folder + "/") for word in _words(command)):
                return command
        return None

    async def retire(self, name: str) -> str:
        """Take version ``name`` out of play (the organiser's decision): retired in the
        ladder's file and in the competition's list; what was done, in words."""
        async with self._ladder_lock:
            said = await trio.to_thread.run_sync(retire_bot, self.file, name)
            await trio.to_thread.run_sync(self.store.set_version_state, name, "retired")
        return said

    async def reinstate(self, name: str) -> str:
        """Put retired version ``name`` back in play (the organiser's decision), in the
        ladder's file and in the competition's list; what was done, in words."""
        async with self._ladder_lock:
            said = await trio.to_thread.run_sync(reinstate_bot, self.file, name)
            await trio.to_thread.run_sync(self.store.set_version_state, name, "active")
        return said

    async def _set(self, number: int, state: str, **kept: str) -> None:
        await trio.to_thread.run_sync(lambda: self.store.set_state(number, state, **kept))

    def _hidden(self) -> tuple[str, ...]:
        """The runner's files no build or bot may read."""
        files = [*database_files(self.place.db), *database_files(self.place.database), self.file]
        return tuple(str(path.absolute()) for path in files)

    def _hidden_where_possible(self) -> tuple[str, ...]:
        """Folders of the runner's (other submissions among them), hidden where shown."""
        folders = [self.place.folder, self.place.db.parent, self.place.logs]
        return tuple(str(path.absolute()) for path in folders)

    def _policy(self) -> SandboxPolicy:
        return SandboxPolicy(
            mode=self.sandbox,
            tmp_bytes=self.config.tmp_mb << 20,
            hidden=self._hidden(),
            hidden_where_possible=self._hidden_where_possible(),
        )


def _remove(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o700)
    shutil.rmtree(folder)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # unbalanced quotes: a command no build wrote
        return []


def _joined(build_log: str, validation_log: str) -> str:
    return f"{build_log}\n--- validation: the bot's stderr\n{validation_log}"
