// Small helpers shared by the pages: the JSON API client, element builders, messages.

const toastBox = () => document.getElementById("toast");
const SVG = "http://www.w3.org/2000/svg";

// A session can be changed only with the token its creation returned; this browser keeps
// the tokens of the sessions it started and sends them with every request on them.
const TOKEN_KEY = (id) => `ggpkit-token:${id}`;

export function ownsSession(id) {
  return localStorage.getItem(TOKEN_KEY(id)) !== null;
}

export async function api(path, options = {}) {
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

export function h(tag, attrs = {}, ...children) {
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

export function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

let toastTimer = null;

// A passing message: gone after four seconds.
export function toast(message) {
  const box = toastBox();
  box.className = "";
  box.replaceChildren(message);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), 4000);
}

// An error stays on screen until the person closes it: it may need reading twice.
export function showError(message) {
  const box = toastBox();
  clearTimeout(toastTimer);
  box.className = "error";
  const close = h("button", { class: "close", "aria-label": "Dismiss", onclick: () => (box.hidden = true) }, "×");
  box.replaceChildren(h("span", { id: "error-text" }, message), close);
  box.hidden = false;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// "(move 2 2 3 3)" with its short form first where the game has one: "b2-c3 (move 2 2 3 3)".
export function moveLabel(m) {
  return m.short ? [h("b", {}, m.short), " ", h("span", { class: "term" }, m.move)] : [m.move];
}
