"""Tournament files: TOML decoded and validated into a :class:`TournamentConfig`.

An error names the file, the field and the problem, and nothing runs.
"""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from pathlib import Path

import msgspec

from goatarena.errors import ConfigError, GoatArenaError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.size import check_size
from goatarena.games import find_game

_OVERWRITE = re.compile(r"Cannot overwrite a value \(at line (\d+),")


def _repeated_key(text: str, error: tomllib.TOMLDecodeError) -> str:
    """What tomllib's "Cannot overwrite a value" means, with the key: the same key twice in
    one table, most often two bots given one name."""
    found = _OVERWRITE.search(str(error))
    lines = text.split("\n")  # not splitlines(): U+2028 in a string is not a line break
    if found is None or not 0 < int(found.group(1)) <= len(lines):
        return ""
    key = lines[int(found.group(1)) - 1].split("=", 1)[0].strip()
    return f": the key {key} appears twice in its table (two bots with one name?)" if key else ""


def load_config(path: Path) -> TournamentConfig:
    """Read and validate a tournament file; raise :class:`ConfigError` naming the problem."""
    try:
        # utf-8-sig: a byte-order mark, as some Windows editors write, is not an error.
        text = path.read_text(encoding="utf-8-sig")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such tournament file") from None
    except UnicodeDecodeError as error:
        line = bytes(error.object[: error.start]).count(b"\n") + 1
        raise ConfigError(f"{path}: not UTF-8 text (line {line})") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}{_repeated_key(text, error)}") from None
    try:
        config = msgspec.convert(data, TournamentConfig)
    except msgspec.ValidationError as error:
        raise ConfigError(f"{path}: {_readable(str(error))}") from None
    try:
        check_config(config)
    except GoatArenaError as error:
        raise ConfigError(f"{path}: {error}") from None
    try:
        base = path.parent.absolute()
    except OSError as error:  # the working folder was deleted under the shell
        raise ConfigError(
            f"{path}: cannot tell which folder it is in: {error.strerror or error}"
            " (the working folder is gone; cd to another, or give the file's full path)"
        ) from None
    bots = {name: resolve_command(command, base) for name, command in config.bots.items()}
    return msgspec.structs.replace(config, bots=bots)


def resolve_command(command: str, base: Path) -> str:
    """``command`` with every word that names an existing file or folder relative to
    ``base`` (the tournament file's folder) made absolute, so that a tournament runs the
    same from any working directory.

    A word written as a relative path (``./bot``, ``../kits/go/bot``) is resolved even
    when it names nothing yet: a program its kit's ``make`` will build. Options (words
    starting with ``-``) and absolute paths are left alone, as is every other word that
    names nothing under ``base``: it keeps its meaning relative to the working directory.
    A command with nothing to resolve is returned unchanged, quoting and all.
    """
    try:
        words = shlex.split(command)
    except ValueError:
        return command  # the bot launcher reports the unparsable command
    resolved = [
        os.path.normpath(base / word) if _names_a_path(base, word) else word for word in words
    ]
    return command if resolved == words else shlex.join(resolved)


def _names_a_path(base: Path, word: str) -> bool:
    if not word or word.startswith("-") or os.path.isabs(word):
        return False
    if word.startswith(("./", "../")):
        return True
    try:
        return (base / word).exists()
    except (OSError, ValueError):  # too long, or a NUL: not a path
        return False


def _readable(message: str) -> str:
    # msgspec says "... - at `$.games[0].players`"; name the field first, TOML-style.
    if " - at `$." in message:
        problem, where = message.rsplit(" - at `$.", 1)
        return f"{where.rstrip('`')}: {problem}"
    return message


