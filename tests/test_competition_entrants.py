"""A competition's file and its entrants: the [competition] section, tokens, sign-in."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.competition.entrants import add_entrant, sign_in, upload_refusal
from goatarena.competition.place import open_place
from goatarena.competition.tokens import CheckedTokens, hash_token, new_token, token_matches
from goatarena.errors import ConfigError
from goatarena.formats.tournament_file import load_config

EXAMPLE = """\
name = "class"
format = "ladder"
[time]
move_ms = 300
[bots]                      # the organiser's reference bots
random = "builtin:random"
[competition]
registration = "invite"     # or "open"
languages = ["python", "cpp"]
upload_mib = 20
[[games]]
name = "mountain-goats"
players = 2
"""


def competition_file(tmp_path: Path, extra: str = "", text: str = EXAMPLE) -> Path:
    file = tmp_path / "class.toml"
    file.write_text(text.replace("[[games]]", extra + "\n[[games]]"))
    return file


def test_the_issue_example_is_a_ladder_with_a_competition(tmp_path):
    config = load_config(competition_file(tmp_path))
    assert config.format == "ladder"
    assert config.competition is not None
    assert config.competition.registration == "invite"
    assert config.competition.languages == ["python", "cpp"]
    assert config.competition.upload_mib == 20
    assert config.competition.reference_bot(config.bots) == "random"


def test_a_competition_leaves_the_ladders_fingerprint_alone(tmp_path):
    with_it = load_config(competition_file(tmp_path))
    plain = tmp_path / "plain.toml"
    plain.write_text(EXAMPLE.split("[competition]")[0] + '[[games]]\nname = "mountain-goats"\n')
    plain.write_text(plain.read_text().replace("[bots]", "[bots]\ngreedy = 'builtin:greedy'"))
    without = load_config(plain)
    assert without.competition is None
    assert with_it.fingerprint() != ""  # computed without the section
    import msgspec

    same = msgspec.structs.replace(with_it, competition=None)
    assert same.fingerprint() == with_it.fingerprint()


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ('languages = ["cobol"]', "'cobol' is neither a kit's language"),
        ("upload_mib = 0", "competition.upload_mib: must be above 0"),
        ("per_day = 0", "competition.per_day: must be at least 1"),
        ('reference = "nobody"', "competition.reference: no bot 'nobody'"),
        ("closes = 2026-12-31T18:00:00", "competition.closes: give the time zone"),
        ("colour = 3", "colour"),
    ],
)
def test_bad_competition_settings_are_refused_in_one_line(tmp_path, extra, said):
    text = EXAMPLE.replace('languages = ["python", "cpp"]\nupload_mib = 20', extra)
    with pytest.raises(ConfigError) as caught:
        load_config(competition_file(tmp_path, text=text))
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)


def test_only_a_ladder_is_a_competition(tmp_path):
    text = EXAMPLE.replace('format = "ladder"', 'format = "round-robin"')
    text = text.replace("[bots]", "[bots]\ngreedy = 'builtin:greedy'")
    with pytest.raises(ConfigError, match="a competition is a ladder"):
        load_config(competition_file(tmp_path, text=text))


def test_entrant_add_prints_the_token_last_and_keeps_only_its_hash(tmp_path, monkeypatch):
    file = competition_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["entrant", "add", str(file), "alice"])
    assert result.exit_code == 0, result.output
    token = result.output.strip().splitlines()[-1]
    again = CliRunner().invoke(main, ["entrant", "add", str(file), "alice"])
    assert again.exit_code != 0 and "exists already" in again.output
    database = tmp_path / "results" / "class-competition" / "competition.sqlite"
    assert database.stat().st_mode & 0o077 == 0
    with sqlite3.connect(database) as connection:
        stored = connection.execute("SELECT token_hash FROM entrants").fetchall()
    assert token not in repr(stored) and stored[0][0].startswith("$argon2")
    place, store = open_place(file)
    try:
        entrant = sign_in(store, token)
        assert entrant is not None and entrant.name == "alice"
    finally:
        store.close()


def test_a_token_signs_in_its_own_entrant_only(tmp_path):
    _, store = open_place(competition_file(tmp_path), tmp_path / "class.sqlite")
    try:
        alice = add_entrant(store, "alice")
        bob = add_entrant(store, "bob")
        assert sign_in(store, bob).name == "bob"  # type: ignore[union-attr]
        number, secret = alice.split(".")
        other = bob.split(".")[0]
        for guess in (
            f"{other}.{secret}",  # alice's secret under bob's number
            f"{number}.{secret[:-1]}x",
            f"999.{secret}",
            secret,
            "",
            "1." + "a" * 5000,
        ):
            assert sign_in(store, guess) is None, guess
    finally:
        store.close()


def test_a_remembered_token_is_taken_only_with_the_hash_it_matched():
    checked = CheckedTokens(size=2)
    alice = new_token(1)
    hashed = hash_token(alice)
    assert not checked.recalls(alice, hashed)  # nothing is taken before argon2 said so
    assert token_matches(alice, hashed)
    checked.remember(alice, hashed)
    assert checked.recalls(alice, hashed)
    assert not checked.recalls(alice, None)  # the entrant is gone
    assert not checked.recalls(alice, hash_token(new_token(1)))  # a token made anew
    number, secret = alice.split(".")
    assert not checked.recalls(f"{number}.{secret[:-1]}x", hashed)
    assert not checked.recalls(f"2.{secret}", hashed)


def test_the_least_recently_used_tokens_are_forgotten_first():
    checked = CheckedTokens(size=2)
    tokens = [new_token(number) for number in (1, 2, 3)]
    hashes = {token: f"hash of {token}" for token in tokens}
    for token in tokens[:2]:
        checked.remember(token, hashes[token])
    assert checked.recalls(tokens[0], hashes[tokens[0]])  # now the most recently used
    checked.remember(tokens[2], hashes[tokens[2]])
    assert [checked.recalls(token, hashes[token]) for token in tokens] == [True, False, True]


def test_limits_on_uploads_are_said_in_one_line(tmp_path):
    file = competition_file(tmp_path, "per_day = 1\ncloses = 2000-01-01T00:00:00Z")
    config = load_config(file)
    assert config.competition is not None
    _, store = open_place(file, tmp_path / "class.sqlite")
    try:
        sign_in_token = add_entrant(store, "alice")
        alice = sign_in(store, sign_in_token)
        assert alice is not None
        settings = config.competition
        assert upload_refusal(store, settings, alice, "python") == "uploads are closed"
        import msgspec

        open_now = msgspec.structs.replace(settings, closes=None)
        assert "not taken here" in str(upload_refusal(store, open_now, alice, "java"))
        assert upload_refusal(store, open_now, alice, "python") is None
        store.add_submission(alice.id, "python", 10)
        assert "1 submissions in 24 hours" in str(upload_refusal(store, open_now, alice, "python"))
        store.set_suspended(alice.id, "copied code")
        alice = store.entrant(alice.id)
        assert alice is not None
        assert "suspended: copied code" in str(upload_refusal(store, open_now, alice, "python"))
    finally:
        store.close()


def test_a_version_1_competition_database_is_migrated_when_opened(tmp_path):
    from goatarena.store.competition import TABLES, open_competition_store

    path = tmp_path / "competition.sqlite"
    with sqlite3.connect(path) as connection:
        connection.executescript(TABLES)
        connection.execute("INSERT INTO meta VALUES ('schema', '1')")
        connection.execute("INSERT INTO entrants VALUES (1, 'alice', 'h', 0, NULL, 0)")
        connection.execute(
            "INSERT INTO submissions (entrant, language, size, state, created_at, updated_at)"
            " VALUES (1, 'python', 10, 'active', 0, 0)"
        )
    store = open_competition_store(path)
    try:
        assert store.submission(1).comparison is None  # type: ignore[union-attr]
        store.set_comparison(1, "alice@2 is stronger than alice@1")
        assert store.submission(1).comparison == "alice@2 is stronger than alice@1"  # type: ignore[union-attr]
    finally:
        store.close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("3",)


def test_an_entrant_cannot_take_the_name_of_an_organisers_bot(tmp_path, monkeypatch):
    # Named "random", their versions random@1, random@2 ... would follow and retire the
    # reference bot "random".
    file = competition_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("random", "Random"):
        result = CliRunner().invoke(main, ["entrant", "add", str(file), name])
        assert result.exit_code != 0
        assert "the name of one of the organiser's bots" in result.output
