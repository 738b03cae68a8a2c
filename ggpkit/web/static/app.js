// ggpkit front end: plain ES modules over the JSON API (see /docs). No build step.
// Pages: #/ (new game), #/play/ID, #/matches, #/replay/ID, #/gdl.

const view = document.getElementById("view");
const toastBox = document.getElementById("toast");
const SVG = "http://www.w3.org/2000/svg";

// ---- small helpers -----------------------------------------------------------------

// A session can be changed only with the token its creation returned; this browser keeps
// the tokens of the sessions it started and sends them with every request on them.
const TOKEN_KEY = (id) => `ggpkit-token:${id}`;

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  const own = path.match(/^\/api\/sessions\/([^/]+)\//);
  const token = own && localStorage.getItem(TOKEN_KEY(decodeURIComponent(own[1])));
  if (token) headers["X-Session-Token"] = token;
  const init = { headers, ...options };
  if (init.body && typeof init.body !== "string") init.body = JSON.stringify(init.body);
  const response = await fetch(path, init);
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (response.ok && data && data.token && path === "/api/sessions") {
    localStorage.setItem(TOKEN_KEY(data.id), data.token);
  }
  if (!response.ok) {
    const message = (data && (data.error || data.detail)) || response.statusText;
    const error = new Error(typeof message === "string" ? message : JSON.stringify(message));
    error.data = data;
    error.status = response.status;
    throw error;
  }
  return data;
}

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

let toastTimer = null;
function toast(message) {
  toastBox.textContent = message;
  toastBox.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toastBox.hidden = true), 4000);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the board -----------------------------------------------------------------------

const CELL = 60;

// Draw a board view {cols, rows, cells, styles} as SVG. `marks` maps "col,row" to a CSS
// class (selected, target, last); `onCell(col, row)` is called on click or Enter.
function drawBoard(board, { marks = {}, onCell = null, animate = null, label = "board" } = {}) {
  const width = board.cols.length * CELL;
  const height = board.rows.length * CELL;
  const svg = s("svg", {
    viewBox: `-24 -4 ${width + 28} ${height + 28}`,
    class: "board",
    role: "group",
    "aria-label": label,
  });
  const occupied = new Map(board.cells.map((c) => [`${c.col},${c.row}`, c.content]));
  board.cols.forEach((col, i) => {
    const t = s("text", { x: i * CELL + CELL / 2, y: height + 18, class: "coord" });
    t.textContent = col;
    svg.append(t);
  });
  board.rows.forEach((row, j) => {
    const t = s("text", { x: -12, y: j * CELL + CELL / 2 + 5, class: "coord" });
    t.textContent = row;
    svg.append(t);
  });
  board.rows.forEach((row, j) => {
    board.cols.forEach((col, i) => {
      const key = `${col},${row}`;
      if (!occupied.has(key)) return;
      const content = occupied.get(key);
      const style = content ? board.styles[content] : null;
      const g = s("g", {
        class: `cell ${(i + j) % 2 ? "dark" : "light"} ${marks[key] || ""}`,
        transform: `translate(${i * CELL},${j * CELL})`,
        tabindex: onCell ? "0" : "-1",
        role: onCell ? "button" : "img",
        "aria-label": `${col} ${row}: ${content || "empty"}`,
        "data-cell": key,
      });
      g.append(s("rect", { width: CELL, height: CELL, class: "square" }));
      if (style && style.color === "hole") {
        g.append(s("rect", { x: 6, y: 6, width: CELL - 12, height: CELL - 12, class: "hole" }));
      } else if (style) {
        const piece = s("g", { class: "piece" });
        piece.append(s("circle", { cx: CELL / 2, cy: CELL / 2, r: CELL * 0.36, fill: style.color }));
        if (style.label) {
          const t = s("text", { x: CELL / 2, y: CELL / 2 + 6, class: "piece-label" });
          t.textContent = style.label;
          piece.append(t);
        }
        g.append(piece);
        if (animate && animate.to === key && animate.from) {
          const [fc, fr] = animate.from.split(",");
          const dx = (board.cols.indexOf(fc) - i) * CELL;
          const dy = (board.rows.indexOf(fr) - j) * CELL;
          piece.style.transform = `translate(${dx}px, ${dy}px)`;
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              piece.style.transition = "transform 350ms ease-out";
              piece.style.transform = "translate(0px, 0px)";
            }),
          );
        }
      } else {
        g.append(s("circle", { cx: CELL / 2, cy: CELL / 2, r: 5, class: "empty-dot" }));
      }
      if (onCell) {
        g.addEventListener("click", () => onCell(col, row));
        g.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            onCell(col, row);
          }
        });
      }
      svg.append(g);
    });
  });
  return svg;
}

