"""The standings of a large store counted by two processes are those of one reader."""

from __future__ import annotations

import os
import sqlite3
import sys

import msgspec
import pytest

from goatarena.bench.synthetic import synthetic_games
from goatarena.errors import StoreError
from goatarena.ratings.standings import StandingsTally
from goatarena.store import split_count
from goatarena.store.opening import open_store
from goatarena.store.standings import count_summary, standings_from_store


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    path = tmp_path_factory.mktemp("split") / "games.sqlite"
    store = open_store(path)
    store.add_games(synthetic_games(1_200, bots=12, players=4, seed=3))
    store.add_games(synthetic_games(300, bots=6, players=2, seed=4))
    store.close()
    return path


def standings_of(path, *, split, monkeypatch, game=None):
    monkeypatch.setattr(split_count, "SPLIT_FROM", 1 if split else 10**12)
    monkeypatch.setattr(split_count, "usable_cpus", lambda: 2)
    store = open_store(path, create=False)
    try:
        return msgspec.json.encode(standings_from_store(store, game=game))
    finally:
        store.close()


@pytest.mark.parametrize("game", [None, "goat-lords"])
def test_two_processes_count_the_standings_of_one(database, monkeypatch, game):
    helpers = []
    real_start = split_count._start_helper
    monkeypatch.setattr(
        split_count, "_start_helper", lambda *a: helpers.append(real_start(*a)) or helpers[-1]
    )
    absorbed = []
    real_absorb = StandingsTally.absorb
    monkeypatch.setattr(
        StandingsTally, "absorb", lambda self, other: absorbed.append(other.games)
        or real_absorb(self, other),
    )  # fmt: skip
    split = standings_of(database, split=True, monkeypatch=monkeypatch, game=game)
    assert helpers and helpers[0].returncode is not None  # it ran, and was reaped
    assert len(absorbed) == 1 and absorbed[0] > 100  # its half came back and was counted
    assert split == standings_of(database, split=False, monkeypatch=monkeypatch, game=game)


def test_a_second_process_that_cannot_start_or_fails_leaves_its_half_to_the_first(
    database, monkeypatch
):
    one = standings_of(database, split=False, monkeypatch=monkeypatch)
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    assert standings_of(database, split=True, monkeypatch=monkeypatch) == one
    monkeypatch.setattr(sys, "executable", "/bin/false")  # starts, says nothing, exits
    assert standings_of(database, split=True, monkeypatch=monkeypatch) == one


def test_a_damaged_summary_in_the_second_half_is_the_error_one_reader_gives(
    database, tmp_path, monkeypatch
):
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(database.read_bytes())
    with sqlite3.connect(damaged) as connection:
        last = connection.execute("SELECT MAX(seq) FROM summaries").fetchone()[0]
        connection.execute("UPDATE summaries SET summary = x'93' WHERE seq = ?", (last,))
    messages = []
    for split in (False, True):
        with pytest.raises(StoreError) as error:
            standings_of(damaged, split=split, monkeypatch=monkeypatch)
        messages.append(str(error.value))
    assert messages[0] == messages[1] and "is damaged" in messages[0]


def test_an_interrupted_count_ends_the_second_process(database, monkeypatch):
    monkeypatch.setattr(split_count, "SPLIT_FROM", 1)
    monkeypatch.setattr(split_count, "usable_cpus", lambda: 2)
    helpers = []
    real_start = split_count._start_helper
    monkeypatch.setattr(
        split_count, "_start_helper", lambda *a: helpers.append(real_start(*a)) or helpers[-1]
    )

    def interrupted(tally, summary):
        raise KeyboardInterrupt

    store = open_store(database, create=False)
    try:
        with pytest.raises(KeyboardInterrupt):
            split_count.count_split(store, StandingsTally(), interrupted)
    finally:
        store.close()
    (helper,) = helpers
    assert helper.returncode is not None  # killed and reaped, not left running
    with pytest.raises(ProcessLookupError):
        os.kill(helper.pid, 0)


def test_the_halves_are_every_game_once(database):
    store = open_store(database, create=False)
    try:
        games, middle = store.halfway()
        first = [s.key for s in store.summaries(upto=middle)]
        second = [s.key for s in store.summaries(after=middle)]
        assert first + second == [s.key for s in store.summaries()]
        assert abs(len(first) - len(second)) <= 1 and games == len(first) + len(second)
        counted = StandingsTally()
        for summary in store.summaries():
            count_summary(counted, summary)
        assert counted.games == len(first) + len(second)
    finally:
        store.close()
