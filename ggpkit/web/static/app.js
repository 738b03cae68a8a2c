// ggpkit front end: plain ES modules over the JSON API (see /docs). No build step.
// Pages: #/ (new game; #/new/NAME with the game NAME chosen), #/play/ID, #/matches,
// #/replay/ID (#/replay/ID/ROLE: a game of imperfect information as ROLE saw it), #/gdl.

import { drawBoard } from "./board.js";
import { pageGdl, waitForLoad } from "./gdl.js";
import { viewSteps } from "./hidden.js";
import { pagePlay } from "./play.js";
import { api, h, ownsSession, showError } from "./util.js";

const view = document.getElementById("view");

// ---- page: new game ------------------------------------------------------------------

// Registered games first, then the game library's (loaded from their rules when started).
function gameOptions(games) {
  const option = (g) => h("option", { value: g.name }, g.library ? `${g.name} (library)` : g.name);
  const registered = games.filter((g) => !g.library);
  const library = games.filter((g) => g.library);
  if (!library.length) return registered.map(option);
  return [h("optgroup", { label: "ggpkit's games" }, registered.map(option)), h("optgroup", { label: "Game library" }, library.map(option))];
}

function describe(game) {
  if (!game.library) return [game.description];
  const note = "Loaded from its GDL rules when the game starts.";
  const text = game.description.length > 280 ? `${game.description.slice(0, 279)}…` : game.description;
  return [h("span", { class: "badge" }, "library"), ` from ${game.origin}. `, text ? `${text} ` : "", h("span", { class: "small" }, note)];
}

async function pageHome(chosen) {
  const [games, agents] = await Promise.all([api("/api/games"), api("/api/agents")]);
  const seats = h("div", { class: "seats" });
  const gameSelect = h("select", { id: "game", "aria-label": "Game" }, gameOptions(games));
  if (chosen && games.some((g) => g.name === chosen)) gameSelect.value = chosen;
  const desc = h("p", { class: "muted", id: "game-description" });
  const progress = h("div", { id: "progress-box" });
  const time = h("input", { id: "agent-time", type: "number", min: "0.1", max: "60", step: "0.1", value: "1" });
  const selected = () => games.find((g) => g.name === gameSelect.value);
  function refreshSeats() {
    const game = selected();
    desc.replaceChildren(...describe(game));
    const offered = game.library ? agents.filter((a) => a !== "solver") : agents; // no solver for GDL rules
    seats.replaceChildren(
      ...game.roles.map((role, i) =>
        h("label", { class: "seat" }, h("span", {}, role),
          h("select", { "data-role": role, "aria-label": `Who plays ${role}` },
            offered.map((a) => h("option", { value: a, selected: (i === 0 ? a === "human" : a === "mcts") || null }, a))))),
    );
  }
  gameSelect.addEventListener("change", refreshSeats);
  refreshSeats();
  const start = h("button", { class: "primary", id: "start" }, "Start game");
  // A library game is loaded first (compiled from its rules, with progress); its kif id starts it.
  async function which(game) {
    if (!game.library) return { game: game.name };
    const job = await waitForLoad(await api(`/api/games/${encodeURIComponent(game.name)}/load`, { method: "POST" }), progress);
    if (job.error) throw new Error(job.error);
    return { kif_id: job.result.kif_id };
  }
  start.addEventListener("click", async () => {
    const seatMap = {};
    seats.querySelectorAll("select").forEach((sel) => (seatMap[sel.dataset.role] = sel.value));
    start.disabled = true;
    try {
      const game = await which(selected());
      const session = await api("/api/sessions", { method: "POST", body: { ...game, seats: seatMap, agent_time: parseFloat(time.value) || 1 } });
      location.hash = `#/play/${session.id}`;
    } catch (e) {
      showError(e.message);
    } finally {
      start.disabled = false;
    }
  });
  view.replaceChildren(
    h("section", { class: "card" },
      h("h1", {}, "Play a game"),
      h("label", { class: "field" }, "Game ", gameSelect),
      desc,
      h("h2", {}, "Who plays which side"),
      seats,
      h("label", { class: "field" }, "Agent time per move (s) ", time),
      start,
      progress,
      h("p", { class: "muted" }, "Choose human for every side to play with two people at one screen, or an agent for every side to watch. ",
        "More games: ", h("code", {}, "ggpkit games fetch NAME"), " adds a game of the ggp.org repository to the library, ", h("code", {}, "ggpkit games add DIR"), " a folder of .kif files.")),
  );
}

// ---- page: stored matches and replay -------------------------------------------------------

function resultOf(m) {
  if (m.goals) return m.goals.join(" / ");
  if (m.aborted) return "aborted";
  return "unfinished";
}