// ---- page: new game ------------------------------------------------------------------

async function pageHome() {
  const [games, agents] = await Promise.all([api("/api/games"), api("/api/agents")]);
  const seats = h("div", { class: "seats" });
  const gameSelect = h(
    "select",
    { id: "game", "aria-label": "Game" },
    games.map((g) => h("option", { value: g.name }, g.name)),
  );
  const desc = h("p", { class: "muted" });
  const time = h("input", { id: "agent-time", type: "number", min: "0.1", max: "60", step: "0.1", value: "1" });
  function refreshSeats() {
    const game = games.find((g) => g.name === gameSelect.value);
    desc.textContent = game.description;
    seats.replaceChildren(
      ...game.roles.map((role, i) =>
        h(
          "label",
          { class: "seat" },
          h("span", {}, role),
          h(
            "select",
            { "data-role": role, "aria-label": `Who plays ${role}` },
            agents.map((a) =>
              h("option", { value: a, selected: (i === 0 ? a === "human" : a === "mcts") || null }, a),
            ),
          ),
        ),
      ),
    );
  }
  gameSelect.addEventListener("change", refreshSeats);
  refreshSeats();
  const start = h("button", { class: "primary", id: "start" }, "Start game");
  start.addEventListener("click", async () => {
    const seatMap = {};
    seats.querySelectorAll("select").forEach((sel) => (seatMap[sel.dataset.role] = sel.value));
    try {
      const session = await api("/api/sessions", {
        method: "POST",
        body: { game: gameSelect.value, seats: seatMap, agent_time: parseFloat(time.value) || 1 },
      });
      location.hash = `#/play/${session.id}`;
    } catch (e) {
      toast(e.message);
    }
  });
  view.replaceChildren(
    h(
      "section",
      { class: "card" },
      h("h1", {}, "Play a game"),
      h("label", { class: "field" }, "Game ", gameSelect),
      desc,
      h("h2", {}, "Who plays which side"),
      seats,
      h("label", { class: "field" }, "Agent time per move (s) ", time),
      start,
      h(
        "p",
        { class: "muted" },
        "Choose human for every side to play with two people at one screen, or an agent for every side to watch.",
      ),
    ),
  );
}

// ---- page: play or watch a session -----------------------------------------------------

