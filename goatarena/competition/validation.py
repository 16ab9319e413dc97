"""The gate a new version passes before it plays a rated game.

For every game of the competition: check-bot's checks (start-up, unknown messages, many
games from random states in every seat, several games in one process, quit, stdin
closed), then whole games against itself and against the organiser's reference bot,
under the competition's clock, in the sandbox games are played in. The first failure is
the reason, with the bot's stderr from the gate (capped) as its log.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from goatarena.checkbot import CheckSettings, check_bot
from goatarena.formats.config import TournamentConfig
from goatarena.games import find_game
from goatarena.referee.lineup import open_lineup
from goatarena.referee.match import play_match
from goatarena.referee.sandbox import SandboxPolicy

LOG_CAP = 64 << 10
"""How much of the bot's stderr during the gate is kept with its result."""


@dataclass(frozen=True)
class ValidationResult:
    """Whether a version passed the gate; why not; its stderr meanwhile."""

    ok: bool
    reason: str
    log: str


async def validate(
    command: str,
    config: TournamentConfig,
    *,
    games: int,
    reference: str,
    sandbox: SandboxPolicy,
    seed: int = 1,
    scratch: Path | None = None,
) -> ValidationResult:
    """Run the gate on the bot ``command`` for ``config``'s games; ``reference`` is the
    organiser's bot's command it plays against. The bot's stderr is kept meanwhile in a
    folder made in ``scratch`` (the system's temporary folder by default)."""
    with tempfile.TemporaryDirectory(prefix="goatarena-validation-", dir=scratch) as made:
        logs = Path(made)
        reason = await _checks(command, config, games, sandbox, logs, seed)
        if reason is None:
            reason = await _games(command, config, reference, sandbox, logs, seed)
        log = _read_logs(logs)
    return ValidationResult(reason is None, reason or "", log)


async def _checks(
    command: str,
    config: TournamentConfig,
    games: int,
    sandbox: SandboxPolicy,
    logs: Path,
    seed: int,
) -> str | None:
    for entry in dict.fromkeys(entry.name for entry in config.games):
        settings = CheckSettings(
            games=games,
            move_ms=max(config.time.move_ms, 100),
            startup_ms=config.time.startup_ms,
            seed=seed,
            game=entry,
            sandbox=sandbox,
            log_dir=logs,
        )
        for result in await check_bot(command, settings):
            if not result.passed:
                return f"check-bot's {result.check} check failed: {result.detail}"
    return None


async def _games(
    command: str,
    config: TournamentConfig,
    reference: str,
    sandbox: SandboxPolicy,
    logs: Path,
    seed: int,
) -> str | None:
    for number, entry in enumerate(config.games):
        info = find_game(entry.name)
        for opponent, against in ((command, "itself"), (reference, "the reference bot")):
            seats = [command, *[opponent] * (entry.players - 1)]
            game_logs = logs / f"game{number}-{'self' if opponent == command else 'ref'}"
            game_logs.mkdir()
            async with open_lineup(
                seats,
                startup_s=config.time.startup_ms / 1000,
                limits=config.limits,
                log_dir=game_logs,
                sandbox=sandbox,
            ) as lineup:
                broken = lineup[0].broken
                if broken is not None:
                    return f"it did not start against {against} in {entry.name}: {broken}"
                result = await play_match(
                    info,
                    lineup,
                    seed=seed + number,
                    options=entry.options,
                    time_control=config.time,
                )
            own_seats = [0] if opponent != command else range(entry.players)
            for seat in own_seats:
                every = result.all_violations[seat] if result.all_violations else []
                first = every[0] if every else result.violations[seat]
                if first is not None:
                    return (
                        f"a game of {entry.name} against {against}: {first.cause} at decision"
                        f" {first.decision}: {first.detail}"
                    )
    return None


def _read_logs(logs: Path) -> str:
    """The bot's stderr from the gate, the newest last, at most :data:`LOG_CAP` bytes."""
    parts = []
    for path in sorted(logs.rglob("*.log"), key=lambda path: path.stat().st_mtime):
        if path.name.startswith("seat") and path.name != "seat0.log" and "self" not in str(path):
            continue  # the reference bot's stderr is the organiser's, not the entrant's
        text = path.read_text(encoding="utf-8", errors="replace")
        if text.strip():
            parts.append(f"--- {path.relative_to(logs)}\n{text}")
    joined = "\n".join(parts)
    return joined[-LOG_CAP:]
