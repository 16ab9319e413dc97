"""What a sandboxed bot sees: the mounts of its file system, and its environment.

An allow-list: ``/usr``, of ``/opt`` only the installs the runtimes live in, of ``/etc``
only what runtimes read, the Python install and the goatarena package the referee runs
on, its own folder (its program's: :mod:`goatarena.referee.command_paths`), the paths it is given,
and private size-capped ``/tmp`` and ``/dev/shm``. Whatever of the runner's lies inside
one of those (its results, logs, tournament file, working folder, other bots' folders:
an arena kept under ``/opt`` or ``/usr/local``) is masked by an empty read-only mount,
and what the bot needs inside a mask is shown again above it. A runner's file that
cannot be masked without hiding what the bot needs stops the run
(:class:`SandboxLayoutError`). Everything but the scratch space is read-only. Of the
referee's environment it keeps only ``PATH`` and the locale.

:mod:`goatarena.referee.sandbox` puts these mounts into bubblewrap's command line.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from goatarena.errors import BotError
from goatarena.referee.command_paths import (
    code_paths,
    command_folders,
    inside,
    is_shared,
    shared_folders,
)
from goatarena.referee.proc_view import proc_mounts
from goatarena.referee.readable_copy import readable_folder

SYSTEM_PATHS = ("/usr",)
"""Bound read-only: programs, libraries, runtimes (node, java)."""
INSTALL_ROOTS = ("/opt",)
"""Of these, only the installs (``/opt/NAME``) a folder on ``PATH`` or a bot's program
lies in are bound: an arena kept there is never shown whole."""
ETC_PATHS = (
    "alternatives",
    "ca-certificates",
    "fonts",
    "group",
    "host.conf",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "ssl",
    "timezone",
)
"""What runtimes read of /etc, bound read-only where it exists. Never all of it: a
machine keeps secrets there (host keys, shadow passwords)."""
ETC_GLOBS = ("java-*", "node*", "python3*")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Merged-/usr symlinks are recreated as links; real folders are bound read-only."""
SCRATCH_PATHS = ("/tmp", "/dev/shm")
"""The only places a bot may write (besides paths it is given): private tmpfs, each of
``tmp_bytes``, that end with the bot."""
SCRATCH_MODE = "1777"
"""Anyone may write there, as in ``/tmp``: a bot of a root runner is not its owner."""
PROC_HIDDEN = (
    "locks",
    "timer_list",
    "slabinfo",
    "sched_debug",
    "kallsyms",
    "kcore",
    "keys",
    "key-users",
    "sysrq-trigger",
    "latency_stats",
    "timer_stats",
    "vmallocinfo",
    "pagetypeinfo",
    "kpageflags",
    "kpagecount",
    "kpagecgroup",
    "iomem",
    "ioports",
)
"""Files of ``/proc`` that show the machine's kernel state rather than the bot's own
processes (``locks`` lists every process's file locks: two bots could talk through it;
the rest are root's). Each is covered by ``/dev/null``."""
FOLDER_MODE = "0755"
MASK_BYTES = 4096
"""The size of an empty read-only mount that masks a folder (it holds no data)."""
READ_ONLY_MOUNTS = ("/dev", "/")
"""Made read-only once the sandbox is built: the rest of what the bot sees."""
PASSED_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")
"""What a sandboxed bot keeps of the referee's environment: where programs are (a bot's
command is looked up on PATH) and the locale. Nothing else: a runner's environment holds
credentials, tokens and its own paths, and a bot could read it from its own."""
SET_VARIABLES = {"HOME": "/tmp", "TMPDIR": "/tmp"}
"""Set for every sandboxed bot: its home and scratch space are its private /tmp."""