async function pagePlay(id) {
  let session = await api(`/api/sessions/${id}`);
  let selected = null;
  let hinted = []; // cells of the hinted move, highlighted until the next move
  let running = true; // watch mode: agents play on by themselves
  let speed = 600;
  let busy = false;
  let lastAnimated = -1;
  let historyIndex = null; // when browsing history in watch mode: index into states
  let history = null;
  const status = h("p", { class: "status", id: "status", role: "status" });
  const boardBox = h("div", { class: "board-box", id: "board" });
  const moveList = h("div", { class: "legal", id: "legal" });
  const log = h("ol", { class: "movelog", id: "movelog" });
  const controls = h("div", { class: "controls" });
  const hintBox = h("p", { class: "hint", id: "hint" });

  const watch = Object.values(session.seats).every((v) => v !== "human");

  function humanRole() {
    return session.humans_to_move[0] || null;
  }

  function movesFrom(cellKey) {
    const role = humanRole();
    if (!role) return [];
    return session.legal[role].filter((m) => m.cells.length >= 1 && m.cells[0].join(",") === cellKey);
  }

  async function send(move) {
    const role = humanRole();
    selected = null;
    hinted = [];
    try {
      session = await api(`/api/sessions/${id}/move`, {
        method: "POST",
        body: { role, move, version: session.version },
      });
      hintBox.textContent = "";
    } catch (e) {
      toast(e.message);
      if (e.status === 409) session = await api(`/api/sessions/${id}`);
    }
    render();
    pump();
  }

  function onCell(col, row) {
    const key = `${col},${row}`;
    const role = humanRole();
    if (!role || session.finished) {
      toast(session.finished ? "The game is over." : "Wait: it is not your turn.");
      return;
    }
    const legal = session.legal[role];
    if (selected) {
      const move = legal.find(
        (m) => m.cells.length >= 2 && m.cells[0].join(",") === selected && m.cells[m.cells.length - 1].join(",") === key,
      );
      if (move) return send(move.move);
      if (key === selected) {
        selected = null;
        return render();
      }
    }
    const single = legal.find((m) => m.cells.length === 1 && m.cells[0].join(",") === key);
    if (single) return send(single.move);
    if (movesFrom(key).length) {
      selected = key;
      return render();
    }
    selected = null;
    render();
    toast(`No legal move for ${role} starts at ${col} ${row}.`);
  }

  function marks() {
    const m = {};
    if (session.last_move_cells.length) session.last_move_cells.forEach((c) => (m[c.join(",")] = "last"));
    hinted.forEach((key) => (m[key] = "hinted"));
    if (selected) {
      m[selected] = "selected";
      movesFrom(selected).forEach((mv) => (m[mv.cells[mv.cells.length - 1].join(",")] = "target"));
    }
    return m;
  }

  function winnerText() {
    const g = session.goals;
    const best = Math.max(...Object.values(g));
    const winners = Object.keys(g).filter((r) => g[r] === best);
    const scores = Object.entries(g).map(([r, v]) => `${r} ${v}`).join(", ");
    if (session.roles.length === 1) return `Game over. Score: ${scores}.`;
    return winners.length === 1 ? `Game over: ${winners[0]} wins (${scores}).` : `Game over: a draw (${scores}).`;
  }

  function render() {
    const role = humanRole();
    if (historyIndex !== null && history) {
      status.textContent = `Step ${historyIndex} of ${history.boards.length - 1} (history)`;
      boardBox.replaceChildren(history.boards[historyIndex] ? drawBoard(history.boards[historyIndex]) : h("p", {}, history.states[historyIndex]));
    } else {
      status.textContent = session.finished
        ? winnerText()
        : role
          ? `Your move, ${role}.` + (selected ? " Now click where it goes." : "")
          : `${session.to_move.join(", ")} to move (thinking)…`;
      const animate =
        session.last_move_cells.length >= 2 && lastAnimated !== session.version
          ? { from: session.last_move_cells[0].join(","), to: session.last_move_cells[session.last_move_cells.length - 1].join(",") }
          : null;
      lastAnimated = session.version;
      boardBox.replaceChildren(
        session.board
          ? drawBoard(session.board, { marks: marks(), onCell, animate, label: `${session.game} board` })
          : h("pre", { class: "facts" }, session.facts.join("\n")),
      );
    }
    moveList.replaceChildren(
      ...(role && historyIndex === null
        ? [
            h("h3", {}, `Legal moves of ${role}`),
            h(
              "div",
              { class: "move-buttons" },
              session.legal[role].map((m) => h("button", { class: "move", onclick: () => send(m.move) }, m.move)),
            ),
          ]
        : []),
    );
    log.replaceChildren(
      ...session.moves.map((joint) => h("li", {}, joint.filter((m) => m !== "noop").join(" ") || joint.join(" "))),
    );
    renderControls();
  }

  function renderControls() {
    const buttons = [];
    if (!watch) {
      buttons.push(h("button", { id: "undo", disabled: !session.can_undo || null, onclick: () => act("undo") }, "Undo"));
      buttons.push(h("button", { id: "redo", disabled: !session.can_redo || null, onclick: () => act("redo") }, "Redo"));
      if (session.hint && !session.finished) buttons.push(h("button", { id: "hint-btn", onclick: showHint }, "Hint"));
    } else {
      buttons.push(
        h("button", { id: "playpause", onclick: () => { running = !running; historyIndex = null; render(); pump(); } }, running ? "Pause" : "Play"),
        h("button", { id: "back", onclick: () => browse(-1), "aria-label": "Step back" }, "◀ Back"),
        h("button", { id: "forward", onclick: () => browse(1), "aria-label": "Step forward" }, "Forward ▶"),
        h(
          "label",
          { class: "field" },
          "Speed ",
          h(
            "select",
            { "aria-label": "Speed", onchange: (e) => (speed = parseInt(e.target.value, 10)) },
            [["1500", "slow"], ["600", "normal"], ["150", "fast"]].map(([v, t]) => h("option", { value: v, selected: String(speed) === v || null }, t)),
          ),
        ),
      );
    }
    buttons.push(h("a", { class: "button", href: `/api/matches/${id}/json`, download: "" }, "Download JSON"));
    controls.replaceChildren(...buttons);
  }

  async function browse(delta) {
    running = false;
    history = await api(`/api/matches/${id}`);
    const last = history.boards.length - 1;
    historyIndex = Math.max(0, Math.min(last, (historyIndex === null ? last : historyIndex) + delta));
    render();
  }

  async function act(what) {
    try {
      session = await api(`/api/sessions/${id}/${what}`, { method: "POST" });
      selected = null;
    } catch (e) {
      toast(e.message);
    }
    render();
    pump();
  }

  async function showHint() {
    hintBox.textContent = "Thinking…";
    try {
      const hint = await api(`/api/sessions/${id}/hint`);
      hintBox.textContent = hint.move
        ? `Best move: ${hint.move}. Best reachable score: ${hint.score}.`
        : `No move left. Score: ${hint.score}.`;
      hintBox.dataset.move = hint.move || "";
      const best = session.legal[humanRole()]?.find((m) => m.move === hint.move);
      hinted = best ? best.cells.map((c) => c.join(",")) : [];
      render();
    } catch (e) {
      hintBox.textContent = "";
      toast(e.message);
    }
  }

  // Agents move by themselves while the page is open (and in watch mode, while running).
  async function pump() {
    if (busy) return;
    busy = true;
    try {
      while (!session.finished && session.humans_to_move.length === 0 && session.to_move.length && (!watch || running)) {
        await sleep(watch ? speed : 250);
        if (watch && !running) break;
        session = await api(`/api/sessions/${id}/agent`, { method: "POST" });
        render();
      }
    } catch (e) {
      toast(e.message);
    } finally {
      busy = false;
    }
  }

  view.replaceChildren(
    h(
      "section",
      { class: "play" },
      h("div", { class: "board-col" }, h("h1", {}, session.game), status, boardBox, controls, hintBox),
      h("aside", { class: "side" }, moveList, h("h3", {}, "Moves"), log,
        h("p", { class: "muted" }, "Seats: ", Object.entries(session.seats).map(([r, a]) => `${r}: ${a}`).join(", "))),
    ),
  );
  render();
  pump();
  // Live updates: the server announces every change (another tab, an agent's move).
  const events = new EventSource(`/api/sessions/${id}/events`);
  events.addEventListener("version", async (e) => {
    const data = JSON.parse(e.data);
    if (data.version !== session.version && !busy) {
      session = await api(`/api/sessions/${id}`);
      render();
      pump();
    }
  });
  closeOnLeave(events);
}

