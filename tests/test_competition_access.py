"""Every route of a competition's site, walked from outside by nobody, entrant A (alice),
entrant B (bob) and the organiser, against ``goatarena serve FILE`` in a process of its
own. The routes are read from the site's own route table, so a route that
:mod:`goatarena.competition.access` has no rule for fails here (and cannot even be
served); each answer is the one the rule decides:

- nobody signed in is asked to sign in (401), the same answer whatever is asked for;
- alice's submission, build log and seat's stderr: hers and the organiser's (200); bob
  gets 404, byte for byte the answer to a number that does not exist;
- the organiser's page, forms and API actions: the organiser's alone, 404 for anyone
  else (entrants and nobody alike), as for a name that does not exist;
- every form posted on the pages needs its CSRF token and the site's own origin (403
  otherwise), and a refused form changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from goatarena.competition.access import RULES, Rule, Undecided, rule_for
from goatarena.competition.entrants import add_entrant
from goatarena.competition.pipeline import Competition
from goatarena.formats.tournament_file import load_config
from goatarena.store.competition import open_competition_store
from goatarena.web.app import Site
from goatarena.web.competition_entry import FORM_REFUSED
from goatarena.web.competition_routes import CompetitionSite
from tests.competition_helpers import served
from tests.test_competition_pages import csrf_of
from tests.test_competition_site import prepare

ROLES = (None, "alice", "bob", "organiser")
"""Who asks: nobody, the owner of the things asked for, another entrant, the organiser."""
OWNERS_RULES = (Rule.SUBMISSION_OWNER, Rule.SEAT_OWNER)
THINGS = {
    # The rule's path parameters for alice's things (dave's, for the organiser's actions)
    # and for things that do not exist.
    Rule.SUBMISSION_OWNER: ({"number": "1"}, {"number": "999"}),
    Rule.SEAT_OWNER: ({"number": "1", "seat": "0"}, {"number": "999", "seat": "0"}),
    Rule.ORGANISER: ({"name": "dave"}, {"name": "nobody"}),
}
FORM_FIELDS = {
    # What each form posts beside its CSRF token: nothing that could succeed at more
    # than being let in (an archive that is none, a name that cannot be one).
    "/competition/sign-in": {"token": ""},
    "/competition/register": {"name": "-"},
    "/competition/organiser/entrants/{name}/suspend": {"reason": "walked"},
    "/competition/organiser/uploads/close": {"reason": "walked"},
}
NOT_AN_ARCHIVE = b"not an archive"
ANYONES = {"/competition", "/competition/sign-in", "/competition/sign-out", "/competition/register"}


def route_table(folder: Path) -> list[tuple[str, str]]:
    """Every (method, path) the competition's site serves, as its own table says."""
    file, db = folder / "class.toml", folder / "results" / "class.sqlite"
    competition = Competition(file, db)
    site = Site(db)
    try:
        app = CompetitionSite(site, competition)
        return [
            (method, route.path)
            for route in app.starlette.routes
            for method in sorted(getattr(route, "methods", None) or ())
            if method != "HEAD"  # a GET's, under the same rule
        ]
    finally:
        site.close()
        competition.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, dict[str, str], Path, list]]:
    folder = tmp_path_factory.mktemp("access")
    tokens = prepare(folder)
    file = folder / "class.toml"
    text = file.read_text().replace("[competition]", '[competition]\nregistration = "open"')
    file.write_text(text.replace('"bob@1" =', '"dave@1" = "/builds/3/bot"\n"bob@1" ='))
    store = open_competition_store(folder / "results" / "class-competition" / "competition.sqlite")
    tokens["dave"] = add_entrant(store, "dave")
    dave = store.entrant_named("dave")
    assert dave is not None
    submission = store.add_submission(dave.id, "python", 100)
    store.set_state(submission, "active", build_log="dave's build log")
    store.add_version("dave@1", dave.id, submission, "/builds/3/bot")
    store.close()
    routes = route_table(folder)
    with served(folder) as url:
        yield url, tokens, folder, routes


class Asker:
    """One role asking: a bearer token on the API, a signed-in session on the pages."""

    def __init__(self, url: str, tokens: dict[str, str], role: str | None) -> None:
        self.role = role
        self.api = httpx.Client(base_url=url, timeout=30)
        if role is not None:
            self.api.headers["Authorization"] = f"Bearer {tokens[role]}"
        self.pages = httpx.Client(base_url=url, timeout=30, headers={"Origin": url})
        self.csrf = csrf_of(self.pages.get("/competition").text)  # the form cookie's
        if role is not None:
            signed = self.pages.post(
                "/competition/sign-in", data={"csrf": self.csrf, "token": tokens[role]}
            )
            assert signed.status_code == 303, signed.text
            self.csrf = csrf_of(self.pages.get("/competition").text)  # the session's

    def ask(self, method: str, path: str, template: str, csrf: str | None = "") -> httpx.Response:
        """``method path`` (of the route ``template``) with what its form posts;
        ``csrf``: the form's token ("" for the right one, None for none)."""
        if path.startswith("/api/"):
            if method == "GET":
                return self.api.get(path)
            return self.api.post(path + "?language=python", content=NOT_AN_ARCHIVE)
        if method == "GET":
            return self.pages.get(path)
        data = dict(FORM_FIELDS.get(template, {}))
        if csrf is not None:
            data["csrf"] = csrf or self.csrf
        files = {"archive": ("bot.tar.gz", NOT_AN_ARCHIVE)} if path.endswith("/upload") else None
        return self.pages.post(path, data=data, files=files)


