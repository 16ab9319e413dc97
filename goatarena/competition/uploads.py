"""An entrant's upload: a tar.gz or zip archive, checked at this one boundary.

An archive is refused, in one line, when it is larger than ``upload_mib``; when it holds
an absolute path, a ``..``, a link (symbolic or hard), a device, a pipe or anything else
but files and folders; more than ``files`` entries; more than ``unpacked_mib`` once
unpacked; or a compression ratio past ``ratio``. Every check reads the archive's own
listing before a byte is unpacked, and unpacking writes no more than the listing said
(a member that holds more than its header declares is refused too).

An accepted archive is stored whole or not at all: written to a hidden file in the same
folder, flushed, then renamed to its name. Past this module, an upload is trusted to be
a plain tree of files and folders within the limits.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import IO

from goatarena.errors import GoatArenaError
from goatarena.formats.competition import CompetitionSettings

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
CHUNK = 1 << 16
TOP = PurePosixPath(".")
SKIPPED_WHEN_PACKING = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "node_modules", "target", ".venv", ".mypy_cache"}
)
"""Folders ``submit`` leaves out of an archive: version control, caches, build output."""


class UploadRefused(GoatArenaError):
    """An upload broke one of the competition's rules; the message says which, in one line."""


@dataclass(frozen=True)
class UploadLimits:
    """What an upload may hold: bytes as sent, bytes and entries unpacked, the ratio."""

    upload_bytes: int
    unpacked_bytes: int
    files: int
    ratio: float

    @classmethod
    def of(cls, settings: CompetitionSettings) -> UploadLimits:
        """The limits a competition's settings set."""
        return cls(
            upload_bytes=int(settings.upload_mib * (1 << 20)),
            unpacked_bytes=int(settings.unpacked_mib * (1 << 20)),
            files=settings.files,
            ratio=settings.ratio,
        )


@dataclass(frozen=True)
class Member:
    """One entry of an archive as its listing gives it: a file or a folder."""

    name: PurePosixPath
    is_folder: bool
    size: int
    executable: bool


def archive_kind(head: bytes) -> str:
    """``tar.gz`` or ``zip`` from an archive's first bytes; UploadRefused otherwise."""
    if head.startswith(GZIP_MAGIC):
        return "tar.gz"
    if head.startswith(ZIP_MAGICS):
        return "zip"
    raise UploadRefused("the upload is neither a tar.gz nor a zip archive")


MAX_NAME_BYTES = 255
"""The longest file name (one part of a path) an upload may hold: Linux's NAME_MAX."""
MAX_PATH_BYTES = 1024
"""The longest path an upload may hold, well inside PATH_MAX with the build's folder."""


def _safe_name(raw: str) -> PurePosixPath:
    """The member's path, or UploadRefused for one that could land outside its folder."""
    if "\0" in raw or "\\" in raw:
        raise UploadRefused(f"the archive holds a name with a NUL or backslash: {raw[:80]!r}")
    if raw.startswith("/"):
        raise UploadRefused(f"the archive holds an absolute path: {raw[:80]!r}")
    path = PurePosixPath(raw)
    if ".." in path.parts:
        raise UploadRefused(f"the archive holds a path with '..': {raw[:80]!r}")
    if path == PurePosixPath("."):
        return TOP  # the archive's own folder (``tar -C bot -czf bot.tar.gz .``)
    if not raw.strip("/.") or any(not part.isprintable() for part in path.parts):
        raise UploadRefused(f"the archive holds an unprintable or empty name: {raw[:80]!r}")
    # Past the file system's limits the unpacking would fail, and the submission with it,
    # at every restart: refused here, where the entrant is told.
    if len(raw.encode()) > MAX_PATH_BYTES or any(
        len(part.encode()) > MAX_NAME_BYTES for part in path.parts
    ):
        raise UploadRefused(f"the archive holds a name too long to unpack: {raw[:80]!r}")
    return path