// ---- page: stored matches and replay -------------------------------------------------------

async function pageMatches() {
  const filter = h("input", { type: "search", placeholder: "Filter by game", "aria-label": "Filter by game", id: "filter" });
  const source = h(
    "select",
    { "aria-label": "Source" },
    ["", "web", "referee", "arena", "player", "import"].map((v) => h("option", { value: v }, v || "any source")),
  );
  const body = h("tbody");
  const matches = await api("/api/matches");
  function refresh() {
    const f = filter.value.trim().toLowerCase();
    body.replaceChildren(
      ...matches
        .filter((m) => (!f || m.game.toLowerCase().includes(f)) && (!source.value || m.source === source.value))
        .map((m) =>
          h(
            "tr",
            {},
            h("td", {}, h("a", { href: `#/replay/${m.id}` }, m.id)),
            h("td", {}, m.game),
            h("td", {}, new Date(m.start_time).toLocaleString()),
            h("td", {}, m.steps),
            h("td", {}, m.players.join(" vs ")),
            h("td", {}, m.goals ? m.goals.join(" / ") : m.aborted ? "aborted" : "in progress"),
            h("td", {}, m.source),
          ),
        ),
    );
  }
  filter.addEventListener("input", refresh);
  source.addEventListener("change", refresh);
  refresh();
  view.replaceChildren(
    h(
      "section",
      { class: "card wide" },
      h("h1", {}, "Stored matches"),
      h("div", { class: "filters" }, filter, source),
      h(
        "div",
        { class: "table-wrap" },
        h("table", {}, h("thead", {}, h("tr", {}, ["Match", "Game", "Started", "Steps", "Players", "Goals", "Source"].map((t) => h("th", {}, t)))), body),
      ),
      matches.length ? null : h("p", { class: "muted" }, "No matches stored yet."),
    ),
  );
}

