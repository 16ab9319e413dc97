"""The report's header: the tournament's facts, read from what its store keeps.

The store keeps the tournament file it was bound with (as JSON), when it was bound,
when games finished, and (since this version) the goatarena version that bound it. A
store made by an older version, or one holding games without a tournament file, lacks
some of these: the header then says "not recorded" rather than guessing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import time
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

NOT_RECORDED = "not recorded"

Fact = tuple[str, str]
"""A header line: its label and its value."""


def parse_config(text: str | None) -> dict[str, Any]:
    """A stored JSON object (the tournament file, say) as a dict; empty when there is
    none or it is unreadable."""
    if not text:
        return {}
    try:
        config = json.loads(text)
    except ValueError:
        return {}
    return config if isinstance(config, dict) else {}


def tournament_facts(
    config: Mapping[str, Any],
    meta: Mapping[str, str | None],
    finished: tuple[float, float] | None,
) -> list[Fact]:
    """The header's facts: format, games, time control, violations policy, deals, dates,
    the goatarena version. ``meta`` holds the store's ``created_at`` and
    ``goatarena_version``; ``finished`` the first and last game's finishing times."""
    facts: list[Fact] = [
        ("format", _format_words(config)),
        ("games", _games_words(config)),
        ("time control", _time_words(config.get("time"))),
        ("violations", _policy_words(config.get("policy"))),
        ("deals", _deals_words(config)),
        ("played", _dates_words(meta.get("created_at"), finished)),
        (
            "goatarena",
            meta.get("goatarena_version") or f"{NOT_RECORDED} (stored by an older version)",
        ),
    ]
    return facts


def bot_facts(
    config: Mapping[str, Any],
    bots: Sequence[str],
    hellos: str | None = None,
    *,
    folder: str | None = None,
) -> list[Fact]:
    """Each bot's command as entered, for the bots of the tournament file and any other
    bot that played (a store without the file: the names alone), with the name the bot
    gave in its hello when the store kept it (``hellos``: the stored JSON). Paths in the
    commands are shown relative to ``folder`` (:func:`bots_folder`; see
    :func:`shown_command`)."""
    entered = config.get("bots")
    commands = (
        {str(name): str(command) for name, command in entered.items()}
        if isinstance(entered, dict)
        else {}
    )
    announced = parse_config(hellos)
    names = list(commands) + [bot for bot in bots if bot not in commands]
    facts = []
    for name in names:
        command = shown_command(commands[name], folder) if name in commands else NOT_RECORDED
        said = announced.get(name)
        if isinstance(said, str) and said and said != name:
            command += f"  (says it is {said!r})"
        facts.append((name, command))
    return facts


SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/etc", "/nix", "/snap")
"""Folders of the machine's programs: a path in them says nothing of the organiser."""


def shown_command(command: str, folder: str | None) -> str:
    """``command`` as the report shows it: each absolute path that shares more than the
    root with ``folder`` (the tournament file's) written relative to it (``bots/a.py``,
    ``../kits/go/bot``), so that the organiser's own folders (a home, a user name) stay
    off the page; system paths (``/usr/bin/python3``) are left as they are."""
    if folder is None:
        return command
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    shown = [_relative_word(word, folder) for word in words]
    return command if shown == words else shlex.join(shown)


def _relative_word(word: str, folder: str) -> str:
    option, equals, value = word.partition("=")
    if equals and option.startswith("-"):  # --model=/home/me/t/model.bin
        return f"{option}={_relative_word(value, folder)}"
    if not os.path.isabs(word) or os.path.commonpath([folder, word]) == os.sep:
        return word
    relative = os.path.relpath(word, folder)
    return relative if relative.startswith("..") else os.path.join(".", relative)


def bots_folder(config: Mapping[str, Any], kept: str | None) -> str | None:
    """The folder the report shows bots' paths relative to: the tournament file's, as
    the store ``kept`` it, else the one the file's commands share (:func:`shared_folder`)."""
    entered = config.get("bots")
    commands = [str(command) for command in entered.values()] if isinstance(entered, dict) else []
    return kept or shared_folder(commands)


def shown_text(text: str, folder: str | None) -> str:
    """``text`` (a reason naming a bot's program, a crash's last line of stderr) with
    each absolute path that shares more than the root with ``folder`` written relative to
    it (``./bots/a``, ``../results/x``), as :func:`shown_command` shows commands."""
    if folder is None:
        return text
    pattern, relative = _folder_pattern(os.path.normpath(folder))
    if pattern is None:
        return text
    # A path ending at the matched folder reads "." or ".."; one going on, "./" or "../".
    return pattern.sub(lambda found: relative[found.group(1)] + found.group(2), text)


def _folder_pattern(folder: str) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """A pattern matching ``folder`` or one of its folders but the root at the start of
    an absolute path, and the relative path that stands for each."""
    relative: dict[str, str] = {}
    path, up = folder, "."
    while os.path.dirname(path) != path:
        relative[path] = up
        path, up = os.path.dirname(path), ".." if up == "." else f"{up}/.."
    if not relative:
        return None, relative
    # The deepest folder first; never inside a longer name or path (``x/home``, ``/homes``).
    choices = "|".join(re.escape(path) for path in relative)
    return re.compile(rf"(?<![\w.~/-])({choices})(/|(?![\w.~-]))"), relative


