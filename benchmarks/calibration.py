"""How well the ratings' intervals cover the truth, and how precise each fit is.

Simulated events of 8 bots of known strength (−210 … +210 Elo) at random tables of k
seats with known seat advantages, finishing orders from the Plackett–Luce model. Prints,
per table size, beside the goals of the rating docs (docs/ratings.md):

- coverage of the 95 % intervals (goal 93–97 %) and mean squared error against the
  truth (Elo²) of the pairwise fit (``ratings.fit``) and the exact Plackett–Luce fit
  (``ratings.plackett_luce``), and the games the exact fit saves at equal precision
  (``1 − MSE_exact / MSE_pairwise``, the error falling as 1/games; goal ≥ 5 % at 4 and
  6 seats, never negative at 2 and 3);
- with ties (neighbours in the order tie, which leaves each pair's expected score as
  it is): the tie-aware intervals' coverage and the tie-blind ones';
- two-seat deals of two rotations with deal luck (a shared seat-0 advantage
  ``N(0, σ²)``): the fit's own and the deal-adjusted intervals' coverage of the ratings
  an infinite event would give, and the deal-adjusted width over the fit's (goal ≤ 0.85
  where the deal explains a third of the latent variance);
- the limit of that goal: at two seats the true spread of the standings' estimate and
  the Cramér–Rao bound of any estimator of the same ratings under this deal model
  (``goatarena.bench.deal_bound``, exact), over the fit's own standard error; and, for
  deals of 4 and 6 seats in all their rotations, the deal-adjusted intervals' coverage,
  their width over the fit's and the *oracle* width (the estimates' root mean squared
  error over the fit's standard error: an interval that knew the true spread).

``python benchmarks/calibration.py [--events N]``: about a minute at the default 200.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.ratings.clusters import DealScores, deal_adjusted  # noqa: E402
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit  # noqa: E402
from goatarena.ratings.plackett_luce import fit_plackett_luce  # noqa: E402
from tests.test_calibration import TRUE_ELO, tie_share, tied_game  # noqa: E402
from tests.test_deal_clusters import STRONG, deal, effective_truth  # noqa: E402

BOTS = 8
SEATS = {2: [35.0, -35.0], 3: [40.0, 0.0, -40.0], 4: [45.0, 15.0, -15.0, -45.0],
         6: [50.0, 30.0, 10.0, -10.0, -30.0, -50.0]}  # fmt: skip
GAMES = {2: 150, 3: 80, 4: 60, 6: 40}


def seated_game(rng: random.Random, k: int) -> dict[str, int]:
    """One Plackett–Luce game at a random table of ``k``, in seat order."""
    table = rng.sample(range(BOTS), k)
    weight = [math.exp((TRUE_ELO[b] + SEATS[k][s]) / ELO_PER_NATURAL_LOG)
              for s, b in enumerate(table)]  # fmt: skip
    remaining, rank = list(range(k)), [0] * k
    for place in range(1, k + 1):
        pick = rng.random() * sum(weight[s] for s in remaining)
        for s in remaining:
            pick -= weight[s]
            if pick <= 0.0:
                break
        rank[s] = place
        remaining.remove(s)
    return {f"b{table[s]}": rank[s] for s in range(k)}


def score(result, truth) -> tuple[int, int, float]:
    """(covered, intervals, summed squared error) of one fit's ratings."""
    covered = sum(r.lo <= truth[name] <= r.hi for name, r in result.ratings.items())
    error = sum((r.elo - truth[name]) ** 2 for name, r in result.ratings.items())
    return covered, len(result.ratings), error


def exact_against_pairwise(events: int) -> None:
    truth = {f"b{b}": 1500.0 + TRUE_ELO[b] for b in range(BOTS)}
    print("seats  games  coverage pairwise / exact  MSE pairwise / exact  games saved  goal")
    for k in (2, 3, 4, 6):
        rng = random.Random(4000 + k)
        totals = {"pairwise": [0, 0, 0.0], "exact": [0, 0, 0.0]}
        for _ in range(events):
            games = [seated_game(rng, k) for _ in range(GAMES[k])]
            keys = ["g"] * len(games)
            for label, result in (("pairwise", fit(games, seat_keys=keys)),
                                  ("exact", fit_plackett_luce(games, seat_keys=keys))):  # fmt: skip
                for slot, value in enumerate(score(result, truth)):
                    totals[label][slot] += value
        cover = {label: c / n for label, (c, n, _) in totals.items()}
        mse = {label: e / n for label, (_, n, e) in totals.items()}
        saved = 1.0 - mse["exact"] / mse["pairwise"]
        goal = "≥ 5 %" if k >= 4 else "≥ 0 %"
        coverage = f"{cover['pairwise']:8.1%} / {cover['exact']:6.1%}"
        errors = f"{mse['pairwise']:11.0f} / {mse['exact']:5.0f}"
        print(f"{k:5}  {GAMES[k]:5}  {coverage}  {errors}  {saved:11.1%}  {goal}")