async function pageReplay(id) {
  const rec = await api(`/api/matches/${encodeURIComponent(id)}`);
  let index = 0;
  const last = rec.boards.length - 1;
  const boardBox = h("div", { class: "board-box", id: "board" });
  const status = h("p", { class: "status", id: "status", role: "status" });
  const list = h("ol", { class: "movelog", id: "movelog", start: "1" });
  function show(i) {
    index = Math.max(0, Math.min(last, i));
    status.textContent = `Step ${index} of ${last}` + (index === last && rec.summary.goals ? ` — goals: ${rec.summary.roles.map((r, k) => `${r} ${rec.summary.goals[k]}`).join(", ")}` : "");
    boardBox.replaceChildren(rec.boards[index] ? drawBoard(rec.boards[index], { label: "replay board" }) : h("pre", { class: "facts" }, rec.states[index]));
    list.querySelectorAll("li").forEach((li, k) => li.classList.toggle("current", k + 1 === index));
  }
  list.replaceChildren(
    ...rec.moves.map((joint, k) =>
      h("li", {}, h("button", { class: "link", onclick: () => show(k + 1) }, joint.filter((m) => m !== "noop").join(" · ") || joint.join(" · "), rec.errors[k]?.some((e) => e) ? ` [${rec.errors[k].filter((e) => e).join(", ")}]` : "")),
    ),
  );
  const controls = h(
    "div",
    { class: "controls" },
    h("button", { id: "first", onclick: () => show(0) }, "« Start"),
    h("button", { id: "back", onclick: () => show(index - 1) }, "◀ Back"),
    h("button", { id: "forward", onclick: () => show(index + 1) }, "Forward ▶"),
    h("button", { id: "last", onclick: () => show(last) }, "End »"),
    h("a", { class: "button", href: `/api/matches/${encodeURIComponent(id)}/json`, download: "" }, "Download JSON"),
  );
  document.onkeydown = (e) => {
    if (!location.hash.startsWith("#/replay/")) return;
    if (e.key === "ArrowLeft") show(index - 1);
    if (e.key === "ArrowRight") show(index + 1);
  };
  view.replaceChildren(
    h(
      "section",
      { class: "play" },
      h("div", { class: "board-col" }, h("h1", {}, `Replay: ${rec.summary.game}`), h("p", { class: "muted" }, rec.summary.players.join(" vs ")), status, boardBox, controls),
      h("aside", { class: "side" }, h("h3", {}, "Moves"), list),
    ),
  );
  show(0);
}

// ---- page: any GDL game --------------------------------------------------------------------

