"""How well the ratings' intervals cover the truth, and how precise each fit is.

Simulated events of 8 bots of known strength at tables of k seats with known seat
advantages, finishing orders from the Plackett–Luce model (the simulators are
``goatarena/bench/calibration_sim.py``, which says how ties and deal luck are made).
Prints, beside the goals of docs/ratings.md:

1. at 2, 3, 4 and 6 seats, random tables, no ties: coverage of the 95 % intervals (goal
   93–97 %) and the mean squared error against the truth (Elo²) of the pairwise fit
   (``fit(..., exact=False)``) and the exact Plackett–Luce fit (the default), and the
   games the exact fit saves at equal precision (``1 − MSE_exact / MSE_pairwise``, the
   error falling as 1/games; goal ≥ 5 % at 4 and 6 seats, never negative at 2 and 3);
2. at 2, 4 and 6 seats, events of 75, 30 and 30 deals (every deal in all its seat
   rotations), 0, 20 and 40 % tied pairs, without and with deal luck: the coverage of
   the exact fit's plain and deal-adjusted intervals (``standings --deals``) and of the
   pairwise fit's, the deal-adjusted width over the plain, and the games saved at equal
   relative precision (each fit's MSE over the variance of its own truth: ties shrink
   both);
3. two-seat deals of two rotations with an additive deal luck (a shared seat-0
   advantage ``N(0, σ²)``): the fit's own and the deal-adjusted intervals' coverage of the
   ratings an infinite event would give, and the deal-adjusted width over the fit's;
   and the limit of the deal goal (deal-adjusted width ≤ 0.85 where the deal explains a third
   of the latent variance): at two seats the true spread of the standings' estimate and
   the Cramér–Rao bound of any estimator of the same ratings under an additive deal
   model (``goatarena.bench.deal_bound``, exact), over the fit's own standard error;
   and, for deals of 4 and 6 seats in all their rotations, the deal-adjusted intervals'
   coverage, their width over the fit's and the *oracle* width (the estimates' root
   mean squared error over the fit's standard error: an interval that knew the true
   spread).

Every coverage and every share of games saved is printed with its standard error over the
events (an event's intervals share its games, so the events, not the intervals, are the
independent draws), and each goal's verdict says whether it is met beyond that noise or
only within it (:mod:`goatarena.bench.noise`).

``python benchmarks/calibration.py [--events N]``: a few minutes of CPU at the default 200.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.bench import calibration_sim as sim  # noqa: E402
from goatarena.bench.noise import mean_and_stderr, range_verdict, ratio_stderr, verdict  # noqa: E402
from goatarena.ratings.clusters import DealScores, deal_adjusted  # noqa: E402
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, RatingFit, fit  # noqa: E402

GAMES = {2: 150, 3: 80, 4: 60, 6: 40}
DEALS = {2: 75, 4: 30, 6: 30}
SHARES = (0.0, 0.2, 0.4)


def covered(result: RatingFit, truth: dict[str, float]) -> list[bool]:
    """Whether each bot's interval holds its true rating."""
    return [r.lo <= truth[name] <= r.hi for name, r in result.ratings.items()]


def squared_errors(result: RatingFit, truth: dict[str, float]) -> list[float]:
    """Each bot's squared error against the truth."""
    return [(r.elo - truth[name]) ** 2 for name, r in result.ratings.items()]


COVERAGE_GOAL = (0.93, 0.97)


def coverage_share(per_event: list[list[bool]]) -> tuple[float, float]:
    """The share of true values over every event's intervals, and its standard error over
    the events."""
    return mean_and_stderr([statistics.fmean(one) for one in per_event])


def shown(value: float, error: float) -> str:
    """A share as a percentage with its standard error: ``95.7 % ± 0.5``."""
    return f"{value:5.1%} ± {100 * error:3.1f}"


def exact_against_pairwise(events: int) -> None:
    """Table 1: the two fits on random tables without ties."""
    truth = sim.truth()
    print("seats  games  coverage pairwise / exact (± s.e.)  MSE pairwise / exact"
          "  games saved     goals: coverage 93-97 %; games saved")  # fmt: skip
    for k in (2, 3, 4, 6):
        rng = __import__("random").Random(4000 + k)
        cover: dict[bool, list[list[bool]]] = {False: [], True: []}
        error: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(events):
            games = [sim.seated_game(rng, k) for _ in range(GAMES[k])]
            for exact in (False, True):
                result = fit(games, seat_keys=["g"] * len(games), exact=exact)
                cover[exact].append(covered(result, truth))
                error[exact].append(statistics.fmean(squared_errors(result, truth)))
        mse = {exact: statistics.fmean(values) for exact, values in error.items()}
        saved = 1.0 - mse[True] / mse[False]
        saved_error = ratio_stderr(error[True], error[False])
        goal = 0.05 if k >= 4 else 0.0
        pairwise, exact_share = coverage_share(cover[False]), coverage_share(cover[True])
        coverage = f"{shown(*pairwise)} / {shown(*exact_share)}"
        print(f"{k:5}  {GAMES[k]:5}  {coverage:>33}  {mse[False]:11.0f} / {mse[True]:5.0f}"
              f"  {saved:5.1%} ± {100 * saved_error:3.1f}"
              f"  coverage {range_verdict(*exact_share, *COVERAGE_GOAL)};"
              f" ≥ {goal:.0%}: {verdict(saved - goal, saved_error)}")  # fmt: skip


