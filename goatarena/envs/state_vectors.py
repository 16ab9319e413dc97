"""Observation vectors read straight from a game's state: the fast path of
:meth:`goatarena.envs.vector_base.Encoder.encode_state`.

Each function here fills the same vector as the game's encoder fills from the JSON
observation (:mod:`goatarena.envs.vector_layouts`, the reference), reading the fields
that observation is made from instead of building it: no dicts, no card names, no lists
made only to be read once. Each reads only what ``state.observation(seat)`` shows the
seat (its own hand, what every seat knows); tests/test_envs_state_vectors.py checks, on
many random states of every game, player count and seat, that the two vectors are equal.

A vector is filled in an ``array('f')`` copied from a blank of its size (a C-level copy;
setting an item costs a fraction of setting a NumPy element), then handed to NumPy
without a copy. Parts that change slowly along a game (a hand's counts, a pile, a
flock, Herr der Ziegen's pasture) are made once per distinct content and copied in whole
after that: bounded caches keyed by the content itself, so a hit is exactly what the
part would be made again.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from goatarena.envs.vector_base import Seats
from goatarena.envs.vector_layouts import (
    GNG_PHASES,
    GNG_VALUES,
    LORD_KINDS,
    GoatLordsEncoder,
)
from goatarena.games import goat_lords_tables as lords
from goatarena.games import goat_n_goat_tables as gng
from goatarena.games import mountain_goats as goats

Out = array
"""A vector being filled: ``float32`` numbers by place."""
At = dict[str, int]
"""Where each field of the layout starts, by name."""
StateFill = Callable[[Out, At, Any, Seats, int], None]
"""Fills a vector from (out, field starts, state, seats, the encoder's max players)."""


def _counts(out: Out, start: int, counts: list[int], step: float) -> None:
    """``counts[i] * step`` at ``start + i`` for every card kind ``i``.

    The numbers of each distinct ``counts`` are made once and copied in whole (a
    C-level copy; a hand takes few distinct values along a game)."""
    made = _MADE[step]
    key = tuple(counts)
    numbers = made.get(key)
    if numbers is None:
        if len(made) >= _MADE_LIMIT:
            made.clear()
        numbers = made[key] = array("f", [count * step for count in counts])
    out[start : start + len(numbers)] = numbers


_MADE: defaultdict[float, dict[tuple[int, ...], array]] = defaultdict(dict)
"""Per step, the numbers of each distinct count list met so far."""
_MADE_LIMIT = 10_000
"""Entries each cache of this module keeps before it starts again: a bound on memory (a
few hundred bytes an entry, a few MB a cache), well above what one game meets."""


def tally(out: Out, start: int, cards: Any, index: Any, step: float, size: int) -> None:
    """Per card in ``cards`` (mapped through ``index``), its count times ``step``, over
    the ``size`` numbers from ``start``: made once per distinct pile, then copied."""
    made = _TALLIES[id(index), step, size]
    key = tuple(cards)
    numbers = made.get(key)
    if numbers is None:
        if len(made) >= _MADE_LIMIT:
            made.clear()
        numbers = array("f", bytes(4 * size))
        for card, count in Counter(cards).items():
            numbers[index[card]] = count * step
        made[key] = numbers  # (only once complete: another thread may read it at once)
    out[start : start + size] = numbers


_TALLIES: defaultdict[tuple[int, float, int], dict[tuple[Any, ...], array]] = defaultdict(dict)
"""Per index, step and size, the numbers of each distinct pile met so far."""


_SAME = range(1000)
"""The index of cards that are numbers already: each number its own place."""


# -- Mountain Goats -------------------------------------------------------------------------

_MG_MOUNTAINS = len(goats.MOUNTAINS)


def fill_mountain_goats(out: Out, at: At, state: Any, seats: Seats, _max: int) -> None:
    """Mountain Goats (everything is public)."""
    out[at["round"]] = state.round / goats.MAX_ROUNDS
    dice = at["dice"] - 1
    for die in state.dice:
        out[dice + die] += 0.25  # quarters add up exactly in float32 too
    steps, tokens, bonuses, scores = at["steps"], at["tokens"], at["bonuses"], at["scores"]
    players = seats.players
    for slot, seat in enumerate(seats.order()):
        seat %= players
        row = slot * _MG_MOUNTAINS
        for column, step in enumerate(state.steps[seat]):
            out[steps + row + column] = step / goats.HEIGHTS[column]
        held = state.tokens[seat]
        for column, count in enumerate(held):
            out[tokens + row + column] = count / 12
        won = sum(state.bonuses[seat])
        out[bonuses + slot] = won / 42
        out[scores + slot] = (sum(map(int.__mul__, held, goats.MOUNTAINS)) + won) / 100
    supply = at["supply"]
    for column, left in enumerate(state.supply):
        out[supply + column] = left / 12
    bonus_left = at["bonus_left"]
    for place, bonus in enumerate(goats.BONUSES):
        if bonus in state.bonus_left:
            out[bonus_left + place] = 1.0
    out[at["ending"]] = float(state.ending)


# -- Goat Lords -----------------------------------------------------------------------------

_LORD_CARDS = len(lords.CARD_IDS)
_LORD_HERD = GoatLordsEncoder._HERD
_LORD_KIND_OF = [LORD_KINDS[lords.KIND_IDS[card]] for card in range(_LORD_CARDS)]
"""Per card, the place of the kind of a pile it is the first card of."""


def fill_goat_lords(out: Out, at: At, state: Any, seats: Seats, max_players: int) -> None:
    """Goat Lords: the seat's own hand and everything public."""
    relative = seats.relative
    out[at["round"]] = (state.round + 1) / 10
    out[at["turn"] + relative(state.turn)] = 1.0
    _counts(out, at["hand"], state.hands[seats.seat], 1 / 5)
    values = lords.VALUES
    hand_sizes, herd_values, totals = at["hand_sizes"], at["herd_values"], at["totals"]
    players = seats.players
    for slot, seat in enumerate(seats.order()):
        seat %= players
        out[hand_sizes + slot] = sum(state.hands[seat]) / 5
        out[totals + slot] = state.totals[seat] / 1000
        herd, start = state.herds[seat], at["herds"] + slot * _LORD_HERD
        if not herd:
            continue
        value = 0
        counted = [0] * _LORD_CARDS
        for pile in herd:
            for card in pile:
                counted[card] += 1
                value += values[card]
        out[herd_values + slot] = value / 500
        _counts(out, start, counted, 1 / 10)
        out[start + _LORD_CARDS] = len(herd) / 10
        top = herd[-1]
        out[start + _LORD_CARDS + 1 + _LORD_KIND_OF[top[0]]] = 1.0
        tally(out, start + _LORD_CARDS + 1 + len(LORD_KINDS), top, _SAME, 1 / 10, _LORD_CARDS)
    discard = state.discard
    if discard:
        out[at["discard_top"] + discard[-1]] = 1.0
    piles = at["piles"]
    out[piles] = len(discard) / 110
    out[piles + 1] = len(state.draw) / 110
    out[piles + 2] = float(state.recycled)
    target = state.duel_target
    if target >= 0:
        out[at["duel"]] = 1.0
        answering = target if len(state.duel_cards) % 2 else state.turn
        duel_seats = at["duel_seats"]
        out[duel_seats + relative(state.turn)] = 1.0
        out[duel_seats + max_players + relative(target)] = 1.0
        out[duel_seats + 2 * max_players + relative(answering)] = 1.0
        out[at["duel_kind"] + _LORD_KIND_OF[state.herds[target][-1][0]]] = 1.0
        tally(out, at["duel_played"], state.duel_cards, _SAME, 1 / 5, _LORD_CARDS)
    out[at["rounds_scored"]] = len(state.round_scores) / 10


# -- Goat 'n' Goat --------------------------------------------------------------------------

_GNG_CARDS = len(gng.CODES)
_GNG_COLOURS = len(gng.COLOURS)


def _seat_numbers(flocks: list[list[int]], held: list[list[int]]) -> tuple[array, array, int]:
    """A seat's flocks (per colour ten numbers: per number 1-5 its cards / 10, the top
    number one-hot), its mountains held (per colour: how many, their values / 20) and the
    points of those mountains; made once per distinct seat and copied."""
    key = (*map(tuple, flocks), *map(tuple, held))
    made = _SEATS.get(key)
    if made is None:
        if len(_SEATS) >= _MADE_LIMIT:
            _SEATS.clear()
        flock_numbers = array("f", bytes(4 * 10 * _GNG_COLOURS))
        for place, flock in enumerate(flocks):
            for number, count in Counter(flock).items():
                flock_numbers[place * 10 + number - 1] = count * 0.1
            if flock:
                flock_numbers[place * 10 + 4 + flock[-1]] = 1.0
        held_numbers = array("f", [n for values in held for n in (len(values), sum(values) / 20)])
        made = _SEATS[key] = (flock_numbers, held_numbers, sum(map(sum, held)))
    return made


_SEATS: dict[tuple[tuple[int, ...], ...], tuple[array, array, int]] = {}
"""The numbers of each distinct seat's flocks and mountains met so far."""


def _mountain_numbers(mountains: list[list[int]]) -> array:
    """The face-up mountains: per colour, per value 3-9, how many show it."""
    key = tuple(map(tuple, mountains))
    numbers = _MOUNTAINS.get(key)
    if numbers is None:
        if len(_MOUNTAINS) >= _MADE_LIMIT:
            _MOUNTAINS.clear()
        numbers = array("f", bytes(4 * _GNG_COLOURS * len(GNG_VALUES)))
        for place, values in enumerate(mountains):
            for value in values:
                numbers[place * len(GNG_VALUES) + value - GNG_VALUES[0]] += 1.0
        _MOUNTAINS[key] = numbers
    return numbers


_MOUNTAINS: dict[tuple[tuple[int, ...], ...], array] = {}
"""The numbers of each distinct set of face-up mountains met so far."""


def fill_goat_n_goat(out: Out, at: At, state: Any, seats: Seats, _max: int) -> None:
    """Goat 'n' Goat: the seat's own hand, what every seat knows of the others' hands
    (the cards it saw them take), and everything public."""
    out[at["turn"] + seats.relative(state.seat)] = 1.0
    out[at["phase"] + GNG_PHASES[state._phase.value]] = 1.0
    tally(out, at["played"], state.played, gng.CODE_INDEX, 1 / 8, _GNG_CARDS)
    out[at["take_count"]] = state.take_count / 5
    _counts(out, at["hand"], state.hands[seats.seat], 1 / 8)
    tally(out, at["row"], state.row, _SAME, 1 / 6, _GNG_CARDS)
    hand_sizes, known, flocks, held_at = (
        at["hand_sizes"],
        at["known_in_hands"],
        at["flocks"],
        at["mountains_held"],
    )
    penalty_sizes, scores = at["penalty_sizes"], at["scores"]
    players = seats.players
    for slot, seat in enumerate(seats.order()):
        seat %= players
        out[hand_sizes + slot] = sum(state.hands[seat]) / 8
        _counts(out, known + slot * _GNG_CARDS, state.known[seat], 1 / 8)
        flock_numbers, held_numbers, points = _seat_numbers(state.flocks[seat], state.held[seat])
        start = flocks + slot * len(flock_numbers)
        out[start : start + len(flock_numbers)] = flock_numbers
        start = held_at + slot * len(held_numbers)
        out[start : start + len(held_numbers)] = held_numbers
        penalties = len(state.penalty_public[seat]) + len(state.penalty_hidden[seat])
        out[penalty_sizes + slot] = penalties / 20
        out[scores + slot] = (points - penalties) / 30
    mountains = at["mountains"]
    face_up = _mountain_numbers(state.mountains)
    out[mountains : mountains + len(face_up)] = face_up
    draw = at["draw"]
    out[draw] = len(state.draw) / 84
    if state.reshuffled:
        out[draw + 1] = 1.0
        tally(out, draw + 2, state.draw, _SAME, 1 / 10, _GNG_CARDS)
    tally(out, at["discard"], state.discard, _SAME, 1 / 10, _GNG_CARDS)
    run_outs = at["run_outs"]
    out[run_outs] = state.run_outs / 2
    out[run_outs + 1] = gng.FINAL_RUN_OUT[players] / 2
    out[run_outs + 2] = float(state.ending)


FILLS: dict[str, StateFill] = {
    "goat-lords": fill_goat_lords,
    "goat-n-goat": fill_goat_n_goat,
    "mountain-goats": fill_mountain_goats,
}
"""The fills of this module by game name (Herr der Ziegen's is in
:mod:`goatarena.envs.state_vectors_herr_der_ziegen`)."""
