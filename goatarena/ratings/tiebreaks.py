"""Swiss points and their tie-breaks, generalised to tables of any size.

A game at a table of ``k`` gives each bot ``k − position`` points, shared on ties
(:func:`goatarena.ratings.fit.points_from_ranks`): a win at two players is 1 point, as in
chess. A bye is worth a win in every game its round's tables played. The tie-breaks:

- **Buchholz**: the sum, over the bot's games and over its opponents at each table, of
  the opponents' final points — how strong the field it met was.
- **Sonneborn–Berger**: the same sum, each opponent's points weighted by the bot's
  result against that opponent in that game (1 ahead, ½ tied, 0 behind). A bot's results
  against its opponents in one game add up to its points in that game, so this counts
  every point the bot scored at the value of the bot it took the point from. At two
  players both are the chess definitions.

Pure: no I/O; the caller passes finished games with their round numbers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from goatarena.ratings.fit import points_from_ranks
from goatarena.referee.records import MatchResult


@dataclass(frozen=True)
class SwissGame:
    """One finished Swiss game: its round, the bots by seat and their finishing ranks."""

    round: int
    players: Sequence[str]
    ranks: Sequence[int]


@dataclass(frozen=True)
class SwissScore:
    """A bot's Swiss points, byes and tie-breaks."""

    points: float
    byes: int
    buchholz: float
    sonneborn_berger: float


def swiss_scores(games: Sequence[SwissGame], bots: Sequence[str]) -> dict[str, SwissScore]:
    """Points, byes, Buchholz and Sonneborn–Berger of every bot in ``bots``.

    A bot of ``bots`` that played no game in a round in which others played had a bye,
    worth ``k − 1`` points (a win at the round's largest table) for each game a bot of
    that round played at most.
    """
    points: dict[str, float] = defaultdict(float)
    byes: dict[str, int] = defaultdict(int)
    by_round: dict[int, list[SwissGame]] = defaultdict(list)
    for game in games:
        by_round[game.round].append(game)
        for name, gained in zip(game.players, points_from_ranks(game.ranks), strict=True):
            points[name] += gained
    for round_games in by_round.values():
        played: dict[str, int] = defaultdict(int)
        for game in round_games:
            for name in game.players:
                played[name] += 1
        win = max(len(game.players) for game in round_games) - 1
        most = max(played.values())
        for name in bots:
            if name not in played:
                byes[name] += 1
                points[name] += win * most
    buchholz: dict[str, float] = defaultdict(float)
    berger: dict[str, float] = defaultdict(float)
    for game in games:
        for name, rank in zip(game.players, game.ranks, strict=True):
            for other, other_rank in zip(game.players, game.ranks, strict=True):
                if other == name:
                    continue
                buchholz[name] += points[other]
                result = 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0
                berger[name] += result * points[other]
    names = sorted(set(bots) | set(points))
    return {
        name: SwissScore(
            points=points[name],
            byes=byes[name],
            buchholz=buchholz[name],
            sonneborn_berger=berger[name],
        )
        for name in names
    }


def scores_per_game(
    results: Sequence[MatchResult], rounds: Sequence[tuple[str, int]], bots: Sequence[str]
) -> dict[str, dict[str, SwissScore]]:
    """Swiss scores per game from results and their (event, round): the events (game
    entries of the tournament) of one game summed."""
    events: dict[str, list[SwissGame]] = defaultdict(list)
    game_of: dict[str, str] = {}
    for result, (event, round_number) in zip(results, rounds, strict=True):
        events[event].append(SwissGame(round_number, result.players, result.ranks))
        game_of[event] = result.game
    return scores_of_events(events, game_of, bots)


def scores_of_events(
    events: Mapping[str, Sequence[SwissGame]], game_of: Mapping[str, str], bots: Sequence[str]
) -> dict[str, dict[str, SwissScore]]:
    """Swiss scores per game from each event's games (``game_of`` names each event's
    game): the events of one game summed."""
    per_game: dict[str, dict[str, SwissScore]] = {}
    for event, games in events.items():
        scores = swiss_scores(games, bots)
        per_game[game_of[event]] = add_scores(per_game.get(game_of[event], {}), scores)
    return per_game


def add_scores(a: Mapping[str, SwissScore], b: Mapping[str, SwissScore]) -> dict[str, SwissScore]:
    """Two score tables added bot by bot."""
    zero = SwissScore(0.0, 0, 0.0, 0.0)
    return {
        name: SwissScore(
            points=a.get(name, zero).points + b.get(name, zero).points,
            byes=a.get(name, zero).byes + b.get(name, zero).byes,
            buchholz=a.get(name, zero).buchholz + b.get(name, zero).buchholz,
            sonneborn_berger=a.get(name, zero).sonneborn_berger
            + b.get(name, zero).sonneborn_berger,
        )
        for name in sorted(set(a) | set(b))
    }


def sum_scores(
    swiss: Mapping[str, Mapping[str, SwissScore]], games: set[str]
) -> dict[str, SwissScore]:
    """The scores of ``games`` added up (the overall table of a Swiss over games)."""
    total: dict[str, SwissScore] = {}
    for game in sorted(games):
        total = add_scores(total, swiss.get(game, {}))
    return total
