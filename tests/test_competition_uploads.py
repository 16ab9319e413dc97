"""Uploads: every archive attack is refused in one line, and nothing of it is kept."""

from __future__ import annotations

import gzip
import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from goatarena.competition.uploads import (
    UploadLimits,
    UploadRefused,
    pack_folder,
    store_upload,
    unpack,
)

LIMITS = UploadLimits(upload_bytes=1 << 20, unpacked_bytes=4 << 20, files=50, ratio=100.0)


def tar_gz(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def member(name: str, data: bytes | None = b"print(1)\n", kind: bytes = tarfile.REGTYPE):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = 0o644
    return info, data


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def zipped(entries: list[tuple[str, bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(info, data)
    return buffer.getvalue()


def bomb() -> bytes:
    return tar_gz(member("zeros.bin", b"\0" * (3 << 20)))


ATTACKS = {
    "absolute path": (tar_gz(member("/etc/cron.d/evil")), "absolute path"),
    "dot-dot": (tar_gz(member("bot/../../evil.py")), "'..'"),
    "symbolic link": (tar_gz(link("bot/secrets", "/etc/shadow")), "link"),
    "hard link": (tar_gz(link("bot/secrets", "/etc/shadow", tarfile.LNKTYPE)), "link"),
    "device": (tar_gz(member("bot/disk", None, tarfile.CHRTYPE)), "device"),
    "pipe": (tar_gz(member("bot/fifo", None, tarfile.FIFOTYPE)), "special file"),
    "too many files": (tar_gz(*(member(f"f{n}.py") for n in range(60))), "more than 50 entries"),
    "compression bomb": (bomb(), "compression ratio"),
    "unpacks too large": (
        tar_gz(member("big.bin", bytes(range(256)) * (20 << 10))),
        "unpacks to more than 4 MiB",
    ),
    "too large": (gzip.compress(bytes(range(256)) * 8192, compresslevel=0), "too large"),
    "not an archive": (b"#!/bin/sh\nrm -rf /\n", "neither a tar.gz nor a zip"),
    "damaged gzip": (b"\x1f\x8b" + b"\xff" * 100, "cannot be read"),
    "zip dot-dot": (zipped([("../../evil.py", b"x", 0o100644)]), "'..'"),
    "zip absolute path": (zipped([("/tmp/evil.py", b"x", 0o100644)]), "absolute path"),
    "zip symbolic link": (zipped([("bot/secrets", b"/etc/shadow", 0o120777)]), "link"),
    "zip device": (zipped([("bot/disk", b"", 0o020644)]), "device"),
    "zip backslash": (zipped([("..\\..\\evil.py", b"x", 0o100644)]), "backslash"),
    "zip bomb": (zipped([("zeros.bin", b"\0" * (3 << 20), 0o100644)]), "compression ratio"),
    "file then inside it": (tar_gz(member("a"), member("a/b.py")), "both as a file and a folder"),
    "inside then file": (tar_gz(member("a/b.py"), member("a")), "both as a file and a folder"),
    "name past NAME_MAX": (tar_gz(member("a" * 300)), "too long to unpack"),
    "path past the limit": (tar_gz(member("/".join(["d" * 200] * 8))), "too long to unpack"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_archive_attack_is_refused_in_one_line_and_nothing_is_kept(tmp_path, attack):
    data, said = ATTACKS[attack]
    chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    with pytest.raises(UploadRefused) as caught:
        store_upload(chunks, tmp_path / "uploads", "1", LIMITS)
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)
    assert list((tmp_path / "uploads").iterdir()) == []
    assert not (tmp_path / "etc").exists() and not Path("/tmp/evil.py").exists()


def test_an_upload_cut_short_leaves_nothing(tmp_path):
    def chunks():
        yield b"\x1f\x8b"
        raise ConnectionResetError("client went away")

    with pytest.raises(ConnectionResetError):
        store_upload(chunks(), tmp_path / "uploads", "1", LIMITS)
    assert list((tmp_path / "uploads").iterdir()) == []


def test_an_honest_folder_packs_stores_and_unpacks_the_same(tmp_path):
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "main.py").write_text("print('hi')\n")
    (folder / "lib" / "util.py").write_text("X = 1\n")
    (folder / "bot").write_text("#!/bin/sh\nexec python3 main.py\n")
    (folder / "bot").chmod(0o755)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "junk.pyc").write_bytes(b"junk")
    data = pack_folder(folder, LIMITS)
    stored, size = store_upload([data], tmp_path / "uploads", "7", LIMITS)
    assert (stored, size) == (tmp_path / "uploads" / "7.tar.gz", len(data))
    assert stored.read_bytes() == data
    unpack(stored, tmp_path / "work", LIMITS)
    assert (tmp_path / "work" / "main.py").read_text() == "print('hi')\n"
    assert (tmp_path / "work" / "lib" / "util.py").read_text() == "X = 1\n"
    assert (tmp_path / "work" / "bot").stat().st_mode & stat.S_IXUSR
    assert not (tmp_path / "work" / "__pycache__").exists()


def test_a_zip_unpacks_too(tmp_path):
    data = zipped([("main.py", b"print(2)\n", 0o100644), ("bot", b"#!/bin/sh\n", 0o100755)])
    stored, _ = store_upload([data], tmp_path / "uploads", "2", LIMITS)
    assert stored.name == "2.zip"
    unpack(stored, tmp_path / "work", LIMITS)
    assert (tmp_path / "work" / "main.py").read_bytes() == b"print(2)\n"
    assert (tmp_path / "work" / "bot").stat().st_mode & stat.S_IXUSR


def test_packing_refuses_a_link_in_the_folder(tmp_path):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "main.py").write_text("")
    (tmp_path / "bot" / "secrets").symlink_to("/etc/passwd")
    with pytest.raises(UploadRefused, match="is a link"):
        pack_folder(tmp_path / "bot")


def test_an_archive_of_a_folders_contents_with_dot_names_is_taken(tmp_path):
    data = tar_gz(member("./", None, tarfile.DIRTYPE), member("./main.py"), member("./lib/x.py"))
    stored, _ = store_upload([data], tmp_path / "uploads", "3", LIMITS)
    unpack(stored, tmp_path / "work", LIMITS)
    assert (tmp_path / "work" / "lib" / "x.py").is_file()


def test_a_kit_folder_zipped_whole_is_unpacked_as_its_contents(tmp_path):
    """``zip -r mybot.zip mybot`` (or a file manager's "compress") wraps the files in
    their folder: a kit's build runs at the top, so the folder's contents go there."""
    data = zipped([("mybot/", b"", 0o40755), ("mybot/Makefile", b"bot:\n", 0o100644),
                   ("mybot/src/main.rs", b"fn main() {}\n", 0o100644)])  # fmt: skip
    stored, _ = store_upload([data], tmp_path / "uploads", "4", LIMITS)
    unpack(stored, tmp_path / "kit", LIMITS, unwrap=True)
    assert (tmp_path / "kit" / "Makefile").read_bytes() == b"bot:\n"
    assert (tmp_path / "kit" / "src" / "main.rs").is_file()
    assert not (tmp_path / "kit" / "mybot").exists()
    unpack(stored, tmp_path / "other", LIMITS)  # the organiser's own commands: as it came
    assert (tmp_path / "other" / "mybot" / "Makefile").is_file()
    # A folder beside a file, or a lone file, is no wrapping.
    beside = tar_gz(member("mybot/main.py"), member("Makefile"))
    stored, _ = store_upload([beside], tmp_path / "uploads", "5", LIMITS)
    unpack(stored, tmp_path / "beside", LIMITS, unwrap=True)
    assert (tmp_path / "beside" / "mybot" / "main.py").is_file()
    alone = tar_gz(member("main.py"))
    stored, _ = store_upload([alone], tmp_path / "uploads", "6", LIMITS)
    unpack(stored, tmp_path / "alone", LIMITS, unwrap=True)
    assert (tmp_path / "alone" / "main.py").is_file()
