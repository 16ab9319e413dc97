"""Editing a ladder's tournament file: add a bot, a new version of one, retire one.

The file stays the user's: the edit changes only the lines it must (a line added to
``[bots]``, the ``retired`` line of ``[ladder]``), keeps every comment, and is written
whole or not at all (a new file checked as a tournament file, then renamed over the
old). A running ladder notices the change within ``ladder.poll_s`` seconds.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from goatarena.errors import ConfigError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.ladder.roster import base_name, latest_version, next_version
from goatarena.formats.tournament_file import load_config

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")
_RETIRED = re.compile(r"^\s*retired\s*=")


def _quoted(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _table_span(lines: list[str], table: str) -> tuple[int, int] | None:
    """The index of ``[table]``'s header line and of the line after its last line."""
    start = next((i for i, line in enumerate(lines) if _header(line) == table), None)
    if start is None:
        return None
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
        len(lines),
    )
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end


def _header(line: str) -> str | None:
    found = _HEADER.match(line)
    return found.group(1) if found else None


def _with_bot(text: str, name: str, command: str) -> str:
    lines = text.splitlines()
    span = _table_span(lines, "bots")
    if span is None:
        raise ConfigError("the file has no [bots] table to add the bot to")
    lines.insert(span[1], f"{_quoted(name)} = {_quoted(command)}")
    return "\n".join(lines) + "\n"


def _with_retired(text: str, retired: list[str]) -> str:
    lines = text.splitlines()
    line = f"retired = [{', '.join(_quoted(name) for name in retired)}]"
    span = _table_span(lines, "ladder")
    if span is None:
        return text.rstrip("\n") + f"\n\n[ladder]\n{line}\n"
    start, end = span
    found = next((i for i in range(start + 1, end) if _RETIRED.match(lines[i])), None)
    if found is None:
        lines.insert(start + 1, line)
    else:
        lines[found] = line
    return "\n".join(lines) + "\n"


def _ladder(path: Path) -> tuple[TournamentConfig, str]:
    config = load_config(path)
    if config.format != "ladder":
        raise ConfigError(f'{path} is a {config.format}, not a ladder (format = "ladder")')
    return config, path.read_text(encoding="utf-8")


def _write_checked(path: Path, text: str, bots: dict[str, str], retired: list[str]) -> None:
    """Write ``text`` over ``path`` if it reads back as a ladder with these bots and
    retired versions; otherwise leave the file as it was and say why."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".toml")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        written = load_config(Path(temporary))
        if set(written.bots) != set(bots) or sorted(written.ladder.retired) != sorted(retired):
            raise ConfigError(
                f"{path} could not be edited safely (is [ladder] retired split over lines?):"
                " edit it by hand"
            )
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def add_bot(path: Path, name: str, command: str) -> str:
    """Add bot ``name`` playing ``command``; what was done, in words."""
    config, text = _ladder(path)
    if "@" in name:
        raise ConfigError(f"{name!r}: versions are named by `goatarena ladder update`")
    if latest_version(list(config.bots), name) is not None:
        raise ConfigError(
            f"{name!r} is in the ladder already: `goatarena ladder update` adds a version"
        )
    bots = {**config.bots, name: command}
    _write_checked(path, _with_bot(text, name, command), bots, list(config.ladder.retired))
    return f"added {name} to {path}"


def update_bot(path: Path, name: str, command: str) -> str:
    """Add a new version of bot ``name`` playing ``command``, retiring the one before."""
    config, text = _ladder(path)
    base = base_name(name)
    latest = latest_version(list(config.bots), base)
    if latest is None:
        raise ConfigError(f"no bot {base!r} in the ladder: `goatarena ladder add` adds it")
    new = next_version(list(config.bots), base)
    retired = list(config.ladder.retired)
    if latest not in retired:
        retired.append(latest)
    text = _with_retired(_with_bot(text, new, command), retired)
    _write_checked(path, text, {**config.bots, new: command}, retired)
    return f"added {new} to {path}; {latest} is retired"


def retire_bot(path: Path, name: str) -> str:
    """Retire bot ``name`` (a version, or a bot's newest version by its name)."""
    config, text = _ladder(path)
    version = name if name in config.bots else latest_version(list(config.bots), name)
    if version is None:
        raise ConfigError(f"no bot {name!r} in the ladder")
    if version in config.ladder.retired:
        raise ConfigError(f"{version} is retired already")
    retired = [*config.ladder.retired, version]
    _write_checked(path, _with_retired(text, retired), dict(config.bots), retired)
    return f"retired {version} in {path}"