MAX_BOT_NAME_CHARS = 64
"""The longest bot name (a version's ``@N`` not counted)."""
BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(@[0-9]{1,6})?", re.ASCII)
"""A bot's name in a tournament file: ASCII letters, digits, ``-``, ``_`` and ``.``,
starting with a letter or digit, at most 64 characters; a ladder's later versions of a
bot add ``@2``, ``@3``, ... to its name. It appears in game keys (whose separators
``/`` and ``+`` it cannot hold, so every key names its table unambiguously), in log file
names and in printed tables."""
MAX_NAME_CHARS = 64
"""The longest tournament name: it names the results file and the log folder."""
MAX_MB = 1 << 24
"""The largest memory or ``/tmp`` size, in MiB (16 TiB): the limits are set in bytes, and
a larger number would overflow what the kernel and bubblewrap take."""
MAX_COMMAND_CHARS = 1 << 16
"""The longest bot command (Linux takes no argument past 128 KiB, and splitting a longer
line into words takes time that grows with the square of its length)."""
MAX_CONCURRENCY = 1024
"""The most games one run plays at once: each game starts its bots, so a larger number
would start processes by the ten thousand and exhaust the machine before any game ends."""
MAX_SPRT_ELO = 1000
"""The largest Elo difference an SPRT's hypotheses may name, either way."""
MAX_KB = 1 << 30
"""The largest line or log cap, in KiB (1 TiB)."""


def check_names(config: TournamentConfig) -> None:
    """Refuse a tournament or bot name that could not be stored, printed or keyed safely."""
    name = config.name
    if not name.strip() or "/" in name or "\\" in name or not name.isprintable():
        raise ConfigError("name: must be a non-empty, printable name without '/' or '\\'")
    if len(name) > MAX_NAME_CHARS:
        raise ConfigError(f"name: at most {MAX_NAME_CHARS} characters, not {len(name)}")
    for bot in config.bots:
        problem = bot_name_problem(bot)
        if problem is not None:
            raise ConfigError(f"bots: {problem}")


def bot_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a bot (see :data:`BOT_NAME`), in words; None if it can."""
    if BOT_NAME.fullmatch(name):
        return None
    shown = repr(name[:MAX_NAME_CHARS] + ("..." if len(name) > MAX_NAME_CHARS else ""))
    return (
        f"the name {shown} is not allowed: use at most {MAX_BOT_NAME_CHARS} ASCII letters"
        " (a-z, A-Z), digits, '-', '_' and '.', starting with a letter or digit"
    )


def check_config(config: TournamentConfig) -> None:
    """Check what the schema cannot: names, known games, table sizes, enough bots, sane numbers."""
    check_names(config)
    if config.rounds and config.format != "swiss":
        raise ConfigError(f"rounds: only a Swiss tournament has rounds, not a {config.format}")
    _check_gauntlet(config)
    _check_ladder(config)
    _check_competition(config)
    # A competition's entrants join as it runs: its own bots may be a reference alone.
    fewest = 1 if config.competition is not None else 2
    if len(config.bots) < fewest:
        raise ConfigError("bots: a tournament needs at least two bots")
    if not config.games:
        raise ConfigError("games: list at least one game")
    for field, value, least, most in (
        ("deals", config.deals, 1, None),
        ("rounds", config.rounds, 0, None),
        ("concurrency", config.concurrency, 0, MAX_CONCURRENCY),
        ("memory_mb", config.memory_mb, 16, MAX_MB),
        ("line_kb", config.line_kb, 1, MAX_KB),
        ("log_kb", config.log_kb, 0, MAX_KB),
        ("tmp_mb", config.tmp_mb, 1, MAX_MB),
        ("crash_limit", config.crash_limit, 0, None),
    ):
        if value < least:
            raise ConfigError(f"{field}: must be at least {least}, not {value}")
        if most is not None and value > most:
            raise ConfigError(f"{field}: must be at most {most}, not {value}")
    for index, entry in enumerate(config.games):
        info = find_game(entry.name)
        try:
            info.check_options(entry.players, entry.options)
        except ConfigError as error:
            raise ConfigError(f"games[{index}]: {error}") from None
        if entry.players > len(config.bots) and config.competition is None:
            raise ConfigError(
                f"games[{index}]: tables of {entry.players} need at least"
                f" {entry.players} bots, there are {len(config.bots)}"
            )
    for name, command in config.bots.items():
        if not command.strip():
            raise ConfigError(f"bots.{name}: empty command")
        if "\0" in command:  # no program can be given one: the OS would refuse it
            raise ConfigError(f"bots.{name}: the command holds a NUL character")
        if len(command) > MAX_COMMAND_CHARS:
            raise ConfigError(
                f"bots.{name}: the command is {len(command):,} characters long,"
                f" at most {MAX_COMMAND_CHARS:,}"
            )
    for name, extra in config.paths.items():
        for kind, paths in (("read", extra.read), ("write", extra.write)):
            if any("\0" in path or not path for path in paths):
                raise ConfigError(f"paths.{name}.{kind}: a path is empty or holds a NUL character")
    check_size(config)
    for name in config.paths:
        if name not in config.bots:
            raise ConfigError(f"paths.{name}: no bot of that name")


_LADDER_RANGES = (
    ("stop_games", 0, None),
    ("stop_minutes", 0, None),
    ("stop_separated", 0, None),
    ("suspend_games", 1, None),
    ("suspend_share", 0, 1),
    ("min_games", 0, None),
    ("floor", 0, 0.99),
    ("explore", 0, 1),
    ("top_k", 1, None),
    ("poll_s", 0.1, 3600),
    ("trend_games", 1, None),
)
"""Each ``[ladder]`` number's least and greatest value (None: no bound)."""


