"""The observation vector of each game: its fields (the layout) and how they are filled.

Every field is read from the JSON observation (docs/games.md names its fields). Counts
and sizes are divided by a fixed scale so that most numbers lie between 0 and 1.
"""

from __future__ import annotations

from goatarena.envs.vector_base import Encoder, Layout, Numbers, Seats, put_counts, put_one_hot
from goatarena.games import goat_lords_tables as lords
from goatarena.games import goat_n_goat_tables as gng
from goatarena.games import herr_der_ziegen_tables as hdz
from goatarena.games import mountain_goats as goats
from goatarena.games.base import Observation


class MountainGoatsEncoder(Encoder):
    """Mountain Goats: dice, goats, supplies, tokens, bonuses and scores."""

    game = "mountain-goats"

    def _build(self, layout: Layout) -> None:
        seats, mountains = self.max_players, len(goats.MOUNTAINS)
        layout.add("round", 1, "the round / 100")
        layout.add("dice", 6, "per face 1-6: dice showing it / 4")
        layout.add("steps", seats * mountains, "per seat, per mountain 5-10: step / height")
        layout.add("supply", mountains, "per mountain: tokens left / 12")
        layout.add("tokens", seats * mountains, "per seat, per mountain: tokens taken / 12")
        layout.add("bonus_left", 4, "per bonus 15, 12, 9, 6: 1 while it is left")
        layout.add("bonuses", seats, "per seat: bonus points won / 42")
        layout.add("scores", seats, "per seat: score / 100")
        layout.add("ending", 1, "1 when the game ends after this round")

    def _fill(self, out: Numbers, observation: Observation, seats: Seats) -> None:
        at = self.at
        mountains = len(goats.MOUNTAINS)
        out[at["round"]] = observation["round"] / goats.MAX_ROUNDS
        for die in observation["dice"]:
            out[at["dice"] + die - 1] += 0.25
        for slot, seat in enumerate(seats.order()):
            seat %= seats.players
            for column, step in enumerate(observation["steps"][seat]):
                out[at["steps"] + slot * mountains + column] = step / goats.HEIGHTS[column]
            for column, held in enumerate(observation["tokens"][seat]):
                out[at["tokens"] + slot * mountains + column] = held / 12
            out[at["bonuses"] + slot] = sum(observation["bonuses"][seat]) / 42
            out[at["scores"] + slot] = observation["scores"][seat] / 100
        for column, left in enumerate(observation["supply"]):
            out[at["supply"] + column] = left / 12
        for place, bonus in enumerate(goats.BONUSES):
            if bonus in observation["bonus_left"]:
                out[at["bonus_left"] + place] = 1.0
        out[at["ending"]] = float(observation["ending"])


LORD_CARDS = {card: index for index, card in enumerate(lords.CARD_IDS)}
LORD_KINDS: dict[str | None, int] = {
    kind: index for index, kind in enumerate(lords.KIND_IDS) if kind is not None
}
LORD_KINDS[None] = len(lords.CARD_IDS) - len(lords.WILDS)  # a pile of wilds only


