"""A gauntlet's SPRT course, kept as the site or the report reads the games in finishing
order: the log-likelihood ratio after each completed pair of the challenger's games
against the baseline, drawn by the report's chart (:func:`goatarena.report.charts.sprt_plot`)."""

from __future__ import annotations

from typing import Any

import msgspec

from goatarena.formats.config import SprtSettings, TournamentConfig
from goatarena.formats.sprt import SprtTally, bounds, llr
from goatarena.report.data import SprtCourse
from goatarena.store.summary import GameSummary


class SprtCourseKeeper:
    """The course of one gauntlet's test, fed every stored game once, in order."""

    def __init__(self, settings: SprtSettings, bots: list[str], challenger: str) -> None:
        self.settings = settings
        baseline = next(name for name in bots if name != challenger)
        self.pair = sorted((challenger, baseline))
        self.tally = SprtTally(settings, challenger, baseline)
        self.points: list[tuple[int, float]] = []

    @classmethod
    def of_json(cls, config_json: str | None) -> SprtCourseKeeper | None:
        """The keeper of a store whose stored tournament file (JSON) has an ``[sprt]``
        table, else None."""
        if not config_json:
            return None
        try:
            config = msgspec.json.decode(config_json)
        except msgspec.DecodeError:
            return None  # written by another version: no test to show
        return cls.of(config) if isinstance(config, dict) else None

    @classmethod
    def of(cls, config: dict[str, Any]) -> SprtCourseKeeper | None:
        """The keeper of a tournament whose file has an ``[sprt]`` table, else None."""
        if not config.get("sprt"):
            return None
        try:
            parsed = msgspec.convert(config, TournamentConfig)
        except msgspec.ValidationError:
            return None  # written by another version: no test to show
        if parsed.sprt is None or len(parsed.challengers) != 1:
            return None
        return cls(parsed.sprt, list(parsed.bots), parsed.challengers[0])

    def add(self, summary: GameSummary) -> None:
        """Count one game (only the challenger's against the baseline count)."""
        if sorted(summary.players) != self.pair:
            return
        self.tally.add(summary.key, summary)
        pairs = sum(self.tally.pentanomial)
        if pairs > len(self.points):
            value = llr(self.tally.pentanomial, self.settings.elo0, self.settings.elo1)
            self.points.append((pairs, round(value, 4)))

    def course(self) -> SprtCourse:
        """The course so far."""
        status = self.tally.status()
        lower, upper = bounds(self.settings.alpha, self.settings.beta)
        return SprtCourse(
            challenger=status.challenger,
            baseline=status.baseline,
            lower=round(lower, 4),
            upper=round(upper, 4),
            elo0=self.settings.elo0,
            elo1=self.settings.elo1,
            verdict=status.verdict,
            points=list(self.points),
        )
