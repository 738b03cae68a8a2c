// The page for any GDL game: pick a game of the library or paste rules, check them (problems by
// line and column), then load them with live progress (parse, check, compile, try, probe)
// and choose who plays. Problems and errors stay on the page until the next attempt.

import { api, h, showError, sleep } from "./util.js";

const STAGE_NAMES = {
  waiting: "waiting for another load to finish",
  parse: "reading the rules",
  check: "checking the rules",
  compile: "grounding and compiling the rules",
  try: "trying the first moves",
  probe: "probing the game (turns, scores)",
  ready: "drawing the board",
};

function problemItems(problems, withSeverity = true) {
  return problems.map((p) => h("li", { class: p.severity }, `line ${p.line}, column ${p.col}: ${withSeverity ? `${p.severity}: ` : ""}${p.message}`));
}

export function progressView(job) {
  const done = job.done.map((d) => h("li", { class: "done" }, `✓ ${STAGE_NAMES[d.stage] || d.stage} (${d.seconds.toFixed(1)} s)`));
  const now = job.finished ? [] : [h("li", { class: "now" }, h("span", { class: "spinner", "aria-hidden": "true" }), ` ${STAGE_NAMES[job.stage] || job.stage}… ${job.stage_seconds.toFixed(0)} s`)];
  return h("div", { class: "progress", id: "progress", role: "status" },
    h("p", {}, `Loading ${job.name}: ${job.seconds.toFixed(0)} s`), h("ol", { class: "stages" }, ...done, ...now));
}

// Follow a load (uploaded rules, a library game) in `box` until it is over; the finished job.
export async function waitForLoad(job, box) {
  while (!job.finished) {
    box.replaceChildren(progressView(job));
    await sleep(400);
    job = await api(`/api/kif/loads/${job.id}`);
  }
  box.replaceChildren();
  return job;
}

export async function pageGdl(view) {
  const text = h("textarea", { id: "kif", rows: "16", spellcheck: "false", "aria-label": "GDL rules", placeholder: "Paste GDL (KIF) rules here, or pick a file" });
  const file = h("input", { type: "file", accept: ".kif,.gdl,.txt", "aria-label": "Upload a .kif file" });
  const problems = h("ul", { class: "problems", id: "problems" });
  const publicSelect = h("select", { id: "public", "aria-label": "Games of the library" }, h("option", { value: "" }, "— a game of the library —"));
  const progress = h("div", { id: "progress-box" });
  const playBox = h("div", {});
  const loadButton = h("button", { class: "primary", id: "load", onclick: load }, "Load and play");
  let name = "uploaded.kif";
  (await api("/api/kif/public")).forEach((n) => publicSelect.append(h("option", { value: n }, n)));
  publicSelect.addEventListener("change", async () => {
    if (!publicSelect.value) return;
    const doc = await api(`/api/kif/public/${encodeURIComponent(publicSelect.value)}`);
    text.value = doc.text;
    name = doc.name;
  });
  file.addEventListener("change", async () => {
    const f = file.files[0];
    if (!f) return;
    if (f.size > 200000) return showError("That file is larger than 200 kB.");
    text.value = await f.text();
    name = f.name;
  });

  async function check() {
    const res = await api("/api/kif/check", { method: "POST", body: { text: text.value, name } });
    problems.replaceChildren(...problemItems(res.problems));
    if (res.ok && !res.problems.length) problems.replaceChildren(h("li", { class: "ok" }, "No problems found."));
    return res.ok;
  }

  function offerSeats(game, agents) {
    const seats = h("div", { class: "seats" },
      game.roles.map((role, i) =>
        h("label", { class: "seat" }, h("span", {}, role),
          h("select", { "data-role": role, "aria-label": `Who plays ${role}` },
            agents.filter((a) => a !== "solver").map((a) => h("option", { value: a, selected: (i === 0 ? a === "human" : a === "random") || null }, a))))));
    const start = h("button", { class: "primary", id: "start-gdl" }, `Play ${game.name}`);
    start.addEventListener("click", async () => {
      const seatMap = {};
      seats.querySelectorAll("select").forEach((sel) => (seatMap[sel.dataset.role] = sel.value));
      try {
        const session = await api("/api/sessions", { method: "POST", body: { kif_id: game.kif_id, seats: seatMap, agent_time: 0.5 } });
        location.hash = `#/play/${session.id}`;
      } catch (e) {
        showError(e.message);
      }
    });
    const notes = game.notes.map((n) => h("p", { class: "muted small" }, n));
    playBox.replaceChildren(h("h2", {}, "Who plays which side"), h("p", { class: "muted small" }, `Runs on the ${game.reasoner}.`), ...notes, seats, start);
  }

  async function load() {
    loadButton.disabled = true;
    playBox.replaceChildren();
    try {
      if (!(await check())) return;
      const job = await waitForLoad(await api("/api/kif/loads", { method: "POST", body: { text: text.value, name } }), progress);
      if (job.error) {
        if (job.problems.length) problems.replaceChildren(...problemItems(job.problems));
        showError(job.error);
        return;
      }
      offerSeats(job.result, await api("/api/agents"));
    } catch (e) {
      showError(e.message);
    } finally {
      loadButton.disabled = false;
    }
  }

  view.replaceChildren(
    h("section", { class: "card wide" },
      h("h1", {}, "Play any GDL game"),
      h("div", { class: "filters" }, publicSelect, file),
      text,
      h("div", { class: "controls" }, h("button", { id: "check", onclick: () => check().catch((e) => showError(e.message)) }, "Check"), loadButton),
      problems, progress, playBox),
  );
}
