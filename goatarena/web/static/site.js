"use strict";
// The site's live updates: the leaderboard listens to the server's event stream and,
// when the standings are refitted, swaps in the tables the server rendered; each stored
// game is added to the latest games. Text from the stream is set as text, never as HTML.
(() => {
  const $ = (id) => document.getElementById(id);

  function gameItem(row) {
    const li = document.createElement("li");
    li.className = "fresh";
    const link = document.createElement("a");
    link.href = `/games/${Number(row.number)}`;
    link.textContent = `#${row.number}`;
    li.append(link, ` ${row.game}: `);
    row.seats.forEach((seat, s) => {
      const name = document.createElement("span");
      if (seat.rank === 1) name.className = "rank1";
      name.textContent = seat.bot;
      li.append(name, ` (${seat.rank})${s + 1 < row.seats.length ? ", " : ""}`);
    });
    return li;
  }

  async function refreshTables(tables) {
    const answer = await fetch(tables.dataset.live, { headers: { Accept: "text/html" } });
    if (!answer.ok) return;
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    tables.replaceChildren(...page.body.childNodes);
    document.body.dataset.refreshed = String(Date.now());
  }

  function listen() {
    const tables = $("tables");
    if (!tables || !window.EventSource) return;
    const events = new EventSource("/api/events");
    events.addEventListener("game", (event) => {
      const row = JSON.parse(event.data).game;
      const stored = $("stored");
      if (stored) stored.textContent = String(Math.max(Number(stored.textContent), row.number));
      const recent = $("recent-games");
      if (recent) {
        recent.prepend(gameItem(row));
        while (recent.children.length > 10) recent.lastElementChild.remove();
      }
    });
    events.addEventListener("standings", () => { refreshTables(tables); });
  }

  // The game page: open its replay in the report's viewer (report.js) at once.
  function openReplay() {
    const replays = $("report-replays");
    if (!replays || !window.goatarenaReport) return;
    const keys = Object.keys(JSON.parse(replays.textContent));
    if (keys.length) window.goatarenaReport.openReplay(keys[0]);
  }

  // The entrant's page: while their newest submission is uploaded, building or
  // validating, the page asks the server for itself each second and swaps in its
  // progress, versions and submissions, until the submission is active or has failed.
  function followSubmission() {
    const live = $("entrant-live");
    if (!live || !live.dataset.pending) return;
    const began = Date.now();
    const showElapsed = () => {
      const said = live.querySelector(".progress p");
      if (!said || !live.dataset.pending) return;
      let elapsed = said.querySelector(".elapsed");
      if (!elapsed) {
        elapsed = document.createElement("span");
        elapsed.className = "elapsed";
        said.append(elapsed);
      }
      elapsed.textContent = ` · ${Math.round((Date.now() - began) / 1000)} s`;
    };
    const tick = async () => {
      try {
        const answer = await fetch(live.dataset.live, { cache: "no-store" });
        const page = new DOMParser().parseFromString(await answer.text(), "text/html");
        const fresh = page.getElementById("entrant-live");
        if (!fresh) return; // signed out meanwhile: the page as it was
        live.replaceChildren(...fresh.childNodes);
        live.dataset.pending = fresh.dataset.pending || "";
        document.body.dataset.refreshed = String(Date.now());
      } catch (error) {
        // The server restarting, say: asked again at the next tick.
      }
      showElapsed();
      if (live.dataset.pending) setTimeout(tick, 1000);
    };
    showElapsed();
    setTimeout(tick, 1000);
  }

  // The upload form: its button says the archive is on its way while it is sent.
  function sendingUploads() {
    document.querySelectorAll("form.upload").forEach((form) => {
      form.addEventListener("submit", () => {
        const button = form.querySelector("button[type=submit]");
        const sending = form.querySelector(".sending");
        if (button) button.disabled = true;
        if (sending) sending.textContent = "uploading…";
      });
    });
  }

  listen();
  followSubmission();
  sendingUploads();
  window.addEventListener("load", openReplay);
})();