def ties(events: int) -> None:
    truth = {f"b{b}": 1500.0 + TRUE_ELO[b] for b in range(BOTS)}
    print("\nseats  tied pairs  coverage tie-aware / tie-blind  goal 93–97 %")
    for k in (2, 4, 6):
        for c in (0.0, 0.25, 0.5):
            rng = random.Random(5000 + k + int(100 * c))
            aware = blind = total = 0
            shares = []
            for _ in range(events):
                games = [tied_game(rng, k, c) for _ in range(GAMES[k])]
                shares.append(tie_share(games))
                a, b = fit(games), fit(games, tie_aware=False)
                for name in a.names:
                    total += 1
                    aware += a.ratings[name].lo <= truth[name] <= a.ratings[name].hi
                    blind += b.ratings[name].lo <= truth[name] <= b.ratings[name].hi
            print(f"{k:5}  {statistics.fmean(shares):10.1%}  "
                  f"{aware / total:18.1%} / {blind / total:6.1%}")  # fmt: skip


def deals(events: int) -> None:
    print("\ndeal luck σ  share of variance  coverage fit / deal-adjusted  width ratio  goal")
    for sigma in (0.0, STRONG, 2 * STRONG):
        rng = random.Random(6000 + int(10 * sigma))
        truth = effective_truth(sigma)
        plain_cover = adjusted_cover = total = 0
        ratios = []
        for _ in range(events):
            played = [deal(rng, sigma) for _ in range(75)]
            plain = fit([game for pair in played for game in pair])
            scores = DealScores(plain)
            for number, pair in enumerate(played):
                for game in pair:
                    scores.add(f"d{number}", list(game), list(game.values()))
            adjusted = deal_adjusted(scores)
            for name in plain.names:
                p, a = plain.ratings[name], adjusted.ratings[name]
                total += 1
                plain_cover += p.lo <= truth[name] <= p.hi
                adjusted_cover += a.lo <= truth[name] <= a.hi
                ratios.append(a.stderr / p.stderr)
        share = sigma**2 / (sigma**2 + math.pi**2 / 3)
        goal = "≤ 0.85" if sigma else "≈ 1"
        coverage = f"{plain_cover / total:12.1%} / {adjusted_cover / total:6.1%}"
        print(f"{sigma:11.2f}  {share:16.0%}  {coverage}  {statistics.fmean(ratios):11.3f}  {goal}")


def deal_limits(events: int) -> None:
    """How narrow a deal-adjusted interval can be at the goal's luck (docs/ratings.md)."""
    from goatarena.bench.deal_bound import pair_luck, rotation_event, two_seat_bound

    print("\nthe limit at two seats (exact): standard error over the fit's own, mean of 8 bots")
    print("share of variance  ideal (the estimate's true spread)  bound σ unknown / known  goal")
    for share in (0.0, 1 / 3, 2 / 3):
        found = two_seat_bound(sigma=pair_luck(share) if share else 0.0)
        goal = "≤ 0.85" if 0.3 < share < 0.4 else ""
        print(f"{share:17.0%}  {found.mean_ideal:34.3f}  {found.mean_bound:14.3f} /"
              f" {found.mean_bound_sigma_known:5.3f}  {goal}")  # fmt: skip
    print("\nall rotations of k seats, a luck per seat and deal, the deal a third of the variance")
    print("seats  deals  games  coverage fit / deal-adjusted  interval width ratio  oracle  goal")
    for seats, deals in ((4, 15), (4, 60), (6, 7), (6, 30), (6, 120)):
        row = rotation_event(seats, deals, 1 / 3, events, 8000 + 100 * seats + deals)
        coverage = f"{row.plain_coverage:12.1%} / {row.adjusted_coverage:6.1%}"
        print(f"{seats:5}  {deals:5}  {seats * deals:5}  {coverage}  {row.width:20.3f}"
              f"  {row.spread:6.3f}  ≤ 0.85")  # fmt: skip


def main() -> None:
    """Run every table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200, help="simulated events per row")
    events = parser.parse_args().events
    started = time.process_time()
    exact_against_pairwise(events)
    ties(events)
    deals(events)
    deal_limits(events)
    print(f"\n{events} events per row; {time.process_time() - started:.0f} s CPU")


if __name__ == "__main__":
    main()