class GoatLordsEncoder(Encoder):
    """Goat Lords: hand, herds (per seat the cards, piles and the top pile), the discard
    and draw piles, the duel under way and the scores."""

    game = "goat-lords"
    _HERD = 2 * len(lords.CARD_IDS) + 1 + len(LORD_KINDS)

    def _build(self, layout: Layout) -> None:
        seats, cards, kinds = self.max_players, len(lords.CARD_IDS), len(LORD_KINDS)
        layout.add("round", 1, "the round / 10")
        layout.add("turn", seats, "one-hot by relative seat: whose turn it is")
        layout.add("hand", cards, "per card id: copies in your hand / 5")
        layout.add("hand_sizes", seats, "per seat: cards in hand / 5")
        layout.add(
            "herds",
            seats * self._HERD,
            f"per seat {self._HERD} numbers: per card id the herd's copies / 10; piles / 10;"
            " the top pile's kind one-hot (10 goat kinds, then wilds only); per card id the"
            " top pile's copies / 10",
        )
        layout.add("discard_top", cards, "one-hot per card id: the discard pile's top card")
        layout.add("piles", 3, "discard size / 110, draw size / 110, 1 if recycled this round")
        layout.add("duel", 1, "1 while a duel is under way")
        layout.add(
            "duel_seats", 3 * seats, "one-hot by relative seat: attacker, defender, to answer"
        )
        layout.add("duel_kind", kinds, "one-hot: the kind fought over")
        layout.add("duel_played", cards, "per card id: copies played in the duel / 5")
        layout.add("herd_values", seats, "per seat: herd value / 500")
        layout.add("totals", seats, "per seat: running total / 1000")
        layout.add("rounds_scored", 1, "rounds finished / 10")

    def _player_count(self, observation: Observation) -> int:
        return len(observation["hand_sizes"])

    def _fill(self, out: Numbers, observation: Observation, seats: Seats) -> None:
        at = self.at
        cards = len(lords.CARD_IDS)
        out[at["round"]] = observation["round"] / 10
        put_one_hot(out, at["turn"], seats.relative(observation["turn"]))
        put_counts(out, at["hand"], LORD_CARDS, observation["hand"], 5)
        for slot, seat in enumerate(seats.order()):
            seat %= seats.players
            out[at["hand_sizes"] + slot] = observation["hand_sizes"][seat] / 5
            out[at["herd_values"] + slot] = observation["herd_values"][seat] / 500
            out[at["totals"] + slot] = observation["totals"][seat] / 1000
            herd, start = observation["herds"][seat], at["herds"] + slot * self._HERD
            put_counts(out, start, LORD_CARDS, [c for pile in herd for c in pile["cards"]], 10)
            out[start + cards] = len(herd) / 10
            if herd:
                put_one_hot(out, start + cards + 1, LORD_KINDS[herd[-1]["kind"]])
                put_counts(
                    out, start + cards + 1 + len(LORD_KINDS), LORD_CARDS, herd[-1]["cards"], 10
                )
        if observation["discard_top"] is not None:
            put_one_hot(out, at["discard_top"], LORD_CARDS[observation["discard_top"]])
        piles = at["piles"]
        out[piles] = observation["discard_size"] / 110
        out[piles + 1] = observation["draw_size"] / 110
        out[piles + 2] = float(observation["recycled"])
        duel = observation["duel"]
        if duel is not None:
            out[at["duel"]] = 1.0
            for place, role in enumerate(("attacker", "defender", "to_answer")):
                start = at["duel_seats"] + place * self.max_players
                put_one_hot(out, start, seats.relative(duel[role]))
            put_one_hot(out, at["duel_kind"], LORD_KINDS[duel["kind"]])
            put_counts(out, at["duel_played"], LORD_CARDS, duel["played"], 5)
        out[at["rounds_scored"]] = len(observation["round_scores"]) / 10


GNG_CARDS = gng.CODE_INDEX
GNG_PHASES = {phase.value: index for index, phase in enumerate(gng.Phase)}
GNG_VALUES = list(range(3, 10))
"""Every mountain value of any player count."""


class GoatNGoatEncoder(Encoder):
    """Goat 'n' Goat: phase, hand, what the table knows of the hands, row, flocks,
    mountains, penalties, piles and scores."""

    game = "goat-n-goat"

    def _build(self, layout: Layout) -> None:
        seats, cards, colours = self.max_players, len(gng.CODES), len(gng.COLOURS)
        layout.add("turn", seats, "one-hot by relative seat: whose turn it is")
        layout.add("phase", len(GNG_PHASES), "one-hot: play, take, discard, mountain, over")
        layout.add("played", cards, "per card: copies just played / 8")
        layout.add("take_count", 1, "cards to take / 5")
        layout.add("hand", cards, "per card: copies in your hand / 8")
        layout.add("hand_sizes", seats, "per seat: cards in hand / 8")
        layout.add("known_in_hands", seats * cards, "per seat, per card: copies known in hand / 8")
        layout.add("row", cards, "per card: copies in the row / 6")
        layout.add(
            "flocks",
            seats * colours * 10,
            "per seat, per colour: per number 1-5 its cards / 10, then the top number one-hot",
        )
        layout.add("mountains", colours * len(GNG_VALUES), "per colour, per value 3-9: face up")
        layout.add(
            "mountains_held",
            seats * colours * 2,
            "per seat, per colour: mountains held, their values / 20",
        )
        layout.add("penalty_sizes", seats, "per seat: penalty cards / 20")
        layout.add("scores", seats, "per seat: score / 30")
        layout.add("draw", 2 + cards, "draw size / 84; 1 once rebuilt; its cards / 10")
        layout.add("discard", cards, "per card: copies in the discard pile / 10")
        layout.add("run_outs", 3, "run-outs / 2, final run-out / 2, 1 on the last turn")

    def _fill(self, out: Numbers, observation: Observation, seats: Seats) -> None:
        at = self.at
        cards, colours = len(gng.CODES), gng.COLOURS
        put_one_hot(out, at["turn"], seats.relative(observation["turn"]))
        put_one_hot(out, at["phase"], GNG_PHASES[observation["phase"]])
        put_counts(out, at["played"], GNG_CARDS, observation["played"], 8)
        out[at["take_count"]] = observation["take_count"] / 5
        put_counts(out, at["hand"], GNG_CARDS, observation["hand"], 8)
        put_counts(out, at["row"], GNG_CARDS, observation["row"], 6)
        for slot, seat in enumerate(seats.order()):
            seat %= seats.players
            out[at["hand_sizes"] + slot] = observation["hand_sizes"][seat] / 8
            known = observation["known_in_hands"][seat]
            put_counts(out, at["known_in_hands"] + slot * cards, GNG_CARDS, known, 8)
            for place, colour in enumerate(colours):
                flock = observation["flocks"][seat][colour]
                start = at["flocks"] + (slot * len(colours) + place) * 10
                for number in flock:
                    out[start + number - 1] += 0.1
                if flock:
                    out[start + 4 + flock[-1]] = 1.0
                held = observation["mountains_held"][seat][colour]
                start = at["mountains_held"] + (slot * len(colours) + place) * 2
                out[start] = float(len(held))
                out[start + 1] = sum(held) / 20
            out[at["penalty_sizes"] + slot] = observation["penalty_sizes"][seat] / 20
            out[at["scores"] + slot] = observation["scores"][seat] / 30
        for place, colour in enumerate(colours):
            for value in observation["mountains"][colour]:
                out[at["mountains"] + place * len(GNG_VALUES) + value - GNG_VALUES[0]] += 1.0
        draw = at["draw"]
        out[draw] = observation["draw_size"] / 84
        if observation["draw_cards"] is not None:
            out[draw + 1] = 1.0
            put_counts(out, draw + 2, GNG_CARDS, observation["draw_cards"], 10)
        put_counts(out, at["discard"], GNG_CARDS, observation["discard"], 10)
        out[at["run_outs"]] = observation["run_outs"] / 2
        out[at["run_outs"] + 1] = observation["final_run_out"] / 2
        out[at["run_outs"] + 2] = float(observation["ending"])


