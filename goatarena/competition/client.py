"""The entrant's side of a competition: upload a folder and follow it (``goatarena submit``).

Plain HTTP(S) with the standard library: the server's JSON answers, the token as
``Authorization: Bearer TOKEN``.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from goatarena.errors import GoatArenaError

FINAL_STATES = ("active", "failed")
RESTART_PATIENCE_S = 60.0
"""How long ``submit`` waits for a server that stopped answering while it follows a
submission: long enough for one restarted (by systemd, say) to answer again."""
USER_AGENT = "goatarena-submit"


class Refused(GoatArenaError):
    """The server refused the request (a 4xx answer); the message is its reason."""


class Unreachable(GoatArenaError):
    """The server could not be reached, or answered with something else than JSON."""


@dataclass(frozen=True)
class Server:
    """A competition's site and an entrant's token."""

    url: str
    token: str

    def _request(
        self, method: str, path: str, body: bytes | None = None, *, text: bool = False
    ) -> Any:
        try:
            request = urllib.request.Request(
                urllib.parse.urljoin(self.url.rstrip("/") + "/", path.lstrip("/")),
                data=body,
                method=method,
                headers={
                    "Authorization": f"Bearer {self.token}",
                    "User-Agent": USER_AGENT,
                    **({"Content-Type": "application/gzip"} if body is not None else {}),
                },
            )
            with urllib.request.urlopen(request, timeout=120) as answer:  # noqa: S310
                data = answer.read()
        except urllib.error.HTTPError as error:
            said = error.read().decode(errors="replace")
            try:
                reason = json.loads(said)["error"]
            except (ValueError, KeyError, TypeError):
                reason = said.strip()[:200] or error.reason
            raise Refused(f"{reason} (HTTP {error.code})") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise Unreachable(f"cannot reach {self.url}: {reason}") from None
        except (ValueError, http.client.HTTPException) as error:
            # A malformed URL, a token HTTP headers cannot carry, a server speaking no HTTP.
            said_one_line = " ".join(str(error).split())[:200]
            raise Unreachable(f"cannot send to {self.url}: {said_one_line}") from None
        if text:
            return data.decode(errors="replace")
        try:
            return json.loads(data)
        except ValueError:
            raise Unreachable(f"{self.url} did not answer as a goatarena site") from None

    def upload(self, archive: bytes, language: str) -> int:
        """Upload ``archive``; the submission's number (Refused when the server says no)."""
        query = urllib.parse.urlencode({"language": language})
        answer = self._request("POST", f"/api/submissions?{query}", archive)
        try:
            return int(answer["submission"])
        except (KeyError, TypeError, ValueError):
            raise Unreachable(f"{self.url} did not answer as a goatarena site") from None

    def submission(self, number: int) -> dict[str, Any]:
        """Submission ``number`` as the server shows it to its owner."""
        answer: dict[str, Any] = self._request("GET", f"/api/submissions/{number}")
        if not isinstance(answer, dict) or "state" not in answer:
            raise Unreachable(f"{self.url} did not answer as a goatarena site")
        return answer

    def build_log(self, number: int) -> str:
        """Submission ``number``'s build log (and validation stderr)."""
        log: str = self._request("GET", f"/api/submissions/{number}/log", text=True)
        return log

    def follow(
        self,
        number: int,
        *,
        wait_s: float,
        poll_s: float = 1.0,
        said: Callable[[str], None] = lambda _: None,
        patience_s: float = RESTART_PATIENCE_S,
    ) -> dict[str, Any]:
        """Poll submission ``number`` until it is active or failed (or ``wait_s`` passes);
        ``said`` hears each new state. A server that stops answering is waited for up to
        ``patience_s`` seconds (a restarted one takes the submission up again), then
        Unreachable."""
        deadline = time.monotonic() + wait_s
        state = ""
        silent_since: float | None = None
        while True:
            try:
                found = self.submission(number)
            except Unreachable:
                now = time.monotonic()
                silent_since = now if silent_since is None else silent_since
                if now - silent_since > patience_s or now > deadline:
                    raise
                if state != "not answering":
                    state = "not answering"
                    said("the server is not answering: waiting for it")
                time.sleep(poll_s)
                continue
            silent_since = None
            if found["state"] != state:
                state = found["state"]
                said(state)
            if state in FINAL_STATES or time.monotonic() > deadline:
                return found
            time.sleep(poll_s)

    def follow_comparison(self, number: int, *, wait_s: float, poll_s: float = 1.0) -> str:
        """Poll submission ``number`` until its comparison with the previous version is
        done; the sentence ("" when there is none to make)."""
        deadline = time.monotonic() + wait_s
        while True:
            text = self.submission(number).get("comparison") or ""
            if not text.startswith("comparing") or time.monotonic() > deadline:
                return str(text)
            time.sleep(poll_s)