def bot_environment(referee: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a sandboxed bot, given the referee's."""
    kept = {name: referee[name] for name in PASSED_VARIABLES if name in referee}
    return {**kept, **SET_VARIABLES}


class SandboxLayoutError(BotError):
    """A runner's file lies where the sandbox cannot hide it without hiding what a bot
    needs (its own folder, its runtime): the files must be moved."""


@dataclass(frozen=True)
class _Mount:
    """One bubblewrap operation at ``path``; a mask after what it covers at one path."""

    path: str
    args: tuple[str, ...]
    mask: bool = False
    copied: bool = False
    """Whether it shows a copy (made without the runner's files: nothing to mask)."""

    @property
    def depth(self) -> int:
        return len(Path(self.path).parts)


def view_args(
    argv: Sequence[str],
    *,
    tmp_bytes: int,
    read_paths: Sequence[str],
    write_paths: Sequence[str],
    hidden: Sequence[str],
    hidden_where_possible: Sequence[str] = (),
    cwd: Path,
    bot_gid: int | None = None,
    shown_as: Mapping[str, str] | None = None,
    static_files: Mapping[str, int] | None = None,
) -> list[str]:
    """bubblewrap's options that build the file system ``argv`` sees when run from ``cwd``.

    The working folder has the same path as the referee's, so relative paths in the
    command work, but it holds only the bot's own folders (read-only), never the rest.
    ``hidden`` (the runner's files) is masked wherever a mount would show it, or the
    bot is refused with :class:`SandboxLayoutError`; ``hidden_where_possible`` (other
    bots' folders, the runner's folders) is masked unless it is itself a folder the bot
    is given; never a system's or runtime's folder. With ``bot_gid``, a bot folder that
    group cannot read is shown as a copy it can (:mod:`goatarena.referee.readable_copy`),
    without the runner's files: the one ``shown_as`` names for it, made beforehand off
    the event loop, else made here. A word of ``argv`` that leads out of the bot's own
    folder, its given paths and the shared folders is refused
    (:class:`~goatarena.referee.command_paths.ForeignPath`). The machine's counters in
    ``/proc`` are covered (:mod:`goatarena.referee.proc_view`), the fixed ones read from
    ``static_files`` (a descriptor by path).
    """
    fixed = _system_mounts(argv, tmp_bytes)
    fixed += [_Mount(path, args, mask=True) for path, args in proc_mounts(static_files or {})]
    named = command_folders(argv, cwd, [*read_paths, *write_paths])
    own = [] if named.own is None else [named.own]
    read = code_paths() + own + list(named.runtimes) + _mount_sources(read_paths, cwd)
    write = _mount_sources(write_paths, cwd)
    given = [_Mount(path, ("--ro-bind-try", path, path)) for path in dict.fromkeys(read)]
    given += [_Mount(path, ("--bind-try", path, path)) for path in dict.fromkeys(write)]
    if bot_gid is not None:
        given = _readable(given, own, bot_gid, [*hidden, *hidden_where_possible], shown_as or {})
    # Never a system's or runtime's folder: masking one would break every other bot (one
    # that holds them is masked, and they are shown again above the mask, as before).
    shared = shared_folders()
    hidden_where_possible = [
        path
        for path in hidden_where_possible
        if not is_shared(os.path.realpath(path), shared, holding=False)
    ]
    binds = [mount for mount in fixed + given if "bind" in mount.args[0]]
    system = [mount.path for mount in fixed]
    masks = _masks(binds, system, hidden, hidden_where_possible, cwd)
    shown = [mount.path for mount in binds]
    masks += _cwd_mask(str(cwd), shown, system, [mount.path for mount in masks])
    # Shallow first, a mask after what it covers: whatever is mounted deeper shows above
    # what is mounted higher up (a bot's folder under the private /tmp or under a mask).
    mounts = fixed + given + masks
    ordered = sorted(mounts + _folders_above(mounts), key=lambda mount: (mount.depth, mount.mask))
    args = [word for mount in ordered for word in mount.args]
    args += ["--dir", str(cwd)]
    # bubblewrap's root and /dev are tmpfs of no size limit, writable by the bot: a way
    # past the capped scratch space, and to fill the machine's memory without cgroups.
    # The masks are tmpfs too, writable until now.
    for mount in masks:
        if "--tmpfs" in mount.args:
            args += ["--remount-ro", mount.path]
    for path in READ_ONLY_MOUNTS:
        args += ["--remount-ro", path]
    return args


def _readable(
    given: list[_Mount],
    own: Sequence[str],
    gid: int,
    secrets: Sequence[str],
    shown_as: Mapping[str, str],
) -> list[_Mount]:
    """``given``, with the bot's own folder replaced by a readable copy (the runner's
    files left out) where group ``gid`` cannot read it."""
    left_out = [os.path.realpath(path) for path in secrets]
    out = []
    for mount in given:
        source = mount.args[1]
        # A folder that holds the system (a word "/" in a command) is never copied.
        holds_system = any(inside(path, source) for path in (*SYSTEM_PATHS, *SCRATCH_PATHS))
        if source in own and mount.args[0] == "--ro-bind-try" and not holds_system:
            copy = shown_as.get(source)
            if copy is None or not os.path.isdir(copy):
                copy = readable_folder(source, gid, left_out) if os.path.isdir(source) else source
            mount = _Mount(mount.path, ("--ro-bind-try", copy, mount.path), copied=copy != source)
        out.append(mount)
    return out


def _folders_above(mounts: Sequence[_Mount]) -> list[_Mount]:
    """The folders the mounts are made in, readable by all: bubblewrap would make those
    it lacks readable by root alone, and a root runner's bot is not root."""
    taken = {mount.path for mount in mounts}
    # A bind of a path that does not exist is skipped: no folder is made for it (inside
    # a read-only bind it could not be).
    made = [
        mount
        for mount in mounts
        if not mount.args[0].endswith("-try") or os.path.exists(mount.args[1])
    ]
    above = {str(folder) for mount in made for folder in Path(mount.path).parents}
    return [
        _Mount(folder, ("--perms", FOLDER_MODE, "--dir", folder))
        for folder in sorted(above - taken - {"/"})
    ]


def _system_mounts(argv: Sequence[str], tmp_bytes: int) -> list[_Mount]:
    """What every bot sees of the system: programs, libraries, ``/proc``, ``/dev``,
    what runtimes read of ``/etc``, and its scratch space."""
    mounts = []
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            mounts.append(_Mount(path, ("--symlink", os.readlink(path), path)))
        elif os.path.isdir(path):
            mounts.append(_Mount(path, ("--ro-bind", path, path)))
    for path in [*SYSTEM_PATHS, *_installs(argv)]:
        if os.path.isdir(path):
            mounts.append(_Mount(path, ("--ro-bind", path, path)))
    etc = Path("/etc")
    for found in sorted({*ETC_PATHS, *(p.name for g in ETC_GLOBS for p in etc.glob(g))}):
        if os.path.lexists(etc / found):
            mounts.append(_Mount(str(etc / found), ("--ro-bind-try", *[str(etc / found)] * 2)))
    mounts += [_Mount("/proc", ("--proc", "/proc")), _Mount("/dev", ("--dev", "/dev"))]
    mounts += [
        _Mount(f"/proc/{name}", ("--ro-bind", "/dev/null", f"/proc/{name}"), mask=True)
        for name in PROC_HIDDEN
        if os.path.exists(f"/proc/{name}")
    ]
    # /dev/shm is where POSIX shared memory and semaphores live (Python's multiprocessing
    # needs it): writable, but capped like /tmp rather than bubblewrap's unbounded one.
    for scratch in SCRATCH_PATHS:
        mounts.append(
            _Mount(scratch, ("--perms", SCRATCH_MODE, "--size", str(tmp_bytes), "--tmpfs", scratch))
        )
    return mounts


def _installs(argv: Sequence[str]) -> list[str]:
    """The installs under :data:`INSTALL_ROOTS` that a folder on ``PATH`` or the bot's
    program lies in, such as ``/opt/java`` for ``/opt/java/bin``."""
    places = [os.path.realpath(folder) for folder in os.environ.get("PATH", "").split(os.pathsep)]
    program = shutil.which(argv[0]) if argv else None
    if program is not None:
        places.append(os.path.realpath(program))
    found = []
    for root in INSTALL_ROOTS:
        for place in places:
            if inside(place, root):
                found.append(os.path.join(root, Path(place).relative_to(root).parts[0]))
    return list(dict.fromkeys(found))


def _mount_sources(paths: Sequence[str], cwd: Path) -> list[str]:
    out = []
    for path in paths:
        full = Path(path) if os.path.isabs(path) else cwd / path
        out.append(os.path.abspath(full))
    return out


def _masks(
    binds: Sequence[_Mount],
    fixed: Sequence[str],
    hidden: Sequence[str],
    hidden_where_possible: Sequence[str],
    cwd: Path,
) -> list[_Mount]:
    """A mask over each runner's path wherever a bind of the host's files shows it.

    Every bind is looked at, so nothing of the runner's shows through any of them. One
    that is itself a bound folder, or holds the system's mounts, cannot be masked: for
    ``hidden``, :class:`SandboxLayoutError`; otherwise it is left alone.
    """
    # A copy holds none of the runner's files, but may not stand where one is.
    sources = [
        (mount.path, os.path.realpath(mount.path if mount.copied else mount.args[1]))
        for mount in binds
    ]
    system = [os.path.realpath(path) for path in fixed]
    copies = {mount.path for mount in binds if mount.copied}
    masks: dict[str, _Mount] = {}
    wanted = [(path, True) for path in hidden] + [(path, False) for path in hidden_where_possible]
    real = [
        (os.path.realpath(Path(p) if os.path.isabs(p) else cwd / p), must) for p, must in wanted
    ]
    # Shallow first: what lies in a folder already masked needs no mask of its own (its
    # name would show, as the mount point of one).
    for secret, must in sorted(real, key=lambda item: len(Path(item[0]).parts)):
        if not os.path.exists(secret):
            continue
        showing = [(shown, source) for shown, source in sources if inside(secret, source)]
        if not showing and all(source != secret for _, source in sources):
            continue  # no bind shows it
        clash = next((shown for shown, source in sources if source == secret), None) or next(
            (mount for mount in system if mount == secret or inside(mount, secret)), None
        )
        if clash is not None:
            if must:
                raise SandboxLayoutError(
                    f"the sandbox cannot hide {secret} from a bot: it is, or holds, {clash},"
                    " which the bot must see; move it out of the bots' folders and runtimes"
                )
            continue
        for shown, source in showing:
            where = os.path.join(shown, os.path.relpath(secret, source))
            if shown not in copies and _shown_at(where, binds, masks.values()):
                masks.setdefault(where, _mask(secret, where))
    return list(masks.values())


def _shown_at(where: str, binds: Sequence[_Mount], masks: Iterable[_Mount]) -> bool:
    """Whether the deepest mount over ``where`` is a bind (not a folder's mask)."""
    over = [mount for mount in [*binds, *masks] if mount.path == where or inside(where, mount.path)]
    deepest = max(over, key=lambda mount: (mount.depth, mount.mask), default=None)
    return deepest is not None and not (deepest.mask and "--tmpfs" in deepest.args)


def _mask(source: str, where: str) -> _Mount:
    """An empty read-only mount at ``where`` over a folder, ``/dev/null`` over a file."""
    if os.path.isdir(source):
        return _Mount(where, ("--size", str(MASK_BYTES), "--tmpfs", where), mask=True)
    return _Mount(where, ("--ro-bind", "/dev/null", where), mask=True)


def _cwd_mask(cwd: str, shown: Sequence[str], fixed: Sequence[str], masked: Sequence[str]):
    """The working folder, read-only and empty but for what the bot is given, where a
    mount would otherwise show it whole or make it writable (under the private ``/tmp``).
    Left alone where it is given itself or holds the system's mounts (a working folder of
    ``/``, say)."""
    if cwd in shown or cwd in masked or not os.path.isdir(cwd):
        return []
    if any(path == cwd or inside(path, cwd) for path in fixed):
        return []
    if any(inside(cwd, path) for path in [*shown, *SCRATCH_PATHS]):
        return [_mask(cwd, cwd)]
    return []