HDZ_CARDS = {card: index for index, card in enumerate(hdz.CARD_VALUE)}
HDZ_TYPES = {kind: index for index, kind in enumerate(hdz.TYPES)}
HDZ_PHASES = {phase.value: index for index, phase in enumerate(hdz.Phase)}
HDZ_SIZE = max(setup["size"] for setup in hdz.SETUP.values())
HDZ_CELL = 1 + 2 * 5 + len(hdz.TYPES) + 3
"""Per cell: in the pasture; stall owner and mark, one-hot by relative seat (5 each);
the card's goat type one-hot; its value / 5; 1 for a dog; milk cans / 2."""


class HerrDerZiegenEncoder(Encoder):
    """Herr der Ziegen: phase, hands, the pasture cell by cell, goats, displays, owners,
    fifth cards, markers, the pending drive and scores."""

    game = "herr-der-ziegen"

    def _build(self, layout: Layout) -> None:
        seats, cards, types = self.max_players, len(HDZ_CARDS), len(hdz.TYPES)
        cells, track = HDZ_SIZE * HDZ_SIZE, 4 * HDZ_SIZE
        layout.add("active", seats, "one-hot by relative seat: whose turn it is")
        layout.add("phase", len(HDZ_PHASES), "one-hot: play, take, drive, consent, over")
        layout.add("turn", 1, "the turn / 100")
        layout.add("played", cards, "one-hot per card (A1 ... R5, dog, milk1, milk2): played")
        layout.add("hand", cards, "per card: copies in your hand / 2")
        layout.add("hand_sizes", seats, "per seat: cards in hand / 2")
        layout.add("known_hands", seats * cards, "per seat, per card: known in hand / 2")
        layout.add(
            "pasture",
            cells * HDZ_CELL,
            f"per cell of a 7 x 7 grid, row by row, {HDZ_CELL} numbers: 1 inside the pasture;"
            " stall owner one-hot; small goat's owner one-hot; goat type one-hot (A-R);"
            " value / 5; 1 for a dog; milk cans / 2",
        )
        layout.add("goats", seats * track, "per seat: the big goat's place on the track, one-hot")
        layout.add(
            "facing", seats * (2 + HDZ_SIZE), "per seat: row or column one-hot, its index one-hot"
        )
        layout.add("displays", seats * cards, "per seat, per card: copies in the display / 4")
        layout.add("owners", types * seats, "per goat type: its owner one-hot by relative seat")
        layout.add("fifth_cards", types * seats, "per goat type: its fifth card's winner one-hot")
        layout.add("closed", types, "per goat type: 1 once scored")
        layout.add("markers", seats, "per seat: small goats left / 10")
        layout.add(
            "drive",
            1 + 2 * cells + 1,
            "1 if a drive waits; its source and target cells"
            " one-hot; drives refused this turn / 10",
        )
        layout.add("draw_size", 1, "cards left to draw / 100")
        layout.add("scores", seats, "per seat: score / 50")
        layout.add("ended", 1, "1 once the game has ended")

    def _fill(self, out: Numbers, observation: Observation, seats: Seats) -> None:
        at = self.at
        cards, cells, track = len(HDZ_CARDS), HDZ_SIZE * HDZ_SIZE, 4 * HDZ_SIZE
        put_one_hot(out, at["active"], seats.relative(observation["active"]))
        put_one_hot(out, at["phase"], HDZ_PHASES[observation["phase"]])
        out[at["turn"]] = observation["turn"] / 100
        if observation["played"] is not None:
            put_one_hot(out, at["played"], HDZ_CARDS[observation["played"]])
        put_counts(out, at["hand"], HDZ_CARDS, observation["hand"], 2)
        self._fill_pasture(out, at["pasture"], observation, seats)
        for slot, seat in enumerate(seats.order()):
            seat %= seats.players
            out[at["hand_sizes"] + slot] = observation["hand_sizes"][seat] / 2
            known = observation["known_hands"][seat]
            put_counts(out, at["known_hands"] + slot * cards, HDZ_CARDS, known, 2)
            put_one_hot(out, at["goats"] + slot * track, observation["goats"][seat])
            line, index = observation["facing"][seat]
            start = at["facing"] + slot * (2 + HDZ_SIZE)
            out[start + (line == "column")] = 1.0
            out[start + 2 + index] = 1.0
            display = observation["displays"][seat]
            put_counts(out, at["displays"] + slot * cards, HDZ_CARDS, display, 4)
            out[at["markers"] + slot] = observation["markers"][seat] / 10
            out[at["scores"] + slot] = observation["scores"][seat] / 50
        for kind, owner in observation["owners"].items():
            put_one_hot(
                out, at["owners"] + HDZ_TYPES[kind] * self.max_players, seats.relative(owner)
            )
        for card, winner in observation["fifth_cards"].items():
            start = at["fifth_cards"] + HDZ_TYPES[hdz.CARD_TYPE[card]] * self.max_players
            put_one_hot(out, start, seats.relative(winner))
        for kind in observation["closed"]:
            out[at["closed"] + HDZ_TYPES[kind]] = 1.0
        drive, pending = at["drive"], observation["pending_drive"]
        if pending is not None:
            (row, column), (to_row, to_column) = pending
            out[drive] = 1.0
            out[drive + 1 + row * HDZ_SIZE + column] = 1.0
            out[drive + 1 + cells + to_row * HDZ_SIZE + to_column] = 1.0
        out[drive + 1 + 2 * cells] = len(observation["refused_drives"]) / 10
        out[at["draw_size"]] = observation["draw_size"] / 100
        out[at["ended"]] = float(bool(observation["end_reason"]))

    def _fill_pasture(
        self, out: Numbers, start: int, observation: Observation, seats: Seats
    ) -> None:
        size = observation["size"]
        relative = seats.relative
        for seat, (row, column) in enumerate(observation["stalls"]):
            out[start + (row * HDZ_SIZE + column) * HDZ_CELL + 1 + relative(seat)] = 1.0
        cell = start
        for cards, marks in zip(observation["pasture"], observation["marks"], strict=True):
            for card, mark in zip(cards, marks, strict=True):
                out[cell] = 1.0
                if mark is not None:
                    out[cell + 6 + relative(mark)] = 1.0
                if card is not None:
                    for place, value in HDZ_CARD_NUMBERS[card]:
                        out[cell + place] = value
                cell += HDZ_CELL
            cell += (HDZ_SIZE - size) * HDZ_CELL  # the columns a smaller pasture lacks


def _card_numbers(card: str) -> tuple[tuple[int, float], ...]:
    """A card's numbers within its cell (see HDZ_CELL): type and value, dog, or milk."""
    types, kind = len(hdz.TYPES), hdz.CARD_KIND[card]
    if kind:
        return ((11 + HDZ_TYPES[kind], 1.0), (11 + types, hdz.CARD_VALUE[card] / 5))
    if card == hdz.DOG:
        return ((12 + types, 1.0),)
    return ((13 + types, hdz.MILK[card] / 2),)


HDZ_CARD_NUMBERS = {card: _card_numbers(card) for card in hdz.CARD_VALUE}
"""Per card, its (place in the cell, number) pairs, made once."""


ENCODERS: dict[str, type[Encoder]] = {
    encoder.game: encoder
    for encoder in (GoatLordsEncoder, GoatNGoatEncoder, HerrDerZiegenEncoder, MountainGoatsEncoder)
}
"""Every game's encoder class by game name."""
