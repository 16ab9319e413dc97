"""Secret deals: a deal's seed mixes in a random secret kept in the results database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.schedule import deal_seed, match_id
from goatarena.running.job import deal_of
from tests.helpers import RANDOM_BOT


def write(path: Path, extra: str = "") -> Path:
    # Deals, not isolation, are under test here: unsandboxed bots start faster.
    lines = ['name = "s"', "seed = 0", "deals = 2", 'sandbox = "none"', extra, "[bots]"]
    lines += [f"a = {json.dumps(RANDOM_BOT)}", f"b = {json.dumps(RANDOM_BOT)}"]
    lines += ['[[games]]\nname = "goat-lords"\nplayers = 2']
    path.write_text("\n".join(lines) + "\n")
    return path


def seeds(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT key, seed FROM games").fetchall())


def run(config: Path, db: Path) -> None:
    result = CliRunner().invoke(main, ["run", "--quiet", str(config), "--db", str(db)])
    assert result.exit_code == 0, result.output


def test_two_fresh_databases_of_one_file_deal_differently(tmp_path):
    config = write(tmp_path / "s.toml")
    run(config, tmp_path / "one.sqlite")
    run(config, tmp_path / "two.sqlite")
    one, two = seeds(tmp_path / "one.sqlite"), seeds(tmp_path / "two.sqlite")
    assert one.keys() == two.keys() and len(one) == 4
    assert all(one[key] != two[key] for key in one)
    # Nor is any of them the seed the file alone gives.
    assert all(seed != deal_seed(0, key.rsplit("/", 1)[0]) for key, seed in one.items())


def test_without_secret_deals_the_file_alone_decides(tmp_path):
    config = write(tmp_path / "s.toml", "secret_deals = false")
    run(config, tmp_path / "one.sqlite")
    run(config, tmp_path / "two.sqlite")
    one = seeds(tmp_path / "one.sqlite")
    assert one == seeds(tmp_path / "two.sqlite")
    assert all(seed == deal_seed(0, key.rsplit("/", 1)[0]) for key, seed in one.items())


def test_a_resumed_run_deals_with_the_stored_secret(tmp_path):
    config = write(tmp_path / "s.toml")
    db = tmp_path / "s.sqlite"
    run(config, db)
    before = seeds(db)
    with sqlite3.connect(db) as connection:  # as if the second deal's games never finished
        for table in ("games", "summaries"):  # a game's record and its summary go together
            connection.execute(f"DELETE FROM {table} WHERE key LIKE '%/d1/%'")
    run(config, db)
    assert seeds(db) == before


def test_a_deal_is_named_without_its_rotation_and_match_ids_are_opaque():
    assert deal_of("0.goat-lords.2p/a+b/d3/r1") == "0.goat-lords.2p/a+b/d3"
    assert deal_of("0.goat-lords.2p/s2/a+b/d0") == "0.goat-lords.2p/s2/a+b/d0"
    key = "0.goat-lords.2p/a+b/d3/r1"
    opaque = match_id(key, "secret")
    assert len(opaque) == 16 and "goat" not in opaque
    assert opaque != match_id(key, "another secret")
