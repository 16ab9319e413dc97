"""The ``report`` command: a stored tournament as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.formats.config import SprtSettings, TournamentConfig
from goatarena.formats.sprt import SprtTally, bounds, llr
from goatarena.report import DEFAULT_REPLAYS, SprtCourse, StoreSource, report_page, write_report
from goatarena.report.data import read_report_data
from goatarena.report.facts import (
    bot_facts,
    bots_folder,
    parse_config,
    shown_text,
    tournament_facts,
)
from goatarena.store.opening import database_files
from goatarena.store.standings import TOURNAMENT_FOLDER, bots_out
from goatarena.store.summary import GameSummary


@main.command("report")
@database_option
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write.",
)
@click.option(
    "--replays",
    type=click.IntRange(min=0),
    default=DEFAULT_REPLAYS,
    show_default=True,
    help="Most games to embed a replay of (all when there are no more games than this).",
)
@click.option(
    "--force", is_flag=True, help="Replace the output file even if it is not a goatarena report."
)
@reports_errors
def report_command(db: Path | None, output: Path, replays: int, force: bool) -> None:
    """Write an HTML report: standings, head to head, violations, rating history, games
    and replays. It needs nothing but a browser (no network).

    \b
    Example:
        goatarena report --db results/demo.sqlite -o demo.html
    """
    store = open_results(db)
    kept = database_files(store.path)
    try:
        tournament = store.meta("tournament") or store.path.stem
        config_json = store.meta("config")
        meta = {
            key: store.meta(key)
            for key in ("created_at", "goatarena_version", "bot_hellos", TOURNAMENT_FOLDER)
        }
        sprt = SprtCourseTally.of(config_json)
        source = StoreSource(store)
        config = parse_config(config_json)
        folder = bots_folder(config, meta[TOURNAMENT_FOLDER])
        out = {name: shown_text(why, folder) for name, why in bots_out(store).items()}
        found = read_report_data(
            tournament,
            source.summaries,
            store.disqualified(),
            replays,
            also=None if sprt is None else sprt.add,
            out=out,
        )
        page = report_page(
            tournament,
            source,
            found,
            facts=tournament_facts(config, meta, found.finished),
            bots=bot_facts(config, found.bots, meta["bot_hellos"], folder=folder),
            sprt=None if sprt is None else sprt.course(),
        )
    finally:
        store.close()
    write_report(output, page, keep=kept, force=force)
    click.echo(f"{output}: {found.games} games, {len(page) / 1e6:.1f} MB")


class SprtCourseTally:
    """The SPRT's course of a stored gauntlet, counted as the report streams its games."""

    def __init__(self, settings: SprtSettings, bots: list[str], challenger: str) -> None:
        self.settings = settings
        baseline = next(name for name in bots if name != challenger)
        self.pair = sorted((challenger, baseline))
        self.tally = SprtTally(settings, challenger, baseline)
        self.points: list[tuple[int, float]] = []

    @classmethod
    def of(cls, config_json: str | None) -> SprtCourseTally | None:
        """The tally of a store whose tournament file has an ``[sprt]`` table (else None)."""
        if not config_json:
            return None
        try:
            config = msgspec.json.decode(config_json, type=TournamentConfig)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None  # written by another version: no test to show
        if config.sprt is None or len(config.challengers) != 1:
            return None
        return cls(config.sprt, list(config.bots), config.challengers[0])

    def add(self, summary: GameSummary) -> None:
        """Count one game (only the challenger's games against the baseline count)."""
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
            points=self.points,
        )