async function pageGdl() {
  const text = h("textarea", { id: "kif", rows: "16", spellcheck: "false", "aria-label": "GDL rules", placeholder: "Paste GDL (KIF) rules here, or pick a file" });
  const file = h("input", { type: "file", accept: ".kif,.gdl,.txt", "aria-label": "Upload a .kif file" });
  const problems = h("ul", { class: "problems", id: "problems" });
  const publicSelect = h("select", { id: "public", "aria-label": "Public games" }, h("option", { value: "" }, "— a public game —"));
  const seats = h("div", { class: "seats" });
  const playBox = h("div", {});
  let name = "uploaded.kif";
  const publicGames = await api("/api/kif/public");
  publicGames.forEach((n) => publicSelect.append(h("option", { value: n }, n)));
  publicSelect.addEventListener("change", async () => {
    if (!publicSelect.value) return;
    const doc = await api(`/api/kif/public/${encodeURIComponent(publicSelect.value)}`);
    text.value = doc.text;
    name = doc.name;
  });
  file.addEventListener("change", async () => {
    const f = file.files[0];
    if (!f) return;
    if (f.size > 200000) return toast("That file is larger than 200 kB.");
    text.value = await f.text();
    name = f.name;
  });
  async function check() {
    const res = await api("/api/kif/check", { method: "POST", body: { text: text.value, name } });
    problems.replaceChildren(...res.problems.map((p) => h("li", { class: p.severity }, `line ${p.line}, column ${p.col}: ${p.severity}: ${p.message}`)));
    if (res.ok && !res.problems.length) problems.replaceChildren(h("li", { class: "ok" }, "No problems found."));
    return res.ok;
  }
  async function load() {
    try {
      if (!(await check())) return;
      const game = await api("/api/kif/games", { method: "POST", body: { text: text.value, name } });
      const agents = await api("/api/agents");
      seats.replaceChildren(
        ...game.roles.map((role, i) =>
          h("label", { class: "seat" }, h("span", {}, role),
            h("select", { "data-role": role, "aria-label": `Who plays ${role}` }, agents.filter((a) => a !== "solver").map((a) => h("option", { value: a, selected: (i === 0 ? a === "human" : a === "random") || null }, a)))),
        ),
      );
      const start = h("button", { class: "primary", id: "start-gdl" }, `Play ${game.name}`);
      start.addEventListener("click", async () => {
        const seatMap = {};
        seats.querySelectorAll("select").forEach((sel) => (seatMap[sel.dataset.role] = sel.value));
        try {
          const session = await api("/api/sessions", { method: "POST", body: { kif_id: game.kif_id, seats: seatMap, agent_time: 0.5 } });
          location.hash = `#/play/${session.id}`;
        } catch (e) {
          toast(e.message);
        }
      });
      playBox.replaceChildren(h("h2", {}, "Who plays which side"), seats, start);
    } catch (e) {
      toast(e.message);
      if (e.data && e.data.problems) problems.replaceChildren(...e.data.problems.map((p) => h("li", { class: p.severity }, `line ${p.line}, column ${p.col}: ${p.message}`)));
    }
  }
  view.replaceChildren(
    h(
      "section",
      { class: "card wide" },
      h("h1", {}, "Play any GDL game"),
      h("div", { class: "filters" }, publicSelect, file),
      text,
      h("div", { class: "controls" }, h("button", { id: "check", onclick: () => check().catch((e) => toast(e.message)) }, "Check"), h("button", { class: "primary", id: "load", onclick: load }, "Load and play")),
      problems,
      playBox,
    ),
  );
}

// ---- router ----

let openStreams = [];
function closeOnLeave(stream) {
  openStreams.push(stream);
}

async function route() {
  const hash = location.hash || "#/";
  const [, page, id] = hash.split("/");
  document.onkeydown = null;
  openStreams.forEach((stream) => stream.close());
  openStreams = [];
  try {
    if (page === "play" && id) await pagePlay(id);
    else if (page === "matches") await pageMatches();
    else if (page === "replay" && id) await pageReplay(decodeURIComponent(id));
    else if (page === "gdl") await pageGdl();
    else await pageHome();
    view.focus();
  } catch (e) {
    view.replaceChildren(h("section", { class: "card" }, h("h1", {}, "Something went wrong"), h("p", {}, e.message), h("a", { href: "#/" }, "Back to the start")));
  }
}

window.addEventListener("hashchange", route);
route();