def _tar_members(archive: IO[bytes]) -> Iterator[Member]:
    try:
        with tarfile.open(fileobj=archive, mode="r:gz") as tar:
            for info in tar:
                name = _safe_name(info.name)
                if name == TOP and info.isdir():
                    continue
                if info.issym() or info.islnk():
                    raise UploadRefused(f"the archive holds a link: {info.name[:80]!r}")
                if not (info.isfile() or info.isdir()):
                    raise UploadRefused(
                        "the archive holds a device, pipe or other special file:"
                        f" {info.name[:80]!r}"
                    )
                yield Member(name, info.isdir(), info.size, bool(info.mode & 0o111))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
        raise UploadRefused(f"the tar.gz archive cannot be read: {error}") from None


def _zip_members(archive: IO[bytes]) -> Iterator[Member]:
    try:
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                name = _safe_name(info.filename)
                if name == TOP and info.is_dir():
                    continue
                mode = info.external_attr >> 16
                kind = stat.S_IFMT(mode)
                if kind == stat.S_IFLNK:
                    raise UploadRefused(f"the archive holds a link: {info.filename[:80]!r}")
                if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                    raise UploadRefused(
                        f"the archive holds a device, pipe or other special file:"
                        f" {info.filename[:80]!r}"
                    )
                yield Member(name, info.is_dir(), info.file_size, bool(mode & 0o111))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as error:
        raise UploadRefused(f"the zip archive cannot be read: {error}") from None


def check_archive(path: Path, limits: UploadLimits) -> tuple[str, list[Member]]:
    """The archive's kind and members, or UploadRefused naming the first rule it breaks."""
    size = path.stat().st_size
    if size > limits.upload_bytes:
        raise UploadRefused(_too_large(size, limits))
    with open(path, "rb") as archive:
        kind = archive_kind(archive.read(4))
        archive.seek(0)
        members: list[Member] = []
        unpacked = 0
        seen: set[PurePosixPath] = set()
        files: set[PurePosixPath] = set()
        folders: set[PurePosixPath] = set()
        listing = _tar_members(archive) if kind == "tar.gz" else _zip_members(archive)
        for member in listing:
            members.append(member)
            unpacked += member.size
            if len(members) > limits.files:
                raise UploadRefused(f"the archive holds more than {limits.files} entries")
            if unpacked > limits.unpacked_bytes:
                mib = limits.unpacked_bytes / (1 << 20)
                raise UploadRefused(f"the archive unpacks to more than {mib:g} MiB")
            if unpacked > limits.ratio * max(size, 1) and unpacked > CHUNK:
                raise UploadRefused(
                    f"the archive's compression ratio is past {limits.ratio:g}:1 (an archive bomb?)"
                )
            if member.name in seen and not member.is_folder:
                raise UploadRefused(f"the archive holds {str(member.name)!r} twice")
            # A name both a file and a folder ("a" then "a/b") would fail only when unpacked.
            if (member.name in folders and not member.is_folder) or any(
                name in files for name in (member.name, *member.name.parents)
            ):
                raise UploadRefused(
                    f"the archive holds {str(member.name)!r} both as a file and a folder"
                )
            seen.add(member.name)
            (folders if member.is_folder else files).add(member.name)
            folders.update(member.name.parents)
    if not any(not member.is_folder for member in members):
        raise UploadRefused("the archive holds no files")
    return kind, members


def _too_large(size: int, limits: UploadLimits) -> str:
    return (
        f"the upload is too large: {size / (1 << 20):.1f} MiB, at most"
        f" {limits.upload_bytes / (1 << 20):g} MiB"
    )