def calibration_grid(events: int) -> None:
    """Table 2: ties and deal luck."""
    print("\nseats  tied pairs  deal luck  coverage exact plain / deal-adjusted (± s.e.)"
          "  pairwise  width ratio  games saved"
          "  goal: the interval to read covers 93-97 %")  # fmt: skip
    for k in (2, 4, 6):
        for share in SHARES:
            link = sim.linking_chance(k, share)
            truths = {exact: sim.effective_truth(k, link, exact=exact) for exact in (False, True)}
            spread = {exact: statistics.pvariance(t.values()) for exact, t in truths.items()}
            for luck in (0.0, sim.STRONG_LUCK):
                rng = __import__("random").Random(7000 + 10 * k + int(100 * share) + int(luck > 0))
                plain: list[list[bool]] = []
                adjusted: list[list[bool]] = []
                pairwise: list[bool] = []
                ratios: list[float] = []
                shares: list[float] = []
                error: dict[bool, list[float]] = {False: [], True: []}
                for _ in range(events):
                    deals = [sim.deal(rng, k, link, luck) for _ in range(DEALS[k])]
                    games = [game for one in deals for game in one]
                    shares.append(sim.tie_share(games))
                    keys = ["g"] * len(games)
                    exact_fit = fit(games, seat_keys=keys)
                    pair_fit = fit(games, seat_keys=keys, exact=False)
                    scores = DealScores(exact_fit)
                    for number, one in enumerate(deals):
                        for game in one:
                            scores.add(f"d{number}", list(game), list(game.values()), "g")
                    deal_fit = deal_adjusted(scores)
                    plain.append(covered(exact_fit, truths[True]))
                    adjusted.append(covered(deal_fit, truths[True]))
                    pairwise += covered(pair_fit, truths[False])
                    error[True].append(statistics.fmean(squared_errors(exact_fit, truths[True])))
                    error[False].append(statistics.fmean(squared_errors(pair_fit, truths[False])))
                    ratios += [deal_fit.ratings[n].stderr / exact_fit.ratings[n].stderr
                               for n in exact_fit.names]  # fmt: skip
                relative = {e: statistics.fmean(error[e]) / spread[e] for e in (False, True)}
                saved = 1.0 - relative[True] / relative[False]
                saved_error = ratio_stderr(error[True], error[False]) * spread[False] / spread[True]
                luck_name = "a third" if luck else "none"
                plain_share, adjusted_share = coverage_share(plain), coverage_share(adjusted)
                # The interval to read: the plain one without deal luck, else the deal-adjusted.
                read = adjusted_share if luck else plain_share
                print(f"{k:5}  {statistics.fmean(shares):10.1%}  {luck_name:>9}"
                      f"  {shown(*plain_share):>29} / {shown(*adjusted_share)}"
                      f"  {statistics.fmean(pairwise):8.1%}  {statistics.fmean(ratios):11.3f}"
                      f"  {saved:5.1%} ± {100 * saved_error:3.1f}"
                      f"  {range_verdict(*read, *COVERAGE_GOAL)}", flush=True)  # fmt: skip


def two_seat_deals(events: int) -> None:
    """Table 3: two-seat deals of two rotations, a luck ``N(0, σ²)`` favouring seat 0 in
    both, against the ratings an infinite event would give (luck flattens them)."""
    from goatarena.bench.deal_bound import THETA, effective_truth, pair_luck, two_seat_deal

    print("\ndeal luck σ  share of variance  coverage fit / deal-adjusted  width ratio  goal")
    for share in (0.0, 1 / 3, 2 / 3):
        sigma = pair_luck(share) if share else 0.0
        rng = __import__("random").Random(6000 + int(10 * sigma))
        beta = effective_truth(THETA, sigma)
        truth = {f"b{b}": 1500.0 + ELO_PER_NATURAL_LOG * float(beta[b]) for b in range(len(THETA))}
        plain_cover, adjusted_cover, ratios = [], [], []
        for _ in range(events):
            played = [two_seat_deal(rng, sigma) for _ in range(75)]
            plain = fit([game for pair in played for game in pair])
            scores = DealScores(plain)
            for number, pair in enumerate(played):
                for game in pair:
                    scores.add(f"d{number}", list(game), list(game.values()))
            adjusted = deal_adjusted(scores)
            plain_cover += covered(plain, truth)
            adjusted_cover += covered(adjusted, truth)
            ratios += [adjusted.ratings[n].stderr / plain.ratings[n].stderr for n in plain.names]
        goal = "≤ 0.85" if 0.3 < share < 0.4 else "≈ 1" if not share else ""
        coverage = (
            f"{statistics.fmean(plain_cover):12.1%} / {statistics.fmean(adjusted_cover):6.1%}"
        )
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
    parser.add_argument("--only", choices=["fits", "grid", "limits"], help="one table")
    args = parser.parse_args()
    started = time.process_time()
    if args.only in (None, "fits"):
        exact_against_pairwise(args.events)
    if args.only in (None, "grid"):
        calibration_grid(args.events)
    if args.only in (None, "limits"):
        two_seat_deals(args.events)
        deal_limits(args.events)
    print(f"\n{args.events} events per row; {time.process_time() - started:.0f} s CPU")


if __name__ == "__main__":
    main()
