"""Writing a file whole or not at all: what ``export -o`` and ``report -o`` write.

The text goes to a temporary file beside the target, is flushed to the disk, and is then
renamed over the target in one step: a full disk, Ctrl-C or a crash part-way leaves the
target as it was (absent, or its old version), never cut short. The file gets the
permissions a newly created file gets (the umask's), or those of the file it replaces,
not the private ones of a temporary file. A symbolic link is kept and the file it names
replaced; a target that is no file at all (``/dev/stdout``, a named pipe) is written
through, as there is nothing to replace.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from goatarena.errors import ConfigError


def write_whole(path: Path, chunks: Iterable[str], *, keep: Iterable[Path] = ()) -> None:
    """Write ``chunks`` to ``path``, whole or not at all; a :class:`ConfigError` naming the
    file and the cause (no such folder, permission denied, disk full) if it cannot be.

    ``path`` must not be any of the files ``keep`` (the results database being read,
    under whatever name): replacing it would lose every result.
    """
    refuse_kept(path, keep)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        # /dev/stdout, a named pipe, /dev/null: written through, as there is no file to
        # replace (a rename would put a file in place of the device's name).
        _write_through(path, chunks)
        return
    # Through a symbolic link, the file it names is replaced and the link kept.
    target = Path(os.path.realpath(path)) if mode is not None else path
    folder = target.parent if str(target.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".part")
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.writelines(chunks)
            out.flush()
            os.fsync(out.fileno())  # renamed only once the data is on the disk
            os.fchmod(out.fileno(), _mode_for(target))
        os.replace(temporary, target)
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def refuse_kept(path: Path, keep: Iterable[Path]) -> None:
    """A :class:`ConfigError` if ``path`` is one of the files ``keep``, under any name."""
    for kept in keep:
        if _same_file(path, kept):
            raise ConfigError(
                f"cannot write {path}: it would replace {kept}, which is being read;"
                " choose another file"
            )


def _write_through(path: Path, chunks: Iterable[str]) -> None:
    """Write to what is not a plain file (a terminal, a pipe, a device) as it comes."""
    try:
        with open(path, "w", encoding="utf-8", newline="") as out:
            out.writelines(chunks)
    except BrokenPipeError:
        raise  # the reader stopped: every command ends quietly on that
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None


def _mode_for(path: Path) -> int:
    """The permissions of the file ``path`` replaces, else those the umask gives."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)  # reading the umask means setting it: put it straight back
        return 0o666 & ~umask


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        # Either is missing (or unreadable): the same name all the same, such as the
        # database's WAL file between runs, which SQLite would take for its own and drop.
        return os.path.realpath(one) == os.path.realpath(other)
