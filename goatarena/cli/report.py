"""The ``report`` command: a stored tournament as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.formats.config import TournamentConfig
from goatarena.formats.sprt import bounds, llr_course
from goatarena.report import DEFAULT_REPLAYS, SprtCourse, build_report, write_report
from goatarena.report.facts import bot_facts, parse_config, tournament_facts
from goatarena.store.database import StoredGame, database_files


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
        games = list(store.games())
        tournament = store.meta("tournament") or store.path.stem
        disqualified = store.disqualified()
        config_json = store.meta("config")
        meta = {key: store.meta(key) for key in ("created_at", "goatarena_version", "bot_hellos")}
        finished = store.finished_span()
    finally:
        store.close()
    config = parse_config(config_json)
    played = sorted({bot for game in games for bot in game.result.players})
    page = build_report(
        tournament,
        games,
        disqualified=disqualified,
        replays=replays,
        facts=tournament_facts(config, meta, finished),
        bots=bot_facts(config, played, meta["bot_hellos"]),
        sprt=sprt_course(config_json, games),
    )
    write_report(output, page, keep=kept, force=force)
    click.echo(f"{output}: {len(games)} games, {len(page) / 1e6:.1f} MB")


def sprt_course(config_json: str | None, games: list[StoredGame]) -> SprtCourse | None:
    """The SPRT's course of a stored gauntlet whose file has an ``[sprt]`` table."""
    if not config_json:
        return None
    try:
        config = msgspec.json.decode(config_json, type=TournamentConfig)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None  # written by another version: no test to show
    if config.sprt is None or len(config.challengers) != 1:
        return None
    settings = config.sprt
    tally, points = llr_course(
        settings, config.bots, config.challengers[0], ((g.key, g.result) for g in games)
    )
    status = tally.status()
    lower, upper = bounds(settings.alpha, settings.beta)
    return SprtCourse(
        challenger=status.challenger,
        baseline=status.baseline,
        lower=round(lower, 4),
        upper=round(upper, 4),
        elo0=settings.elo0,
        elo1=settings.elo1,
        verdict=status.verdict,
        points=points,
    )
