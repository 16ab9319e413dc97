"""A ladder's live state, for its page (``/ladder``): every version in the ladder's file
with where it stands (active, suspended, disqualified or retired) and why, and the
latest games each with the reason the ladder chose its deal (what ``goatarena ladder
why`` says of one game).

Everything is read afresh on each visit, from what the running ladder keeps in the
store: its file (it rewrites the stored copy when the file changes), the bots it put
out with the reason, and the reason of every deal it chose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from goatarena.formats.ladder.roster import SUSPENDED, base_name, latest_version
from goatarena.report.facts import parse_config
from goatarena.store.browsing import ladder_choices_of, summaries_numbered
from goatarena.store.database import Store
from goatarena.store.standings import retired_bots
from goatarena.web.answers import GameRow
from goatarena.web.follow import game_row

ACTIVE, SUSPENDED_STATE, DISQUALIFIED, RETIRED_STATE = (
    "active",
    "suspended",
    "disqualified",
    "retired",
)
"""Where a version stands, in the order the page lists them."""
STATE_ORDER = (ACTIVE, SUSPENDED_STATE, DISQUALIFIED, RETIRED_STATE)


@dataclass(frozen=True)
class LadderBot:
    """One version in the ladder's file: where it stands and why."""

    name: str
    state: str
    reason: str


@dataclass(frozen=True)
class ChosenGame:
    """One of the latest games with why the ladder chose its deal (None: not recorded)."""

    row: GameRow
    rule: str | None
    reason: str | None


@dataclass(frozen=True)
class LadderState:
    """What the ladder's page shows."""

    bots: list[LadderBot]
    games: list[ChosenGame]

    def counts(self) -> dict[str, int]:
        """How many versions stand in each state."""
        return {state: sum(bot.state == state for bot in self.bots) for state in STATE_ORDER}


def bot_states(
    bots: Sequence[str], retired: Sequence[str], put_out: dict[str, str]
) -> list[LadderBot]:
    """Each of ``bots`` with its state and reason: retired (replaced by a newer version,
    or retired in the file), suspended or disqualified (the ladder's stored reason),
    else active."""
    found = []
    for name in bots:
        why_out = put_out.get(name)
        if name in retired:
            newest = latest_version(bots, base_name(name))
            reason = (
                f"replaced by its newer version {newest}"
                if newest is not None and newest != name
                else "retired in the ladder's file"
            )
            if why_out:
                reason += f"; before that: {why_out}"
            found.append(LadderBot(name, RETIRED_STATE, reason))
        elif why_out is not None and why_out.startswith(SUSPENDED):
            found.append(LadderBot(name, SUSPENDED_STATE, why_out.removeprefix(SUSPENDED)))
        elif why_out is not None:
            found.append(LadderBot(name, DISQUALIFIED, why_out))
        else:
            found.append(LadderBot(name, ACTIVE, "plays"))
    return sorted(found, key=lambda bot: (STATE_ORDER.index(bot.state), bot.name))


def is_ladder(config: dict[str, object]) -> bool:
    """Whether a stored tournament file is a ladder's."""
    return config.get("format") == "ladder"


def read_ladder_state(store: Store, latest: Sequence[int]) -> LadderState | None:
    """The ladder's state with the games ``latest`` (newest first); None when the store
    is not a ladder's."""
    config = parse_config(store.meta("config"))
    if not is_ladder(config):
        return None
    bots = config.get("bots")
    names = [str(name) for name in bots] if isinstance(bots, dict) else []
    states = bot_states(names, retired_bots(store), store.disqualified())
    summaries = summaries_numbered(store, list(latest))
    chosen = ladder_choices_of(store, [summary.deal_key for _, summary in summaries])
    games = []
    for number, summary in summaries:
        rule, reason = chosen.get(summary.deal_key, (None, None))
        games.append(ChosenGame(game_row(number, summary), rule, reason))
    return LadderState(states, games)