def fill(template: str, values: dict[str, str]) -> str:
    """The path of route ``template`` with its parameters given (a version's name where
    it names a version)."""
    named = dict(values)
    if "/versions/" in template and "name" in named:
        named["name"] += "@1"
    return re.sub(r"\{(\w+)\}", lambda found: named[found.group(1)], template)


def admitted(rule: Rule, role: str | None) -> bool:
    """Who each rule lets at alice's things (and at the organiser's actions)."""
    if rule is Rule.ANYONE:
        return True
    if rule is Rule.ORGANISER:
        return role == "organiser"
    if rule is Rule.ENTRANT:
        return role is not None
    return role in ("alice", "organiser")


def assert_refused(answer: httpx.Response, rule: Rule, role: str | None, api: bool) -> None:
    """The one refusal the rule decides for ``role``."""
    if role is None and rule is not Rule.ORGANISER:
        assert answer.status_code == 401, answer.text
        if api:
            assert answer.json() == {"error": "sign in: Authorization: Bearer TOKEN"}
        else:
            assert "Sign in" in answer.text and "sign in to see this" in answer.text
    else:
        assert answer.status_code == 404, answer.text
        assert (answer.json() == {"error": "not found"}) if api else answer.text == "not found"
    for secret in ("alice's build log", "thoughts", "dave"):
        assert secret not in answer.text


def test_the_route_table_and_the_rules_name_the_same_routes(server):
    _, _, _, routes = server
    served_routes = {f"{method} {path}" for method, path in routes}
    assert served_routes == set(RULES), "a route without a rule, or a rule without a route"
    assert len(routes) == len(served_routes)
    with pytest.raises(Undecided, match="no rule"):
        rule_for("GET", "/api/submissions/{number}/source")


def test_the_rules_keep_the_competitions_promises(server):
    """Read apart from the table: what may change in a new rule and what may not."""
    for route, rule in RULES.items():
        method, path = route.split(" ")
        if re.match(r"^/(api/(entrants|versions)|competition/organiser)(/|$)", path):
            assert rule is Rule.ORGANISER, route  # the organiser's actions are theirs alone
        elif "{number}" in path:
            assert rule in OWNERS_RULES, route  # a numbered thing is its owner's
        elif rule is Rule.ANYONE:
            assert path in ANYONES, route  # signing in is all that needs no one


def test_every_route_answers_each_viewer_as_access_decides(server):
    url, tokens, folder, routes = server
    askers = {role: Asker(url, tokens, role) for role in ROLES}
    before = askers["alice"].api.get("/api/submissions").json()
    walked = 0
    # Signing out last: it ends the session the other routes are asked with.
    for method, template in sorted(routes, key=lambda route: route[1].endswith("/sign-out")):
        rule = rule_for(method, template)
        api = template.startswith("/api/")
        theirs, missing = THINGS.get(rule, ({}, {}))
        for role, asker in askers.items():
            path = fill(template, theirs)
            answer = asker.ask(method, path, template)
            where = f"{role} {method} {path}"
            if admitted(rule, role):
                assert answer.status_code not in (401, 403, 404), (where, answer.text)
                if rule in OWNERS_RULES:
                    assert answer.status_code == 200 and "alice" in answer.text, where
                    assert answer.headers["content-type"].split(";")[0] in (
                        "application/json",
                        "text/plain",
                    )
            else:
                assert_refused(answer, rule, role, api)
            if "{" in template:  # what does not exist is answered as what is not one's
                absent = asker.ask(method, fill(template, missing), template)
                if admitted(rule, role):
                    assert_refused(absent, Rule.SUBMISSION_OWNER, "bob", api)
                else:
                    assert (absent.status_code, absent.text) == (answer.status_code, answer.text)
            walked += 1
    assert walked == len(RULES) * len(ROLES)
    # Only the organiser's actions took effect, and they were undone in the walk.
    assert askers["alice"].api.get("/api/submissions").json() == before
    assert askers["bob"].api.get("/api/submissions/1").status_code == 404
    assert load_config(folder / "class.toml").ladder.retired == []
    dave = httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {tokens['dave']}"})
    assert dave.status_code == 200


@pytest.mark.parametrize("forgery", ["no token", "a forged token", "another site's page"])
def test_every_form_needs_its_csrf_token_and_the_sites_origin(server, forgery):
    url, tokens, folder, routes = server
    askers = {role: Asker(url, tokens, role) for role in ROLES}
    forms = [template for method, template in routes if method == "POST"]
    forms = [template for template in forms if not template.startswith("/api/")]
    assert len(forms) >= 10
    for template in forms:
        rule = rule_for("POST", template)
        role = {Rule.ORGANISER: "organiser", Rule.ENTRANT: "alice"}.get(rule)  # let in
        asker = askers[role]
        path = fill(template, THINGS.get(rule, ({}, {}))[0])
        if forgery == "another site's page":
            asker.pages.headers["Origin"] = "https://evil.example"
            answer = asker.ask("POST", path, template)
            asker.pages.headers["Origin"] = url
        else:
            answer = asker.ask("POST", path, template, None if forgery == "no token" else "x")
        assert (answer.status_code, answer.text) == (403, FORM_REFUSED), (forgery, path)
        assert (
            "set-cookie" not in answer.headers
            or "goatarena_session=" not in answer.headers["set-cookie"]
        )
    # Nothing was done: dave is not suspended, no version retired, uploads open, and the
    # organiser is still signed in (a forged sign-out signs no one out).
    assert httpx.get(
        url + "/api/me", headers={"Authorization": f"Bearer {tokens['dave']}"}
    ).is_success
    assert load_config(folder / "class.toml").ladder.retired == []
    assert askers["organiser"].pages.get("/competition/organiser").status_code == 200
    assert "close uploads" in askers["organiser"].pages.get("/competition/organiser").text
