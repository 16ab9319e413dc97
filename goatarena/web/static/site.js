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

  // The upload form's folder field: the chosen folder is packed here, as a tar.gz of its
  // files (build output and version control left out, as `goatarena submit` packs), and
  // put in the archive field. Browsers give no file modes: a script ("#!") or a program
  // (ELF) is made executable, anything else not.
  const SKIPPED = new Set([".git", ".hg", ".svn", "__pycache__", "node_modules", "target",
    ".venv", ".mypy_cache"]);
  const encoder = new TextEncoder();

  function tarHeader(path, size, mode) {
    const header = new Uint8Array(512);
    const put = (text, at, length) => header.set(encoder.encode(text).slice(0, length), at);
    const octal = (value, length) => value.toString(8).padStart(length - 1, "0");
    let name = path;
    let prefix = "";
    if (encoder.encode(path).length > 100) {
      const cut = path.lastIndexOf("/", 155);
      prefix = path.slice(0, cut);
      name = path.slice(cut + 1);
      if (cut < 0 || encoder.encode(name).length > 100) throw new Error(`a path too long: ${path}`);
    }
    put(name, 0, 100);
    put(octal(mode, 8), 100, 8);
    put(octal(0, 8), 108, 8);
    put(octal(0, 8), 116, 8);
    put(octal(size, 12), 124, 12);
    put(octal(Math.floor(Date.now() / 1000), 12), 136, 12);
    put("        ", 148, 8);
    put("0", 156, 1);
    put("ustar\u000000", 257, 8);
    put(prefix, 345, 155);
    const sum = header.reduce((total, byte) => total + byte, 0);
    put(`${octal(sum, 7)}\u0000`, 148, 8);
    return header;
  }

  async function packFolder(files) {
    const parts = [];
    let count = 0;
    for (const file of files) {
      const inside = file.webkitRelativePath.split("/").slice(1); // the folder's own name off
      if (!inside.length || inside.some((part) => SKIPPED.has(part))) continue;
      const data = new Uint8Array(await file.arrayBuffer());
      const script = data[0] === 0x23 && data[1] === 0x21;
      const program = data[0] === 0x7f && data[1] === 0x45 && data[2] === 0x4c && data[3] === 0x46;
      parts.push(tarHeader(inside.join("/"), data.length, script || program ? 0o755 : 0o644), data);
      if (data.length % 512) parts.push(new Uint8Array(512 - (data.length % 512)));
      count += 1;
    }
    parts.push(new Uint8Array(1024));
    const packed = new Blob(parts).stream().pipeThrough(new CompressionStream("gzip"));
    return { archive: await new Response(packed).blob(), count };
  }

  function packingFolders() {
    document.querySelectorAll("form.upload input.folder").forEach((chooser) => {
      const form = chooser.form;
      const archive = form.querySelector("input[name=archive]");
      const said = form.querySelector(".packed");
      chooser.addEventListener("change", async () => {
        const files = [...chooser.files];
        if (!files.length) return;
        const folder = files[0].webkitRelativePath.split("/")[0];
        said.textContent = `packing ${folder}…`;
        try {
          const { archive: packed, count } = await packFolder(files);
          const most = Number(archive.dataset.uploadBytes);
          if (packed.size > most) {
            archive.value = "";
            said.textContent = `${folder} packs to ${(packed.size / 1048576).toFixed(1)} MiB: at most ${(most / 1048576).toFixed(1)} MiB`;
            return;
          }
          const chosen = new DataTransfer();
          chosen.items.add(new File([packed], `${folder}.tar.gz`, { type: "application/gzip" }));
          archive.files = chosen.files;
          said.textContent = `${folder}: ${count} files packed, ${Math.ceil(packed.size / 1024)} KiB`;
        } catch (error) {
          archive.value = "";
          said.textContent = `${folder} could not be packed: ${error.message}`;
        }
      });
    });
  }

  listen();
  followSubmission();
  packingFolders();
  sendingUploads();
  window.addEventListener("load", openReplay);
})();
