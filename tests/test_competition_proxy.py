"""Behind a reverse proxy (``trusted_proxy``): the pause after wrong tokens applies to the
client the proxy names in ``X-Forwarded-For``, not to the proxy's address, so one
guesser does not lock everyone out; a client that is not the trusted proxy cannot
escape the pause by forging the header."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from goatarena.competition.guards import client_address
from goatarena.competition.place import load_competition
from goatarena.errors import ConfigError
from tests.competition_helpers import served
from tests.test_competition_site import prepare


def competition(tmp_path: Path, proxy: str | None) -> dict[str, str]:
    tokens = prepare(tmp_path)
    if proxy is not None:
        file = tmp_path / "class.toml"
        text = file.read_text().replace(
            "[competition]", f'[competition]\ntrusted_proxy = "{proxy}"'
        )
        file.write_text(text)
    return tokens


def guess(url: str, token: str, forwarded_for: str) -> int:
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": forwarded_for}
    return httpx.get(url + "/api/me", headers=headers, timeout=30).status_code


def test_the_client_address_is_taken_from_the_trusted_proxy_alone():
    assert client_address("10.0.0.9", "203.0.113.5", None) == "10.0.0.9"
    assert client_address("10.0.0.9", "203.0.113.5", "10.0.0.1") == "10.0.0.9"  # forged
    assert client_address("10.0.0.1", "203.0.113.5", "10.0.0.1") == "203.0.113.5"
    # The proxy appends the client it saw; what came before is the client's own word.
    assert client_address("10.0.0.1", "1.2.3.4, 203.0.113.5", "10.0.0.1") == "203.0.113.5"
    assert client_address("10.0.0.1", "<script>", "10.0.0.1") == "10.0.0.1"
    assert client_address("10.0.0.1", None, "10.0.0.1") == "10.0.0.1"


def test_a_trusted_proxy_that_is_no_address_is_refused_in_one_line(tmp_path):
    competition(tmp_path, "proxy.example")
    with pytest.raises(ConfigError, match="competition.trusted_proxy: 'proxy.example' is not"):
        load_competition(tmp_path / "class.toml")


def test_behind_the_trusted_proxy_one_guesser_is_paused_and_others_are_not(tmp_path):
    tokens = competition(tmp_path, "127.0.0.1")
    with served(tmp_path) as url:
        number = tokens["alice"].split(".")[0]
        codes = [guess(url, f"{number}.guess{n}", "203.0.113.5") for n in range(11)]
        assert codes == [401] * 9 + [429] * 2
        assert guess(url, tokens["alice"], "203.0.113.5") == 429  # the guesser waits
        assert guess(url, tokens["bob"], "203.0.113.6") == 200  # everyone else does not


def test_without_a_trusted_proxy_a_forged_header_does_not_escape_the_pause(tmp_path):
    tokens = competition(tmp_path, None)
    with served(tmp_path) as url:
        number = tokens["alice"].split(".")[0]
        codes = [guess(url, f"{number}.guess{n}", f"203.0.113.{n}") for n in range(11)]
        assert codes == [401] * 9 + [429] * 2
        assert guess(url, tokens["bob"], "198.51.100.7") == 429