def store_upload(
    chunks: Iterable[bytes], folder: Path, stem: str, limits: UploadLimits
) -> tuple[Path, int]:
    """Write ``chunks`` to ``folder/STEM.tar.gz`` (or ``.zip``) whole or not at all,
    checked on the way; the file and its size. Refused (nothing left behind) past the
    size or any other rule."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = folder / f".{stem}.part"
    try:
        size = 0
        with open(temporary, "wb") as out:
            for chunk in chunks:
                size += len(chunk)
                if size > limits.upload_bytes:
                    raise UploadRefused(_too_large(size, limits))
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        kind, _ = check_archive(temporary, limits)
        final = folder / f"{stem}.{kind}"
        os.replace(temporary, final)
        _sync_folder(folder)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return final, size


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` survive a power cut."""
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def wrapping_folder(members: list[Member]) -> PurePosixPath | None:
    """The one folder that holds all of an archive, with nothing beside it (``zip -r
    mybot.zip mybot``, or a file manager's "compress"), if there is one."""
    tops = {member.name.parts[0] for member in members}
    if len(tops) != 1:
        return None
    top = PurePosixPath(tops.pop())
    return top if all(member.is_folder for member in members if member.name == top) else None


def unpack(archive: Path, folder: Path, limits: UploadLimits, *, unwrap: bool = False) -> None:
    """Unpack a stored archive into the new folder ``folder``, checked again as it goes:
    no entry leaves the folder, follows a link or writes more than its listing said.
    With ``unwrap``, an archive of one folder alone has that folder's contents unpacked
    (a kit's files belong at the top, where its build runs)."""
    kind, members = check_archive(archive, limits)
    folder.mkdir(mode=0o755, parents=True)
    wrapper = wrapping_folder(members) if unwrap else None
    by_name = {member.name: _unwrapped(member, wrapper) for member in members}
    with open(archive, "rb") as source:
        if kind == "tar.gz":
            with tarfile.open(fileobj=source, mode="r:gz") as tar:
                for info in tar:
                    if _safe_name(info.name) == TOP:
                        continue
                    member = by_name[_safe_name(info.name)]
                    extracted = None if member.is_folder else tar.extractfile(info)
                    _write_member(folder, member, extracted)
        else:
            with zipfile.ZipFile(source) as zipped:
                for entry in zipped.infolist():
                    if _safe_name(entry.filename) == TOP:
                        continue
                    member = by_name[_safe_name(entry.filename)]
                    if member.is_folder:
                        _write_member(folder, member, None)
                    else:
                        with zipped.open(entry) as extracted_zip:
                            _write_member(folder, member, extracted_zip)


def _unwrapped(member: Member, wrapper: PurePosixPath | None) -> Member:
    if wrapper is None:
        return member
    return replace(member, name=TOP / member.name.relative_to(wrapper))


def _write_member(folder: Path, member: Member, data: IO[bytes] | None) -> None:
    if member.name == TOP:
        return  # the wrapping folder itself: ``folder`` is made
    target = folder.joinpath(*member.name.parts)
    # Every folder on the way is one this unpacking made (no links are ever written), so
    # creating them cannot lead outside ``folder``.
    for parent in reversed(target.relative_to(folder).parents):
        where = folder / parent
        if where != folder:
            where.mkdir(mode=0o755, exist_ok=True)
    if member.is_folder or data is None:
        target.mkdir(mode=0o755, exist_ok=True)
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    handle = os.open(target, flags, 0o755 if member.executable else 0o644)
    written = 0
    with os.fdopen(handle, "wb") as out:
        while chunk := data.read(CHUNK):
            written += len(chunk)
            if written > member.size:
                raise UploadRefused(f"{str(member.name)!r} holds more than its listing says")
            out.write(chunk)


def pack_folder(folder: Path, limits: UploadLimits | None = None) -> bytes:
    """``folder`` as a tar.gz (build output and version control left out). A link or a
    special file in it is refused here, as the server would."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(_walk(folder)):
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                raise UploadRefused(f"{path} is a link: uploads hold files and folders only")
            if not (path.is_file() or path.is_dir()):
                raise UploadRefused(f"{path} is a special file: uploads hold files and folders")
            tar.add(path, arcname=relative, recursive=False)
    data = buffer.getvalue()
    if limits is not None and len(data) > limits.upload_bytes:
        raise UploadRefused(_too_large(len(data), limits))
    return data


def _walk(folder: Path) -> Iterator[Path]:
    for entry in os.scandir(folder):
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            if entry.name in SKIPPED_WHEN_PACKING:
                continue
            yield path
            yield from _walk(path)
        else:
            yield path