def _check_ladder(config: TournamentConfig) -> None:
    """A ``[ladder]`` table only in a ladder; its numbers in range, its retired bots known."""
    settings = config.ladder
    if config.format != "ladder":
        if msgspec.to_builtins(settings) != msgspec.to_builtins(type(settings)()):
            raise ConfigError('ladder: only a ladder has these settings (format = "ladder")')
        return
    for field, least, most in _LADDER_RANGES:
        value = getattr(settings, field)
        if value is None:
            continue
        if not least <= value or (most is not None and value > most) or value != value:
            bound = f"between {least} and {most}" if most is not None else f"at least {least}"
            raise ConfigError(f"ladder.{field}: must be {bound}, not {value}")
    for name in settings.retired:
        if name not in config.bots:
            raise ConfigError(f"ladder.retired: {name!r} is not one of the bots")


def _check_competition(config: TournamentConfig) -> None:
    """A ``[competition]`` only in a ladder, with settings that can work."""
    if config.competition is None:
        return
    if config.format != "ladder":
        raise ConfigError('competition: a competition is a ladder (format = "ladder")')
    try:
        config.competition.check(config.bots)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _check_gauntlet(config: TournamentConfig) -> None:
    """Challengers only in a gauntlet, which needs them; an SPRT only where it applies."""
    if config.format != "gauntlet":
        if config.challengers:
            raise ConfigError('challengers: only a gauntlet has challengers (format = "gauntlet")')
        if config.sprt is not None:
            raise ConfigError('sprt: an SPRT runs in a gauntlet (format = "gauntlet")')
        return
    if not config.challengers:
        raise ConfigError('challengers: a gauntlet needs at least one, e.g. challengers = ["new"]')
    for name in config.challengers:
        if name not in config.bots:
            raise ConfigError(f"challengers: {name!r} is not one of the bots")
    if len(set(config.challengers)) == len(config.bots):
        raise ConfigError("challengers: a gauntlet needs at least one bot that is not a challenger")
    sprt = config.sprt
    if sprt is None:
        return
    if len(config.challengers) != 1 or len(config.bots) != 2:
        raise ConfigError("sprt: tests one challenger against one baseline: list exactly two bots")
    if any(entry.players != 2 for entry in config.games):
        raise ConfigError("sprt: needs two-player tables (players = 2 in every game)")
    for field, value in (("elo0", sprt.elo0), ("elo1", sprt.elo1)):
        # Past a few hundred Elo the expected score rounds to 0 or 1 and the test has
        # nothing to tell apart; NaN and infinities are refused here too.
        if not -MAX_SPRT_ELO <= value <= MAX_SPRT_ELO:
            raise ConfigError(
                f"sprt.{field}: must be between {-MAX_SPRT_ELO} and {MAX_SPRT_ELO}, not {value}"
            )
    if not sprt.elo0 < sprt.elo1:
        raise ConfigError(f"sprt: elo0 must be less than elo1 ({sprt.elo0} >= {sprt.elo1})")
    for field, value in (("alpha", sprt.alpha), ("beta", sprt.beta)):
        if not 0.0 < value < 0.5:
            raise ConfigError(f"sprt.{field}: must be between 0 and 0.5, not {value}")
