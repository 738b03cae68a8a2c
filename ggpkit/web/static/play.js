// The play page: a person's moves by clicks or buttons, agents' moves as they come, watch mode
// with pause, play, replay and steps back and forth, and why the game ended.

import { drawBoard } from "./board.js";
import { pageHidden } from "./hidden.js";
import { api, h, moveLabel, ownsSession, showError, sleep, toast } from "./util.js";

const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);

function jointLabel(joint) {
  const real = joint.filter((m) => m.move !== "noop");
  return (real.length ? real : joint).map((m) => (m.short ? `${m.short} ${m.move}` : m.move)).join(" · ");
}

export function endText(view) {
  const result = view.result ? `Game over: ${view.result}.` : "Game over.";
  return view.end_reason ? `${result} ${cap(view.end_reason)}.` : result;
}

export async function pagePlay(view, id, closeOnLeave) {
  let session = await api(`/api/sessions/${id}`);
  if (session.imperfect) return pageHidden(view, session, id, closeOnLeave); // never the state
  let selected = null; // the key of the cell a move starts from
  let hinted = [];
  let running = true; // watch mode: agents play on by themselves
  let speed = 600;
  let busy = false;
  let lastAnimated = -1;
  let historyIndex = null; // browsing history in watch mode: index into the stored states
  let history = null;
  let replaying = false;
  const status = h("p", { class: "status", id: "status", role: "status" });
  const boardBox = h("div", { class: "board-box", id: "board" });
  const others = h("p", { class: "others muted", id: "others" });
  const moveList = h("div", { class: "legal", id: "legal" });
  const log = h("ol", { class: "movelog", id: "movelog" });
  const controls = h("div", { class: "controls" });
  const hintBox = h("p", { class: "hint", id: "hint" });
  const thinkBox = h("div", { class: "thoughts", id: "thoughts" });
  const watch = Object.values(session.seats).every((v) => v !== "human");
  const owner = ownsSession(id); // only the browser that started a game can change it

  const humanRole = () => (owner && session.humans_to_move[0]) || null;
  const legalOf = () => session.legal[humanRole()] || [];
  const movesFrom = (key) => legalOf().filter((m) => m.cells.length >= 2 && m.cells[0] === key);

  async function send(move) {
    const role = humanRole();
    selected = null;
    hinted = [];
    try {
      session = await api(`/api/sessions/${id}/move`, { method: "POST", body: { role, move, version: session.version } });
      hintBox.textContent = "";
    } catch (e) {
      showError(e.message);
      if (e.status === 409) session = await api(`/api/sessions/${id}`);
    }
    render();
    pump();
  }

  function onCell(cell) {
    const role = humanRole();
    if (!role || session.finished) {
      toast(session.finished ? "The game is over." : "Wait: it is not your turn.");
      return;
    }
    const legal = legalOf();
    if (selected) {
      const move = movesFrom(selected).find((m) => m.cells[m.cells.length - 1] === cell.key);
      if (move) return send(move.move);
      if (cell.key === selected) {
        selected = null;
        return render();
      }
    }
    const single = legal.find((m) => (m.cells.length === 1 && m.cells[0] === cell.key) || (m.column && m.column === cell.col && m.cells.length === 0));
    if (single) return send(single.move);
    if (movesFrom(cell.key).length) {
      selected = cell.key;
      return render();
    }
    selected = null;
    render();
    toast(`No legal move of ${role} starts at ${cell.name}.`);
  }

  function marks(lastCells) {
    const m = {};
    lastCells.forEach((key) => (m[key] = "last"));
    hinted.forEach((key) => (m[key] = "hinted"));
    if (selected) {
      m[selected] = "selected";
      movesFrom(selected).forEach((mv) => (m[mv.cells[mv.cells.length - 1]] = "target"));
    }
    return m;
  }

  function statusText() {
    if (historyIndex !== null) {
      const last = history.boards.length - 1;
      return `Step ${historyIndex} of ${last}` + (replaying ? " (replaying)" : " (history)") + (historyIndex === last && session.finished ? ` — ${endText(session)}` : "");
    }
    if (session.finished) return endText(session);
    const role = humanRole();
    const movers = session.to_move.map((r) => `${r} (${session.seats[r]})`).join(", ");
    if (!owner) return `${movers} to move. Watching: the browser that started this game plays it.`;
    if (role) return `Your move, ${role}.` + (selected ? " Now click where it goes." : "");
    if (watch && !running) return `Paused: ${movers} to move.`;
    return `${movers} ${session.to_move.length > 1 ? "are" : "is"} thinking…`;
  }

  function drawHistory() {
    const board = history.boards[historyIndex];
    const lastCells = history.last_cells[historyIndex] || [];
    boardBox.replaceChildren(board ? drawBoard(board, { marks: marks(lastCells), label: "history board" }) : h("pre", { class: "facts" }, history.states[historyIndex]));
    others.textContent = board && board.others.length ? board.others.join("  ") : "";
  }

  function drawLive() {
    const animate =
      session.last_move_cells.length >= 2 && lastAnimated !== session.version
        ? { from: session.last_move_cells[0], to: session.last_move_cells[session.last_move_cells.length - 1] }
        : null;
    lastAnimated = session.version;
    boardBox.replaceChildren(
      session.board
        ? drawBoard(session.board, { marks: marks(session.last_move_cells), onCell, animate, label: `${session.game} board`, arrows: arrowsOf(session.thoughts) })
        : h("pre", { class: "facts" }, session.facts.join("\n")),
    );
    others.textContent = session.board && session.board.others.length ? session.board.others.join("  ") : "";
  }

  function arrowsOf(thoughts) {
    return Object.values(thoughts || {}).flatMap((t) =>
      t.best.filter((m) => m.cells.length >= 2).map((m) => ({ from: m.cells[0], to: m.cells[m.cells.length - 1], share: m.share })));
  }

  // What each agent that chose the last move thinks: an evaluation bar and its best moves.
  function renderThoughts() {
    const entries = historyIndex === null ? Object.entries(session.thoughts || {}) : [];
    thinkBox.replaceChildren(
      ...entries.map(([role, t]) =>
        h("div", { class: "thought", "data-role": role },
          h("p", { class: "small" }, h("b", {}, `${t.agent} (${role}) thinks`), t.value === null ? "" : `: ${role} can expect ${Math.round(t.value)} of 100`, t.verdict ? ` — ${t.verdict}` : ""),
          t.value === null ? null : h("div", { class: "evalbar", role: "meter", "aria-label": `value for ${role}`, "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(Math.round(t.value)) },
            h("div", { class: "evalfill", style: `width: ${Math.max(0, Math.min(100, t.value))}%` })),
          h("ol", { class: "best small" }, t.best.map((m) => h("li", {}, moveLabel(m), ` ${Math.round(m.share * 100)}% of the search`))))),
    );
  }

  function render() {
    const role = humanRole();
    status.textContent = statusText();
    status.classList.toggle("over", session.finished && historyIndex === null);
    if (historyIndex !== null) drawHistory();
    else drawLive();
    moveList.replaceChildren(
      ...(role && historyIndex === null
        ? [
            h("h3", {}, `Legal moves of ${role}`),
            session.notation ? h("p", { class: "muted small" }, `Short form: ${session.notation}`) : null,
            h("div", { class: "move-buttons" }, legalOf().map((m) => h("button", { class: "move", onclick: () => send(m.move) }, moveLabel(m)))),
          ].filter(Boolean)
        : []),
    );
    const current = historyIndex === null ? session.moves_short.length : historyIndex;
    renderThoughts();
    log.replaceChildren(...session.moves_short.map((joint, k) => h("li", { class: k + 1 === current && historyIndex !== null ? "current" : "" }, jointLabel(joint))));
    renderControls();
  }

  function playLabel() {
    if (session.finished && historyIndex === null) return "Replay";
    if (replaying || (running && !session.finished)) return "Pause";
    return "Play";
  }

  function onPlay() {
    const label = playLabel();
    if (label === "Pause") {
      running = false;
      replaying = false;
      return render();
    }
    if (label === "Replay" || (historyIndex !== null && session.finished)) return replay(label === "Replay" ? 0 : historyIndex);
    running = true;
    historyIndex = null;
    render();
    pump();
  }

  function renderControls() {
    const buttons = [];
    if (!owner) {
      // a spectator changes nothing: no undo, no agents to drive
    } else if (!watch) {
      buttons.push(h("button", { id: "undo", disabled: !session.can_undo || null, onclick: () => act("undo") }, "Undo"));
      buttons.push(h("button", { id: "redo", disabled: !session.can_redo || null, onclick: () => act("redo") }, "Redo"));
      if (session.hint && !session.finished) buttons.push(h("button", { id: "hint-btn", onclick: showHint }, "Hint"));
    } else {
      buttons.push(
        h("button", { id: "playpause", onclick: onPlay }, playLabel()),
        h("button", { id: "back", onclick: () => browse(-1), "aria-label": "Step back" }, "◀ Back"),
        h("button", { id: "forward", onclick: () => browse(1), "aria-label": "Step forward" }, "Forward ▶"),
        h("label", { class: "field" }, "Speed ",
          h("select", { "aria-label": "Speed", onchange: (e) => (speed = parseInt(e.target.value, 10)) },
            [["1500", "slow"], ["600", "normal"], ["150", "fast"]].map(([v, t]) => h("option", { value: v, selected: String(speed) === v || null }, t)))),
      );
    }
    buttons.push(h("a", { class: "button", href: `/api/matches/${id}/json`, download: "" }, "Download JSON"));
    controls.replaceChildren(...buttons);
  }

  async function loadHistory() {
    history = await api(`/api/matches/${id}`);
    return history.boards.length - 1;
  }

  async function browse(delta) {
    running = false;
    replaying = false;
    const last = await loadHistory();
    historyIndex = Math.max(0, Math.min(last, (historyIndex === null ? last : historyIndex) + delta));
    render();
  }

  async function replay(from) {
    running = false;
    replaying = true;
    const last = await loadHistory();
    for (historyIndex = from; historyIndex <= last && replaying; historyIndex++) {
      render();
      await sleep(speed);
    }
    historyIndex = last;
    replaying = false;
    render();
  }

  async function act(what) {
    try {
      session = await api(`/api/sessions/${id}/${what}`, { method: "POST" });
      selected = null;
    } catch (e) {
      showError(e.message);
    }
    render();
    pump();
  }

  async function showHint() {
    hintBox.textContent = "Thinking…";
    try {
      const hint = await api(`/api/sessions/${id}/hint`);
      const best = legalOf().find((m) => m.move === hint.move);
      const shown = best && best.short ? `${best.short} ${hint.move}` : hint.move;
      hintBox.textContent = hint.move ? `Best move: ${shown}. Best reachable score: ${hint.score}.` : `No move left. Score: ${hint.score}.`;
      hintBox.dataset.move = hint.move || "";
      hinted = best ? best.cells : [];
      render();
    } catch (e) {
      hintBox.textContent = "";
      showError(e.message);
    }
  }

  // Agents move by themselves while the page is open (and in watch mode, while running).
  async function pump() {
    if (busy || !owner) return;
    busy = true;
    try {
      while (!session.finished && session.humans_to_move.length === 0 && session.to_move.length && (!watch || running)) {
        await sleep(watch ? speed : 250);
        if (watch && !running) break;
        session = await api(`/api/sessions/${id}/agent`, { method: "POST" });
        render();
      }
    } catch (e) {
      showError(e.message);
    } finally {
      busy = false;
      render();
    }
  }

  view.replaceChildren(
    h("section", { class: "play" },
      h("div", { class: "board-col" }, h("h1", {}, session.game), status, boardBox, others, controls, hintBox, thinkBox),
      h("aside", { class: "side" }, moveList, h("h3", {}, "Moves"), log,
        h("p", { class: "muted" }, "Seats: ", Object.entries(session.seats).map(([r, a]) => `${r}: ${a}`).join(", ")))),
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