function actionsOf(m) {
  const links = [h("a", { href: `#/replay/${encodeURIComponent(m.id)}` }, "Replay")];
  if (m.live) links.unshift(h("a", { class: "continue", href: `#/play/${encodeURIComponent(m.id)}` }, ownsSession(m.id) ? "Continue" : "Watch"), " · ");
  return links;
}

async function pageMatches() {
  const filter = h("input", { type: "search", placeholder: "Filter by game", "aria-label": "Filter by game", id: "filter" });
  const source = h("select", { "aria-label": "Source" }, ["", "web", "referee", "arena", "player", "import"].map((v) => h("option", { value: v }, v || "any source")));
  const body = h("tbody");
  const matches = await api("/api/matches");
  function refresh() {
    const f = filter.value.trim().toLowerCase();
    body.replaceChildren(
      ...matches
        .filter((m) => (!f || m.game.toLowerCase().includes(f)) && (!source.value || m.source === source.value))
        .map((m) =>
          h("tr", {},
            h("td", { "data-label": "Game" }, h("b", {}, m.game)),
            h("td", { "data-label": "Players" }, m.players.join(" vs ")),
            h("td", { "data-label": "Result" }, resultOf(m)),
            h("td", { "data-label": "Steps" }, m.steps),
            h("td", { "data-label": "Started" }, new Date(m.start_time).toLocaleString()),
            h("td", { "data-label": "Source" }, m.source),
            h("td", { "data-label": "" }, actionsOf(m)),
            h("td", { "data-label": "Match", class: "match-id" }, m.id))),
    );
  }
  filter.addEventListener("input", refresh);
  source.addEventListener("change", refresh);
  refresh();
  view.replaceChildren(
    h("section", { class: "card wide" },
      h("h1", {}, "Stored matches"),
      h("div", { class: "filters" }, filter, source),
      h("div", { class: "table-wrap" },
        h("table", { class: "matches" }, h("thead", {}, h("tr", {}, ["Game", "Players", "Result", "Steps", "Started", "Source", "", "Match"].map((t) => h("th", {}, t)))), body)),
      matches.length ? null : h("p", { class: "muted" }, "No matches stored yet.")),
  );
}

function replayJoint(rec, k) {
  if (rec.imperfect) {
    // every role named, nature's draws marked: the true state shows what each role did
    const who = (r) => (r === rec.chance_role ? `${r} (nature)` : r);
    return rec.moves[k].map((m, i) => `${who(rec.summary.roles[i])}: ${m}`).join(" · ");
  }
  const joint = rec.moves_short ? rec.moves_short[k] : rec.moves[k].map((m) => ({ move: m, short: null }));
  const real = joint.filter((m) => m.move !== "noop");
  return (real.length ? real : joint).map((m) => (m.short ? `${m.short} ${m.move}` : m.move)).join(" · ");
}

// Games of imperfect information: the true state, or one seat's view.
function viewSelect(rec, id) {
  if (!rec.imperfect) return null;
  const select = h("select", { id: "view-select", "aria-label": "Whose view" },
    h("option", { value: "true", selected: rec.view === "true" || null }, "True state: every move and percept"),
    rec.seats.map((r) => h("option", { value: r, selected: rec.view === r || null }, `${r}'s view`)));
  const base = `#/replay/${encodeURIComponent(id)}`;
  select.addEventListener("change", () => (location.hash = select.value === "true" ? base : `${base}/${encodeURIComponent(select.value)}`));
  return h("label", { class: "field" }, "Show ", select);
}

// Who played: "white vs black" players, or with each role named where nature is one of them.
function playersText(rec) {
  const { roles, players } = rec.summary;
  return rec.imperfect || rec.chance_role ? roles.map((r, k) => `${r}: ${players[k]}`).join(" vs ") : players.join(" vs ");
}

function goalsText(rec) {
  const { roles, goals } = rec.summary;
  return roles.map((r, k) => [r, goals[k]]).filter(([r]) => r !== rec.chance_role).map(([r, g]) => `${r} ${g}`).join(", ");
}

function perceptsAt(rec, index) {
  if (!rec.imperfect || index === 0) return [];
  const seen = rec.percepts[index - 1] || [];
  return rec.summary.roles
    .map((r, k) => [r, seen[k] || []])
    .filter(([r]) => r !== rec.chance_role)
    .map(([r, p]) => h("li", {}, h("b", {}, `${r} saw: `), p.length ? p.join(", ") : h("span", { class: "muted" }, "nothing")));
}

function replayControls(id, show, current, last) {
  return h("div", { class: "controls" },
    h("button", { id: "first", onclick: () => show(0) }, "« Start"),
    h("button", { id: "back", onclick: () => show(current() - 1) }, "◀ Back"),
    h("button", { id: "forward", onclick: () => show(current() + 1) }, "Forward ▶"),
    h("button", { id: "last", onclick: () => show(last) }, "End »"),
    h("a", { class: "button", href: `/api/matches/${encodeURIComponent(id)}/json`, download: "" }, "Download JSON"));
}

