"""A competition's settings: the ``[competition]`` section of a ladder's file.

A competition is a ladder that strangers submit bots to (``goatarena.competition``):
who may register, which languages are built, and the limits every entrant keeps to.
Only the ladder format takes this section.
"""

from __future__ import annotations

import datetime
import ipaddress
from typing import Literal

import msgspec

KIT_LANGUAGES = ("python", "cpp", "go", "java", "rust", "typescript")
"""The languages of the starter kits (``goatarena new-bot``): each builds with ``make``
in the bot's folder, and ``./bot`` is then its command."""


class LanguageCommands(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An organiser's own language: the command that builds a submitted folder (run in
    it, in the sandbox) and the bot's command afterwards (its words relative to it)."""

    build: str = "make"
    run: str = "./bot"


class CompetitionSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What strangers submitting bots to a ladder may do (``[competition]``).

    ``registration``: ``"invite"`` (the organiser adds entrants with ``goatarena entrant
    add``) or ``"open"`` (anyone registers a name on the site). ``languages`` are kit
    languages (:data:`KIT_LANGUAGES`) or names of ``commands``, the organiser's own.
    ``upload_mib`` caps an upload's size, ``unpacked_mib`` and ``files`` what it unpacks
    to and ``ratio`` its compression ratio. A build has ``build_s`` seconds,
    ``build_memory_mib`` of memory and ``build_processes`` processes, and may write files
    of up to ``build_file_mib`` each, ``build_disk_mib`` and ``build_files`` in all in its
    folder; its log keeps ``build_log_kib``. An entrant may submit
    ``per_day`` times a day and keeps ``active_versions`` versions in the ladder (older
    ones are retired). ``validation_games`` are played per game and seat count before a
    version joins, against itself and ``reference`` (a bot of ``[bots]``; unset: the
    first). A new version then plays up to ``compare_games`` paired games against the
    entrant's previous one, for its owner (0: none). After ``closes`` (an offset
    date-time) uploads are refused. ``trusted_proxy`` is the address of the reverse proxy
    in front of the site: from it alone, ``X-Forwarded-For`` names the client (the pause
    after wrong tokens then applies to each client, not to the proxy's address).
    """

    registration: Literal["invite", "open"] = "invite"
    languages: list[str] = msgspec.field(default_factory=lambda: ["python"])
    commands: dict[str, LanguageCommands] = {}
    upload_mib: float = 20.0
    unpacked_mib: float = 200.0
    files: int = 5000
    ratio: float = 100.0
    build_s: float = 300.0
    build_memory_mib: int = 2048
    build_processes: int = 256
    build_file_mib: int = 512
    build_disk_mib: int = 2048
    build_files: int = 100_000
    build_log_kib: int = 256
    per_day: int = 20
    active_versions: int = 1
    validation_games: int = 2
    compare_games: int = 100
    reference: str | None = None
    closes: datetime.datetime | None = None
    trusted_proxy: str | None = None

    def check(self, bots: dict[str, str]) -> None:
        """Refuse settings that cannot work, naming the key (raises ValueError)."""
        for language in self.languages:
            if language not in KIT_LANGUAGES and language not in self.commands:
                known = ", ".join([*KIT_LANGUAGES, *self.commands])
                raise ValueError(
                    f"competition.languages: {language!r} is neither a kit's language nor"
                    f" one of competition.commands (known: {known})"
                )
        if not self.languages:
            raise ValueError("competition.languages: name at least one language")
        for key in ("upload_mib", "unpacked_mib", "ratio", "build_s"):
            if not getattr(self, key) > 0:
                raise ValueError(f"competition.{key}: must be above 0")
        if self.compare_games < 0:
            raise ValueError("competition.compare_games: must be at least 0")
        for key in (
            "files",
            "build_memory_mib",
            "build_processes",
            "build_file_mib",
            "build_disk_mib",
            "build_files",
        ):
            if getattr(self, key) < 1:
                raise ValueError(f"competition.{key}: must be at least 1")
        for key in ("per_day", "active_versions", "validation_games", "build_log_kib"):
            if getattr(self, key) < 1:
                raise ValueError(f"competition.{key}: must be at least 1")
        if self.trusted_proxy is not None:
            try:
                ipaddress.ip_address(self.trusted_proxy)
            except ValueError:
                raise ValueError(
                    f"competition.trusted_proxy: {self.trusted_proxy!r} is not an IP address"
                ) from None
        if self.reference is not None and self.reference not in bots:
            raise ValueError(f"competition.reference: no bot {self.reference!r} in [bots]")
        if not bots and self.reference is None:
            raise ValueError("competition: [bots] needs a reference bot to validate against")
        if self.closes is not None and self.closes.tzinfo is None:
            raise ValueError(
                "competition.closes: give the time zone (2026-12-31T18:00:00Z, or +01:00)"
            )

    def reference_bot(self, bots: dict[str, str]) -> str:
        """The name of the organiser's bot new versions are validated against."""
        return self.reference or next(iter(bots))

    def closed(self, now: datetime.datetime) -> bool:
        """Whether uploads are refused at ``now`` (an aware date-time)."""
        return self.closes is not None and now >= self.closes

    def build_commands(self, language: str) -> LanguageCommands:
        """How a folder of ``language`` is built and run."""
        return self.commands.get(language, LanguageCommands())