def shared_folder(commands: Iterable[str]) -> str | None:
    """The folder the commands' own absolute paths share (not the system's), standing in
    for the tournament file's folder in a store that did not keep it; None if none."""
    paths = []
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        paths += [
            os.path.dirname(word)
            for word in words
            if os.path.isabs(word) and not word.startswith(tuple(f"{f}/" for f in SYSTEM_FOLDERS))
        ]
    if not paths:
        return None
    shared = os.path.commonpath(paths)
    return None if shared == os.sep else shared


OUT_WORDS = (("retired", "retired"), ("suspended", "suspended"))
"""How a bot's reason for playing no more begins -> the word that marks it (else
"disqualified")."""


def out_word(reason: str) -> str:
    """The one word that marks a bot out of play: retired, suspended or disqualified."""
    return next((word for start, word in OUT_WORDS if reason.startswith(start)), "disqualified")


def facts_section(
    facts: Sequence[Fact], bots: Sequence[Fact], out: Mapping[str, str] | None = None
) -> str:
    """The header's facts as a definition list, then the bots and their commands; a bot
    that plays no more (``out``: name -> why) is marked, with its reason."""
    rows = "".join(f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in facts)
    out = out or {}
    commands = "".join(
        f"<dt>{escape(name)}{out_mark(out.get(name))}</dt><dd><code>{escape(command)}</code>"
        + (f'<small class="out-reason">{escape(out[name])}</small>' if name in out else "")
        + "</dd>"
        for name, command in bots
    )
    return (
        f'<dl class="facts">{rows}</dl>'
        f'<details class="bots" open><summary>bots and their commands</summary>'
        f'<dl class="facts">{commands}</dl></details>'
    )


def out_mark(reason: str | None) -> str:
    """The mark after a bot's name that says it plays no more (its reason as the
    tooltip); empty for ``None``."""
    if reason is None:
        return ""
    return f' <span class="out" title="{escape(reason)}">{out_word(reason)}</span>'


def plural(count: int, word: str, words: str | None = None) -> str:
    """ "1 game type", "2 game types" (``words``: an irregular plural)."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def _format_words(config: Mapping[str, Any]) -> str:
    kind = config.get("format")
    if not kind:
        return NOT_RECORDED
    words = str(kind)
    if kind == "swiss" and config.get("rounds"):
        words += f", {plural(int(config['rounds']), 'round')}"
    if kind == "gauntlet" and config.get("challengers"):
        words += f", challenger {', '.join(map(str, config['challengers']))}"
        sprt = config.get("sprt")
        if isinstance(sprt, dict):
            words += (
                f"; SPRT elo0 {sprt.get('elo0', 0):g}, elo1 {sprt.get('elo1', 0):g},"
                f" alpha {sprt.get('alpha', 0.05):g}, beta {sprt.get('beta', 0.05):g}"
            )
    return words


def _games_words(config: Mapping[str, Any]) -> str:
    entries = config.get("games")
    if not isinstance(entries, list) or not entries:
        return NOT_RECORDED
    parts = []
    for entry in entries:
        options = entry.get("options") or {}
        extra = "".join(f", {key}={value}" for key, value in options.items())
        parts.append(f"{entry.get('name')} ({entry.get('players', 2)} players{extra})")
    return "; ".join(parts)


def _time_words(control: Any) -> str:
    if not isinstance(control, dict):
        return NOT_RECORDED
    words = f"{control.get('move_ms', 1000)} ms a decision"
    if control.get("bank_ms"):
        words += f", a bank of {control['bank_ms']} ms"
    if control.get("increment_ms"):
        words += f" + {control['increment_ms']} ms a decision"
    words += (
        f"; {control.get('margin_ms', 25)} ms grace; {control.get('startup_ms', 10000)} ms to start"
    )
    return words


def _policy_words(policy: Any) -> str:
    if not isinstance(policy, dict):
        return NOT_RECORDED
    causes = ("timeout", "illegal", "malformed", "crash")
    words = ", ".join(f"{cause}: {policy.get(cause, 'forfeit')}" for cause in causes)
    return words + f"; {policy.get('strikes', 3)} strikes forfeit"


def _deals_words(config: Mapping[str, Any]) -> str:
    if not config:
        return NOT_RECORDED
    count = plural(int(config.get("deals", 1)), "deal")
    if config.get("secret_deals", True):
        return (
            f"{count} per table, secret deals (drawn from the store's own secret; seeds per game)"
        )
    return f"{count} per table, seed {config.get('seed', 0)}"


def _dates_words(created_at: str | None, finished: tuple[float, float] | None) -> str:
    parts = []
    if created_at:
        with contextlib.suppress(ValueError):  # a value some other program wrote
            parts.append(f"started {_utc(float(created_at))}")
    if finished is not None:
        parts.append(f"last game finished {_utc(finished[1])}")
    return ", ".join(parts) or NOT_RECORDED


def _utc(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(stamp))
