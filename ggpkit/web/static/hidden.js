// The play page of a game of imperfect information (GDL-II): a person sees only their role's
// view (their own moves, what they perceived, their legal moves), never the state. With two
// people at one screen the view of the role to move waits behind a hand-over screen, so that
// neither sees the other's; nature's and the other roles' moves show as made, never as what
// they were. The true state is shown by the replay once the match is over.

import { api, h, ownsSession, showError, sleep } from "./util.js";

const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const label = (m) => (m.short ? `${m.short} ${m.move}` : m.move);

// One role's turns: its move as played, what it perceived, and who else moved unseen.
export function viewSteps(steps, chance, current = null) {
  const who = (r) => (r === chance ? `${r} (nature)` : r);
  return h("ol", { class: "viewlog", id: "viewlog" },
    steps.map((s, k) =>
      h("li", { class: current !== null && k + 1 === current ? "current" : "" },
        h("div", {}, h("b", {}, "You played "), h("code", {}, label(s))),
        h("div", { class: "percepts" }, h("b", {}, "You saw: "), s.percepts.length ? s.percepts.map((p) => h("code", {}, p)) : h("span", { class: "muted" }, "nothing")),
        s.unseen.length ? h("div", { class: "muted small" }, `Also moved, hidden from you: ${s.unseen.map(who).join(", ")}`) : null)));
}

// Links to the replay of a finished match: the true state, or any seat's view.
export function replayLinks(id, seats) {
  const base = `#/replay/${encodeURIComponent(id)}`;
  return h("p", { class: "replay-links" }, "Replay: ", h("a", { href: base }, "true state"),
    ...seats.flatMap((r) => [" · ", h("a", { href: `${base}/${encodeURIComponent(r)}` }, `${r}'s view`)]));
}

export async function pageHidden(view, first, id, closeOnLeave) {
  let session = first;
  const owner = ownsSession(id);
  const humans = session.roles.filter((r) => session.seats[r] === "human");
  const hotSeat = owner && humans.length > 1;
  let shown = owner && humans.length === 1 ? humans[0] : null; // the role whose view is on screen
  let busy = false;
  const body = h("div", { id: "hidden-view" });
  const status = h("p", { class: "status", id: "status", role: "status" });

  const next = () => (owner ? session.humans_to_move[0] || null : null);
  const covered = () => hotSeat && !session.finished && next() !== null && next() !== shown;

  async function refresh() {
    session = await api(shown ? `/api/sessions/${id}/view/${encodeURIComponent(shown)}` : `/api/sessions/${id}`);
  }

  async function send(move) {
    try {
      session = await api(`/api/sessions/${id}/move`, { method: "POST", body: { role: shown, move, version: session.version } });
    } catch (e) {
      showError(e.message);
      if (e.status === 409) await refresh();
    }
    render();
    pump();
  }

  async function reveal() {
    shown = next();
    await refresh();
    render();
  }

  function statusText() {
    if (session.finished) return `Game over after ${session.turn} turns: ${session.result || "no result"}.`;
    const movers = session.to_move.map((r) => `${r} (${session.seats[r]})`).join(", ");
    const turn = `Turn ${session.turn + 1}. `;
    if (covered()) return `${turn}${next()} to move.`;
    if (shown && session.humans_to_move.includes(shown)) return `${turn}Your move, ${shown}.`;
    if (!owner) return `${turn}${movers} to move. Watching: each side's view is private.`;
    return `${turn}${movers} ${session.to_move.length > 1 ? "are" : "is"} thinking…`;
  }

  function handOver() {
    const who = next();
    const gone = shown ? `${cap(shown)}'s view is hidden. ` : "";
    return h("div", { class: "handover", id: "handover" },
      h("h2", {}, `Pass the screen to ${who}`),
      h("p", {}, `${gone}Only ${who} should look at the screen now.`),
      h("button", { class: "primary", id: "reveal", onclick: reveal }, `I am ${who}: show my view`));
  }

  function roleBody() {
    const v = session.view;
    if (!v) return [];
    const mine = session.humans_to_move.includes(shown) && !session.finished;
    return [
      mine ? h("h3", {}, `Legal moves of ${shown}`) : null,
      mine ? h("div", { class: "move-buttons", id: "legal" }, v.legal.map((m) => h("button", { class: "move", onclick: () => send(m.move) }, label(m)))) : null,
      h("h3", {}, `What ${shown} knows`),
      v.steps.length ? viewSteps(v.steps, session.chance_role) : h("p", { class: "muted" }, "Nothing yet: no move has been played."),
    ];
  }

  function render() {
    status.textContent = statusText();
    status.classList.toggle("over", session.finished);
    const banner = shown && !covered()
      ? h("p", { class: "whose", id: "whose" }, `${cap(shown)}'s view`, hotSeat ? h("span", { class: "small" }, ` — only ${shown} should look`) : null)
      : null;
    const parts = covered() ? [handOver()] : [banner, ...roleBody()];
    if (!shown && !covered()) parts.push(h("p", { class: "muted", id: "private" }, "Each side sees only its own view: its moves and what it perceived. The replay shows the true state once the match is over."));
    if (session.finished) parts.push(replayLinks(id, session.roles));
    body.replaceChildren(...parts.filter(Boolean));
  }

  // Agents move by themselves while the page is open.
  async function pump() {
    if (busy || !owner) return;
    busy = true;
    try {
      const ask = `/api/sessions/${id}/agent${shown ? `?role=${encodeURIComponent(shown)}` : ""}`;
      while (!session.finished && session.humans_to_move.length === 0 && session.to_move.length) {
        await sleep(humans.length ? 250 : 600);
        session = await api(ask, { method: "POST" });
        render();
      }
    } catch (e) {
      showError(e.message);
    } finally {
      busy = false;
      render();
    }
  }

  const seatsText = session.roles.map((r) => `${r}: ${session.seats[r]}`).join(", ");
  const nature = session.chance_role ? `; ${session.chance_role}: nature (its moves are drawn)` : "";
  view.replaceChildren(
    h("section", { class: "card wide hidden-play" },
      h("h1", {}, session.game, " ", h("span", { class: "badge" }, "hidden information")),
      status, body,
      h("p", { class: "muted small" }, `Seats: ${seatsText}${nature}`)),
  );
  if (shown) await refresh();
  render();
  pump();
  const events = new EventSource(`/api/sessions/${id}/events`);
  events.addEventListener("version", async (e) => {
    const data = JSON.parse(e.data);
    if (data.version !== session.version && !busy) {
      await refresh();
      render();
      pump();
    }
  });
  closeOnLeave(events);
}
