"use strict";
// The report's games list and replay viewer. Replays hold every step's view as the
// engine observed it (gzip + base64); this script only draws them, it knows no rules.
(() => {
  const DATA = JSON.parse(document.getElementById("report-data").textContent);
  const PACKED = JSON.parse(document.getElementById("report-replays").textContent);
  const SEAT = ["#d62728", "#1f77b4", "#2ca02c", "#e6a700", "#b5179e", "#0f9fb5"];
  const NS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const LIST = DATA.list;
  const SHOWN_ROWS = 300;

  // -- games list ----------------------------------------------------------------------
  function fillFilters() {
    const bots = [...LIST.bots].sort();
    for (const bot of bots) $("filter-bot").add(new Option(bot, String(LIST.bots.indexOf(bot))));
    LIST.games.forEach((game, i) => $("filter-game").add(new Option(title(game), String(i))));
    for (const id of ["filter-bot", "filter-game", "filter-violations"]) $(id).addEventListener("change", drawList);
  }

  function drawList() {
    const bot = $("filter-bot").value, game = $("filter-game").value;
    const flagged = $("filter-violations").checked;
    const body = document.createElement("tbody");
    let count = 0;
    LIST.rows.forEach((row, index) => {
      const [key, round, kind, seats, ranks, scores, causes, decisions, replay, details] = row;
      if (bot !== "" && !seats.includes(Number(bot))) return;
      if (game !== "" && kind !== Number(game)) return;
      if (flagged && !causes) return;
      count += 1;
      if (count > SHOWN_ROWS) return;
      const tr = body.insertRow();
      tr.dataset.key = key;
      const players = seats.map((b, s) =>
        `<span class="${ranks[s] === 1 ? "rank1" : ""}" style="color:${SEAT[s % 6]}">${esc(LIST.bots[b])}</span> (${ranks[s]}, ${scores[s]})`).join(", ");
      // Each violation with the referee's detail beside it: why the game ended so.
      const faults = causes ? causes.map((c, s) => c ? `<span title="${esc(details[s])}">${esc(LIST.bots[seats[s]])}: ${esc(c)} <small>${esc(clip(details[s], 90))}</small></span>` : "").filter(Boolean).join("<br>") : "";
      tr.innerHTML = `<td>${index + 1}</td><td>${esc(key)}</td><td>${esc(title(LIST.games[kind]))}</td>` +
        `<td>${round}</td><td>${players}</td><td>${decisions}</td><td class="viol">${faults}</td>` +
        `<td>${replay ? '<button class="view">replay</button>' : '<span class="note" title="not embedded: goatarena replay KEY">-</span>'}</td>`;
      if (replay) { tr.classList.add("has-replay"); tr.addEventListener("click", () => openReplay(key)); }
    });
    $("games-table").replaceChild(body, $("games-table").tBodies[0]);
    $("games-count").textContent = `${count} games`;
    $("games-more").textContent = count > SHOWN_ROWS ? `showing the first ${SHOWN_ROWS}; narrow the filters to see others` : "";
  }

  // A game's title without its parenthesised original (its script may lack a font).
  function title(game) {
    return (DATA.titles[game] || game).split(" (")[0];
  }

  function clip(text, most) {
    const value = String(text);
    return value.length > most ? value.slice(0, most - 1) + "…" : value;
  }

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  // -- replays -------------------------------------------------------------------------
  const cache = new Map();
  async function unpack(key) {
    if (!cache.has(key)) {
      const bytes = Uint8Array.from(atob(PACKED[key]), (c) => c.charCodeAt(0));
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      cache.set(key, JSON.parse(await new Response(stream).text()));
    }
    return cache.get(key);
  }

  const viewer = { replay: null, step: 0, seat: null, timer: null };

  async function openReplay(key) {
    const replay = await unpack(key);
    viewer.replay = replay;
    viewer.step = 0;
    stop();
    $("viewer").hidden = false;
    $("viewer-title").textContent = `${title(replay.game)}: ${key}`;
    const seat = $("seat");
    const keep = seat.value;
    seat.length = 1;
    replay.players.forEach((name, s) => seat.add(new Option(`seat ${s} ${name}`, String(s))));
    seat.value = keep !== "" && Number(keep) < replay.players.length ? keep : "";
    viewer.seat = seat.value === "" ? null : Number(seat.value);
    $("slider").max = String(replay.steps.length);
    for (const tr of $("games-table").tBodies[0].rows) tr.classList.toggle("current", tr.dataset.key === key);
    document.body.dataset.replay = key;
    listMoves();
    show();
    $("viewer").scrollIntoView({ block: "start" });
  }

  function seatView(view, seat) {
    if (seat === null) return view;
    return { ...view, seat, hands: view.hands.map((hand, s) => (s === seat ? hand : null)) };
  }

  // A decision in words, as the chosen seat saw it (hidden parts read "a card").
  function stepWords(step) {
    const [actor, , shown, , words, shownWords] = step;
    return viewer.seat === null || viewer.seat === actor || shown === null ? words : shownWords;
  }

  // The action as the bot's protocol spells it, as the chosen seat saw it (for authors).
  function stepAction(step) {
    const [actor, action, shown] = step;
    return JSON.stringify(viewer.seat === null || viewer.seat === actor || shown === null ? action : shown);
  }

  // The note on a decision its bot did not choose, or "".
  function stepNote(n) {
    return viewer.replay.notes[String(n)] || "";
  }

  // The list of decisions beside the board, each as the chosen seat's view tells it.
  function listMoves() {
    const replay = viewer.replay;
    const items = replay.steps.map((step, n) => {
      const actor = step[0];
      const li = document.createElement("li");
      li.textContent = `${replay.players[actor]}: ${stepWords(step)}`;
      const note = stepNote(n);
      if (note) {
        // A decision no bot chose (the referee played it for a forfeited seat, or a
        // strike's random move), marked as goatarena replay marks it.
        const small = document.createElement("span");
        small.className = "played-for";
        small.textContent = ` ${note}`;
        li.append(small);
      }
      li.style.color = SEAT[actor % 6];
      li.title = stepAction(step);
      li.onclick = () => go(n);
      return li;
    });
    const end = document.createElement("li");
    end.textContent = "end";
    end.onclick = () => go(replay.steps.length);
    $("moves").replaceChildren(...items, end);
  }

  function show() {
    const replay = viewer.replay;
    const total = replay.steps.length;
    const n = viewer.step;
    const names = replay.players;
    let view, caption;
    if (n < total) {
      const actor = replay.steps[n][0];
      view = replay.steps[n][3];
      const note = stepNote(n);
      caption = `decision ${n}: seat ${actor} ${names[actor]}: ${stepWords(replay.steps[n])}${note ? ` ${note}` : ""}`;
    } else {
      view = replay.end;
      caption = "end: " + names.map((name, s) => `${name} rank ${replay.ranks[s]} (${replay.scores[s]})`).join(", ");
    }
    $("caption").textContent = caption;
    $("slider").value = String(n);
    $("step-label").textContent = `${n} / ${total}`;
    chooseLayout();
    const svg = DRAW[replay.game](seatView(view, viewer.seat), names);
    svg.dataset.step = String(n);
    svg.dataset.seat = viewer.seat === null ? "" : String(viewer.seat);
    $("board").replaceChildren(svg);
    const moves = $("moves").children;
    for (const li of moves) li.classList.remove("current");
    if (moves[n]) {
      moves[n].classList.add("current");
      const list = $("moves");
      const top = moves[n].offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 20) list.scrollTop = top - list.clientHeight / 2;
    }
  }

  function go(step) {
    viewer.step = Math.max(0, Math.min(step, viewer.replay.steps.length));
    show();
  }
  function stop() {
    if (viewer.timer) clearInterval(viewer.timer);
    viewer.timer = null;
    $("play").textContent = "play";
  }
  function play() {
    if (viewer.timer) return stop();
    if (viewer.step >= viewer.replay.steps.length) go(0);
    $("play").textContent = "pause";
    viewer.timer = setInterval(() => {
      if (viewer.step >= viewer.replay.steps.length) return stop();
      go(viewer.step + 1);
    }, 350);
  }

  function wireControls() {
    $("first").onclick = () => go(0);
    $("prev").onclick = () => go(viewer.step - 1);
    $("next").onclick = () => go(viewer.step + 1);
    $("last").onclick = () => go(viewer.replay.steps.length);
    $("play").onclick = play;
    $("slider").oninput = () => go(Number($("slider").value));
    $("seat").onchange = () => {
      viewer.seat = $("seat").value === "" ? null : Number($("seat").value);
      listMoves();
      show();
    };
    // A phone turned sideways (or a window resized) may want the other layout.
    window.addEventListener("resize", () => {
      if (viewer.replay && layout.narrow !== ($("viewer").clientWidth < NARROW_BELOW_PX)) show();
    });
    document.addEventListener("keydown", (event) => {
      if (!viewer.replay || event.target.tagName === "SELECT") return;
      if (event.key === "ArrowRight") go(viewer.step + 1);
      if (event.key === "ArrowLeft") go(viewer.step - 1);
    });
  }

  // -- SVG drawing helpers -----------------------------------------------------------------
  // A board is drawn in one of two layouts, chosen by the width the replay has: wide
  // (900 units, seats' parts side by side) or narrow (NARROW_UNITS, the same parts stacked
  // and larger text), so that a phone shows it at nearly its own size instead of
  // shrinking a wide board to unreadable text.
  const NARROW_BELOW_PX = 640;
  const NARROW_UNITS = 390;
  let layout = { narrow: false, font: 12 };
  function chooseLayout() {
    const narrow = $("viewer").clientWidth < NARROW_BELOW_PX;
    layout = { narrow, font: narrow ? 13 : 12 };
  }
  function el(tag, attrs = {}, ...children) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    for (const child of children) if (child) node.append(child);
    return node;
  }
  function text(x, y, content, attrs = {}) {
    const node = el("text", { x, y, "font-size": layout.font, ...attrs });
    node.textContent = content;
    return node;
  }
  // The lines of a board's title: one where the layout is wide; where it is narrow, the
  // first part, then the rest on as many lines as it needs.
  const NARROW_LINE_CHARS = 44;
  function headingLines(first, rest) {
    if (!layout.narrow) return [[first, ...rest].join(" · ")];
    const lines = [first];
    let line = "";
    for (const part of rest) {
      if (line && line.length + 3 + part.length > NARROW_LINE_CHARS) {
        lines.push(line);
        line = part;
      } else line = line ? `${line} · ${part}` : part;
    }
    if (line) lines.push(line);
    return lines;
  }
  // Draws the title's lines; the baseline of the last.
  function drawHeading(svg, lines) {
    lines.forEach((line, i) => svg.append(text(12, 20 + i * 20, line, { "font-weight": 600, ...(i === 0 ? { "font-size": layout.font + 2 } : {}) })));
    return 20 * lines.length;
  }
  function svgRoot(width, height) {
    const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: `board ${layout.narrow ? "narrow" : "wide"}` });
    const pattern = el("pattern", { id: "back", width: 6, height: 6, patternUnits: "userSpaceOnUse" },
      el("rect", { width: 6, height: 6, fill: "#5b6b8c" }), el("path", { d: "M0 6L6 0", stroke: "#8fa0c4", "stroke-width": 1.5 }));
    svg.append(el("defs", {}, pattern));
    return svg;
  }
  // A card face up (label on a coloured face) or face down (patterned back).
  function card(x, y, label, { fill = "#fff", color = "#222", w = 44, h = 26, cls = "" } = {}) {
    const g = el("g", { class: `card ${label === null ? "facedown" : "faceup"} ${cls}`, transform: `translate(${x},${y})` });
    g.append(el("rect", { width: w, height: h, rx: 4, fill: label === null ? "url(#back)" : fill }));
    if (label !== null) g.append(text(w / 2, h / 2 + 4, label, { "text-anchor": "middle", fill: color, "font-size": (w < 40 ? 10 : 11) + (layout.narrow ? 1 : 0), "font-weight": 600 }));
    return g;
  }
  // A seat's hand: its cards face up, or as many backs as it holds.
  function hand(seat, cards, size, x, y, opts = {}, step = 48) {
    const g = el("g", { class: "hand", "data-seat": seat, "data-hidden": cards === null ? "1" : "0" });
    const list = cards === null ? Array(size).fill(null) : cards;
    list.forEach((c, i) => {
      const face = c === null ? null : opts.label ? opts.label(c) : c;
      const style = opts.style ? opts.style(c) : {};
      g.append(card(x + i * step, y, face, style));
    });
    return g;
  }
  function seatLabel(seat, names, view, x, y) {
    const you = view.seat === seat ? " (you)" : "";
    const acting = view.to_act === seat ? " ◀" : "";
    return text(x, y, `seat ${seat} ${names[seat]}${you}${acting}`, { fill: SEAT[seat % 6], "font-weight": 700, "font-size": layout.font + 1 });
  }
  function seatPanel(svg, view, seat, y, width, height) {
    svg.append(el("rect", { x: 4, y: y - 4, width: width - 8, height: height - 6, rx: 6, fill: view.to_act === seat ? "#f1f7e9" : "#fff", stroke: "#e2ded2" }));
  }
  function status(view) {
    return view.to_act === null || view.to_act === undefined ? "game over" : `seat ${view.to_act} to act`;
  }

  // -- Mountain Goats ----------------------------------------------------------------------
  function drawMountainGoats(view, names) {
    const players = view.steps.length, narrow = layout.narrow;
    const titled = headingLines(`Mountain Goats · round ${view.round}`, [status(view), `bonus left ${view.bonus_left.join(" ") || "-"}`, ...(view.ending ? ["last round"] : [])]);
    const head = 20 * titled.length;
    const colW = narrow ? 62 : 96, cellH = 40, base = narrow ? head + 230 : 250;
    const width = narrow ? NARROW_UNITS : 780, seatH = narrow ? 40 : 22;
    const height = base + 74 + players * seatH;
    const svg = svgRoot(width, height);
    drawHeading(svg, titled);
    const diceX = narrow ? 12 : width - 150, diceY = narrow ? head + 10 : 30;
    view.dice.forEach((d, i) => {
      svg.append(el("rect", { x: diceX + i * 34, y: diceY, width: 26, height: 26, rx: 5, fill: "#fff", stroke: "#333", class: "die" }));
      svg.append(text(diceX + 13 + i * 34, diceY + 18, String(d), { "text-anchor": "middle", "font-weight": 700, "font-size": 15 }));
    });
    view.mountains.forEach((mountain, m) => {
      const x = (narrow ? 14 : 40) + m * colW, h = view.heights[m];
      for (let step = 1; step <= h; step++) {
        const y = base - step * cellH;
        const summit = step === h;
        svg.append(el("rect", { x, y, width: colW - 10, height: cellH - 4, rx: summit ? 12 : 3, fill: summit ? "#d9cfb8" : "#ebe6d8", stroke: "#b4a98c", class: summit ? "summit" : "step" }));
      }
      svg.append(el("rect", { x, y: base, width: colW - 10, height: cellH - 8, rx: 3, fill: "#cde3c0", stroke: "#9bb88c" }));
      svg.append(text(x + (colW - 10) / 2, base + 50, `${mountain}`, { "text-anchor": "middle", "font-size": 16, "font-weight": 700 }));
      svg.append(text(x + (colW - 10) / 2, base - h * cellH - 8, narrow ? `${view.supply[m]} left` : `${view.supply[m]} tokens`, { "text-anchor": "middle", fill: "#555" }));
      for (let seat = 0; seat < players; seat++) {
        const step = view.steps[seat][m];
        const y = step === 0 ? base + 12 : base - step * cellH + 18;
        // Narrow columns hold the goats two by two; wide ones in a row.
        const [dx, dy] = narrow ? [12 + (seat % 2) * 18, players > 2 ? Math.floor(seat / 2) * 14 - 7 : 0] : [12 + seat * 20, 0];
        svg.append(el("circle", { cx: x + dx, cy: y + dy, r: narrow ? 7 : 8, fill: SEAT[seat % 6], class: "goat", "data-seat": seat }));
      }
    });
    for (let seat = 0; seat < players; seat++) {
      const y = base + 78 + seat * seatH;
      svg.append(seatLabel(seat, names, view, 12, y));
      const tokens = view.mountains.map((m, i) => (view.tokens[seat][i] ? `${view.tokens[seat][i]}×${m}` : "")).filter(Boolean).join(" ");
      const bonus = view.bonuses[seat].map((b) => `+${b}`).join(" ");
      const [sx, sy] = narrow ? [24, y + 17] : [240, y];
      svg.append(text(sx, sy, `score ${view.scores[seat]} · tokens ${tokens || "-"} ${bonus}`));
    }
    return svg;
  }

  // -- Goat Lords ----------------------------------------------------------------------------
  const WILD = { goatini: "#f5d76e", lord: "#f0b429" };
  function lordsCard(c) { return { fill: WILD[c] || "#f3efe4", w: layout.narrow ? 54 : 62 }; }
  function drawGoatLords(view, names) {
    const players = view.herds.length, narrow = layout.narrow;
    const perRow = narrow ? 4 : 6, width = narrow ? NARROW_UNITS : 900;
    const lines = Math.max(1, ...view.herds.map((herd) => Math.ceil(herd.length / perRow)));
    // Wide: hand and herd side by side; narrow: the herd under the hand.
    const herdX = narrow ? 12 : 400, herdY = narrow ? 90 : 20;
    const rowH = narrow ? Math.max(100, herdY + 10 + lines * 24) : Math.max(78, 30 + lines * 24);
    const duelLines = view.duel ? (narrow ? 2 : 0) : 0;
    const titled = headingLines(`Goat Lords · round ${view.round}`, [status(view), `draw ${view.draw_size}`, `discard ${view.discard_size}`, ...(view.recycled ? ["recycled"] : [])]);
    const first = (narrow ? 20 * titled.length + 46 : 66) + duelLines * 18;
    const height = first + players * rowH;
    const svg = svgRoot(width, height);
    const head = drawHeading(svg, titled);
    svg.append(text(12, head + 24, "discard top"));
    svg.append(card(narrow ? 100 : 84, head + 8, view.discard_top || "-", lordsCard(view.discard_top)));
    if (view.duel) {
      const d = view.duel;
      const said = [`duel: seat ${d.attacker} attacks seat ${d.defender} (${d.kind || "wilds"})`, `played ${d.played.join(" ")}; seat ${d.to_answer} to answer`];
      const style = { fill: "#b00020", "font-weight": 600 };
      if (narrow) said.forEach((line, i) => svg.append(text(12, head + 54 + i * 18, line, style)));
      else svg.append(text(170, 44, said.join(", "), style));
    }
    for (let seat = 0; seat < players; seat++) {
      const y = first + seat * rowH;
      seatPanel(svg, view, seat, y, width, rowH);
      svg.append(seatLabel(seat, names, view, 12, y + 14));
      svg.append(text(12, y + 32, `total ${view.totals[seat]} · herd ${view.herd_values[seat]}`));
      svg.append(text(12, y + (narrow ? 58 : 52), "hand", { fill: "#666" }));
      svg.append(hand(seat, view.hands[seat], view.hand_sizes[seat], 50, y + (narrow ? 40 : 36), { style: lordsCard, label: (c) => c }, narrow ? 56 : 64));
      svg.append(text(herdX, y + herdY - 6, "herd", { fill: "#666" }));
      view.herds[seat].forEach((pile, i) => {
        // The pile's kind and count, then how many wilds: "ninja×3 +2★" (all cards on hover).
        const wilds = pile.cards.filter((c) => c in WILD).length;
        const kinds = pile.cards.length - wilds;
        const label = pile.kind ? `${pile.kind}${kinds > 1 ? "×" + kinds : ""}${wilds ? " +" + wilds + "★" : ""}` : pile.cards.join(" ");
        const x = herdX + (i % perRow) * 82, yy = y + herdY + Math.floor(i / perRow) * 24;
        const g = el("g", { class: "pile" });
        g.append(el("rect", { x, y: yy, width: 78, height: 20, rx: 3, fill: pile.kind ? "#e8efe0" : WILD.goatini, stroke: "#889" }));
        g.append(text(x + 39, yy + 14, label.length > 14 ? label.slice(0, 13) + "…" : label, { "text-anchor": "middle", "font-size": 10.5 }));
        g.append(el("title", {}, document.createTextNode(pile.cards.join(" "))));
        svg.append(g);
      });
    }
    return svg;
  }

  // -- Goat 'n' Goat -------------------------------------------------------------------------
  const GNG = { g: "#3c9a4a", b: "#2f6fb5", r: "#c8393b" };
  const GNG_NAMES = { green: "g", blue: "b", red: "r" };
  function gngCard(c) { return { fill: (c && GNG[c[0]]) || "#999", color: "#fff", w: 34 }; }
  function drawGoatNGoat(view, names) {
    const players = view.hand_sizes.length, narrow = layout.narrow;
    const colours = Object.keys(view.mountains).length;
    // Narrow: what was played, each colour's mountains and each seat's hand on lines of their own.
    const phase = view.to_act === null ? "" : ` (${view.phase}${view.phase === "take" ? " " + view.take_count : ""})`;
    const titled = headingLines("Goat 'n' Goat", [`${status(view)}${phase}`, `draw ${view.draw_size}`, `discard ${view.discard.length}`, `run-outs ${view.run_outs}/${view.final_run_out}`, ...(view.ending ? ["last turn"] : [])]);
    const mountainsY = narrow ? 20 * titled.length + 86 : 86, panelsY = narrow ? mountainsY + 18 + colours * 32 : 118;
    const rowH = narrow ? 118 : 74, width = narrow ? NARROW_UNITS : 900;
    const height = panelsY + 12 + players * rowH;
    const svg = svgRoot(width, height);
    const head = drawHeading(svg, titled);
    svg.append(text(12, head + 28, "row", { fill: "#666" }));
    view.row.forEach((c, i) => svg.append(card(48 + i * 40, head + 12, c, gngCard(c))));
    if (view.played.length) svg.append(text(narrow ? 12 : 320, narrow ? head + 58 : 48, `played ${view.played.join(" ")}`));
    svg.append(text(12, mountainsY, "mountains", { fill: "#666" }));
    Object.entries(view.mountains).forEach(([colour, values], ci) => {
      const [x0, y0] = narrow ? [20, mountainsY + 38 + ci * 32] : [90 + ci * 270, 100];
      const [side, gap, size] = narrow ? [28, 34, 12] : [24, 30, 10];
      values.forEach((v, i) => {
        svg.append(el("path", { d: `M${x0 + i * gap} ${y0} l${side / 2} -${side} l${side / 2} ${side} z`, fill: GNG[GNG_NAMES[colour]], opacity: 0.8 }));
        svg.append(text(x0 + side / 2 + i * gap, y0 - 3, String(v), { "text-anchor": "middle", fill: "#fff", "font-size": size, "font-weight": 700 }));
      });
    });
    for (let seat = 0; seat < players; seat++) {
      const y = panelsY + seat * rowH;
      seatPanel(svg, view, seat, y, width, rowH);
      svg.append(seatLabel(seat, names, view, 12, y + 14));
      const held = Object.entries(view.mountains_held[seat]).flatMap(([c, vs]) => vs.map((v) => `${GNG_NAMES[c]}${v}`)).join(" ");
      svg.append(text(12, y + 32, `score ${view.scores[seat]} · penalty ${view.penalty_sizes[seat]} · mountains ${held || "-"}`));
      svg.append(text(12, y + 52, "flocks", { fill: "#666" }));
      Object.entries(view.flocks[seat]).forEach(([colour, flock], ci) => {
        svg.append(text(56 + ci * 90, y + 52, flock.join("") || "–", { fill: GNG[GNG_NAMES[colour]], "font-weight": 700, "font-size": 14 }));
      });
      const [hx, hy] = narrow ? [12, y + 62] : [330, y + 22];
      if (!narrow) svg.append(text(330, y + 14, "hand", { fill: "#666" }));
      svg.append(hand(seat, view.hands[seat], view.hand_sizes[seat], hx, hy, { style: gngCard }, 38));
      if (view.hands[seat] === null && view.known_in_hands[seat].length) {
        const known = `known ${view.known_in_hands[seat].join(" ")}`;
        if (narrow) svg.append(text(12, y + 106, known, { fill: "#666" }));
        else svg.append(text(330 + view.hand_sizes[seat] * 38 + 8, y + 40, known, { fill: "#666" }));
      }
    }
    return svg;
  }

  // -- Herr der Ziegen ------------------------------------------------------------------------
  const HDZ_SHORT = { dog: "dog", milk1: "milk", milk2: "milk²" };
  function hdzCard(c) { return { fill: c === "dog" ? "#e8d9c4" : c && c.startsWith("milk") ? "#e3f1fb" : "#f3efe4", w: 36 }; }
  function drawHerrDerZiegen(view, names) {
    const narrow = layout.narrow, n = view.size, cell = narrow ? 44 : 54, gx = narrow ? 38 : 60;
    const phase = view.to_act === null ? (view.end_reason ? ` (${view.end_reason})` : "") : ` (${view.phase}${view.played ? " after " + view.played : ""})`;
    const titled = headingLines(`Herr der Ziegen · turn ${view.turn}`, [`${status(view)}${phase}`, `draw ${view.draw_size}`]);
    const gy = narrow ? 20 * titled.length + 44 : 64, players = view.displays.length;
    const perRow = narrow ? 8 : Infinity;
    const displayLines = Math.max(1, ...view.displays.map((shown) => Math.ceil(shown.length / perRow)));
    const gridW = n * cell, width = narrow ? Math.max(gx + gridW + 38, NARROW_UNITS) : Math.max(gx + gridW + 60, 900);
    // Narrow: a seat's display under its hand, not beside it.
    const panelY = gy + gridW + 50, rowH = narrow ? 82 + 30 * displayLines : 64, height = panelY + players * rowH;
    const svg = svgRoot(width, height);
    const head = drawHeading(svg, titled);
    const owners = Object.entries(view.owners).map(([t, s]) => `${t}:${s}`).join(" ");
    if (owners) svg.append(text(12, head + 18, `owners ${owners}`, { fill: "#555" }));
    const stalls = new Map(view.stalls.map(([r, c], s) => [`${r},${c}`, s]));
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const x = gx + c * cell, y = gy + r * cell, k = `${r},${c}`;
        if (stalls.has(k)) {
          const s = stalls.get(k);
          svg.append(el("rect", { x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, rx: 6, fill: SEAT[s % 6], class: "stall" }));
          svg.append(text(x + cell / 2, y + cell / 2 + 4, `S${s}`, { "text-anchor": "middle", fill: "#fff", "font-weight": 700 }));
          continue;
        }
        const c2 = view.pasture[r][c], mark = view.marks[r][c];
        if (c2 === null) { svg.append(el("rect", { x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, rx: 4, fill: "#eee9dc" })); continue; }
        const style = hdzCard(c2);
        svg.append(el("rect", { x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, rx: 4, fill: style.fill, stroke: mark === null ? "#999" : SEAT[mark % 6], "stroke-width": mark === null ? 1 : 3 }));
        svg.append(text(x + cell / 2, y + cell / 2 + 4, HDZ_SHORT[c2] || c2, { "text-anchor": "middle", "font-weight": 600 }));
        if (mark !== null) svg.append(el("circle", { cx: x + cell - 10, cy: y + 10, r: 5, fill: SEAT[mark % 6] }));
      }
    }
    // Big goats on the track round the pasture: top, right, bottom, left, clockwise.
    const spot = (p) => {
      const side = Math.floor(p / n), o = p % n;
      if (side === 0) return [gx + o * cell + cell / 2, gy - 14];
      if (side === 1) return [gx + gridW + 14, gy + o * cell + cell / 2];
      if (side === 2) return [gx + (n - 1 - o) * cell + cell / 2, gy + gridW + 14];
      return [gx - 14, gy + (n - 1 - o) * cell + cell / 2];
    };
    const atSpot = {};
    view.goats.forEach((p, s) => {
      const [x, y] = spot(p);
      const k = atSpot[p] = (atSpot[p] || 0) + 1;
      svg.append(el("circle", { cx: x + (k - 1) * 7, cy: y + (k - 1) * 3, r: 9, fill: SEAT[s % 6], stroke: "#fff", "stroke-width": 2, class: "goat", "data-seat": s }));
      svg.append(text(x + (k - 1) * 7, y + (k - 1) * 3 + 4, String(s), { "text-anchor": "middle", fill: "#fff", "font-size": 10, "font-weight": 700 }));
    });
    for (let seat = 0; seat < players; seat++) {
      const y = panelY + seat * rowH;
      seatPanel(svg, view, seat, y, width, rowH);
      svg.append(seatLabel(seat, names, view, 12, y + 14));
      svg.append(text(12, y + 34, `score ${view.scores[seat]} · markers ${view.markers[seat]}`));
      const [handX, handY, shownX, shownY] = narrow ? [64, 44, 64, 76] : [230, 0, 340, 0];
      svg.append(text(narrow ? 12 : handX, y + handY + 14, "hand", { fill: "#666" }));
      svg.append(hand(seat, view.hands[seat], view.hand_sizes[seat], handX, y + handY + (narrow ? 0 : 20), { style: hdzCard, label: (c) => HDZ_SHORT[c] || c }, 40));
      if (view.hands[seat] === null && view.known_hands[seat].length) svg.append(text(narrow ? 150 : 230, y + (narrow ? 62 : 58), `known ${view.known_hands[seat].join(" ")}`, { fill: "#666", "font-size": 10 }));
      svg.append(text(narrow ? 12 : shownX, y + shownY + 14, "display", { fill: "#666" }));
      view.displays[seat].forEach((c, i) => {
        const [column, line] = narrow ? [i % perRow, Math.floor(i / perRow)] : [i, 0];
        svg.append(card(shownX + column * 40, y + shownY + (narrow ? 0 : 20) + line * 30, HDZ_SHORT[c] || c, hdzCard(c)));
      });
    }
    return svg;
  }

  const DRAW = {
    "mountain-goats": drawMountainGoats,
    "goat-lords": drawGoatLords,
    "goat-n-goat": drawGoatNGoat,
    "herr-der-ziegen": drawHerrDerZiegen,
  };

  // Pointing at a legend entry brings that bot's line forward.
  function wireHistory() {
    for (const chart of document.querySelectorAll("#history .chart")) {
      const svg = chart.querySelector("svg.history");
      for (const entry of chart.querySelectorAll(".legend li")) {
        const series = [...svg.querySelectorAll(".series")].filter((g) => g.dataset.bot === entry.dataset.bot);
        entry.addEventListener("mouseenter", () => { svg.classList.add("focus"); series.forEach((g) => g.classList.add("on")); });
        entry.addEventListener("mouseleave", () => { svg.classList.remove("focus"); series.forEach((g) => g.classList.remove("on")); });
      }
    }
  }

  // A large field's head-to-head table comes as numbers (DATA.heat): drawn into its
  // empty table, with the cells a small field's table is written with, once shown.
  function tag(name, content) {
    const node = document.createElement(name);
    node.textContent = content;
    return node;
  }

  function drawHeat(table) {
    const found = DATA.heat[table.dataset.heat];
    if (!found || table.rows.length) return;
    const { bots, points2, games } = found;
    const n = bots.length;
    const head = table.insertRow();
    head.appendChild(document.createElement("th"));
    for (const bot of bots) {
      const th = document.createElement("th");
      th.appendChild(tag("span", bot));
      head.appendChild(th);
    }
    bots.forEach((a, i) => {
      const row = table.insertRow();
      row.appendChild(tag("th", a));
      for (let j = 0; j < n; j++) {
        const played = games[i * n + j];
        const td = row.insertCell();
        if (!played) { td.className = "none"; continue; }
        const points = points2[i * n + j] / 2, share = points / played;
        td.style.background = `hsl(${share >= 0.5 ? 120 : 0},65%,${Math.floor(100 - Math.abs(share - 0.5) * 2 * 45 + 0.5)}%)`;
        td.title = `${a} vs ${bots[j]}: ${points} of ${played}`;
        td.append(`${Math.floor(share * 100 + 0.5)}%`, tag("small", String(played)));
      }
    });
  }

  function drawShownHeat() {
    for (const table of document.querySelectorAll("table.heat[data-heat]")) {
      if (!table.closest("[hidden]")) drawHeat(table);
    }
  }

  // A select.switch shows the one of its parts (overall, or one game's) it names.
  function wireSwitches() {
    for (const choice of document.querySelectorAll("select.switch")) {
      choice.addEventListener("change", () => {
        for (const part of document.querySelectorAll(`[data-switch="${choice.id}"]`)) part.hidden = part.dataset.table !== choice.value;
        drawShownHeat();
      });
    }
  }

  // A listed violation opens its game's replay, when the report embeds it.
  function wireViolations() {
    for (const row of document.querySelectorAll("table.violation-list tr.has-replay")) {
      row.addEventListener("click", () => openReplay(row.dataset.key));
    }
  }

  fillFilters();
  drawList();
  wireHistory();
  wireSwitches();
  drawShownHeat();
  wireViolations();
  wireControls();
  window.goatarenaReport = { openReplay, go, steps: () => (viewer.replay ? viewer.replay.steps.length : 0) };
})();