function arrowKeys(show, current) {
  document.onkeydown = (e) => {
    if (!location.hash.startsWith("#/replay/")) return;
    if (e.key === "ArrowLeft") show(current() - 1);
    if (e.key === "ArrowRight") show(current() + 1);
  };
}

// A match as one role saw it: its moves and percepts turn by turn, never the state.
function replayRoleView(rec, id) {
  let index = rec.steps.length;
  const last = rec.steps.length;
  const status = h("p", { class: "status", id: "status", role: "status" });
  const box = h("div", { id: "view-box" });
  function show(i) {
    index = Math.max(0, Math.min(last, i));
    const goals = index === last && rec.summary.goals ? ` — goals: ${goalsText(rec)}` : "";
    status.textContent = `Turn ${index} of ${last}${goals}`;
    box.replaceChildren(index ? viewSteps(rec.steps.slice(0, index), rec.chance_role, index) : h("p", { class: "muted" }, "The start: nothing seen yet."));
  }
  arrowKeys(show, () => index);
  view.replaceChildren(
    h("section", { class: "card wide hidden-play" },
      h("h1", {}, `Replay: ${rec.summary.game}`),
      h("p", { class: "whose", id: "whose" }, `${rec.view.charAt(0).toUpperCase()}${rec.view.slice(1)}'s view`, h("span", { class: "small" }, " — its own moves and percepts only")),
      viewSelect(rec, id), status, replayControls(id, show, () => index, last), box),
  );
  show(last);
}

async function pageReplay(id, as) {
  const rec = await api(`/api/matches/${encodeURIComponent(id)}${as ? `?view=${encodeURIComponent(as)}` : ""}`);
  if (rec.view !== "true") return replayRoleView(rec, id);
  let index = 0;
  const last = rec.boards.length - 1;
  const boardBox = h("div", { class: "board-box", id: "board" });
  const status = h("p", { class: "status", id: "status", role: "status" });
  const list = h("ol", { class: "movelog", id: "movelog", start: "1" });
  const seen = h("ul", { class: "percepts-now", id: "percepts" });
  function show(i) {
    index = Math.max(0, Math.min(last, i));
    const goals = index === last && rec.summary.goals ? ` — goals: ${goalsText(rec)}` : "";
    status.textContent = `Step ${index} of ${last}${goals}`;
    seen.replaceChildren(...perceptsAt(rec, index));
    const marks = Object.fromEntries((rec.last_cells[index] || []).map((key) => [key, "last"]));
    boardBox.replaceChildren(rec.boards[index] ? drawBoard(rec.boards[index], { marks, label: "replay board" }) : h("pre", { class: "facts" }, rec.states[index]));
    list.querySelectorAll("li").forEach((li, k) => li.classList.toggle("current", k + 1 === index));
  }
  list.replaceChildren(
    ...rec.moves.map((joint, k) =>
      h("li", {}, h("button", { class: "link", onclick: () => show(k + 1) }, replayJoint(rec, k), rec.errors[k]?.some((e) => e) ? ` [${rec.errors[k].filter((e) => e).join(", ")}]` : ""))),
  );
  const controls = replayControls(id, show, () => index, last);
  arrowKeys(show, () => index);
  view.replaceChildren(
    h("section", { class: "play" },
      h("div", { class: "board-col" }, h("h1", {}, `Replay: ${rec.summary.game}`), h("p", { class: "muted" }, playersText(rec)), viewSelect(rec, id), status, rec.imperfect ? h("h3", {}, "True state") : null, boardBox, seen, controls),
      h("aside", { class: "side" }, h("h3", {}, "Moves"), list)),
  );
  show(0);
}

// ---- router ----

let openStreams = [];
function closeOnLeave(stream) {
  openStreams.push(stream);
}

async function route() {
  const hash = location.hash || "#/";
  const [, page, id, role] = hash.split("/");
  document.onkeydown = null;
  openStreams.forEach((stream) => stream.close());
  openStreams = [];
  try {
    if (page === "play" && id) await pagePlay(view, decodeURIComponent(id), closeOnLeave);
    else if (page === "matches") await pageMatches();
    else if (page === "replay" && id) await pageReplay(decodeURIComponent(id), role ? decodeURIComponent(role) : null);
    else if (page === "gdl") await pageGdl(view);
    else await pageHome(page === "new" && id ? decodeURIComponent(id) : null);
    view.focus({ preventScroll: true }); // for screen readers; drawn without a frame (style.css)
  } catch (e) {
    view.replaceChildren(h("section", { class: "card" }, h("h1", {}, "Something went wrong"), h("p", {}, e.message), h("a", { href: "#/" }, "Back to the start")));
  }
}

window.addEventListener("hashchange", route);
route();
