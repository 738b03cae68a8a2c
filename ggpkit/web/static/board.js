// Draws a board view from the API as SVG: any grid, with the look the server inferred or
// the game declared (checkered, grid, holes), pieces by shape (disc, chess glyph, mark,
// number) and holes as gaps. Cells are keyed as the facts name them ("a,c3", "2,3").

import { s } from "./util.js";

const CELL = 60;
const MARGIN = 24; // room for the coordinates on the left and below

function pieceOf(style) {
  const g = s("g", { class: `piece ${style.shape}` });
  const mid = CELL / 2;
  if (style.shape === "disc") {
    g.append(s("circle", { cx: mid, cy: mid, r: CELL * 0.36, fill: style.color, class: "disc" }));
    if (style.label) g.append(text(style.label, mid, mid + 7, "piece-label", contrast(style.color)));
  } else if (style.shape === "glyph") {
    const dark = style.color !== "#f5f5f4";
    g.append(text(style.label, mid, mid + 16, `glyph ${dark ? "glyph-dark" : "glyph-light"}`));
  } else if (style.shape === "mark") {
    g.append(text(style.label, mid, mid + 14, "mark-label", style.color));
  } else if (style.shape === "number") {
    g.append(text(style.label, mid, mid + 9, "number-label"));
  }
  return g;
}

function text(value, x, y, cls, fill = null) {
  const t = s("text", { x, y, class: cls });
  if (fill) t.setAttribute("fill", fill);
  t.textContent = value;
  return t;
}

function contrast(colour) {
  const n = parseInt(colour.replace("#", ""), 16);
  const light = ((n >> 16) & 255) * 0.3 + ((n >> 8) & 255) * 0.59 + (n & 255) * 0.11 > 150;
  return light ? "#1f2933" : "#fff";
}

function square(cell, look) {
  if (cell.void) return s("rect", { x: 3, y: 3, width: CELL - 6, height: CELL - 6, rx: 6, class: "void" });
  if (look === "holes") return s("circle", { cx: CELL / 2, cy: CELL / 2, r: CELL * 0.4, class: "pit" });
  return s("rect", { width: CELL, height: CELL, class: "square" });
}

function slideIn(piece, board, cell, from) {
  const origin = board.cells.find((c) => c.key === from);
  if (!origin) return;
  piece.style.transform = `translate(${(origin.x - cell.x) * CELL}px, ${(origin.y - cell.y) * CELL}px)`;
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      piece.style.transition = "transform 350ms ease-out";
      piece.style.transform = "translate(0px, 0px)";
    }),
  );
}

// Arrows for the moves an agent weighed: {from, to, share}, thicker and darker for more share.
function drawArrows(svg, board, arrows) {
  const at = new Map(board.cells.map((c) => [c.key, c]));
  const defs = s("defs");
  const marker = s("marker", { id: "arrowhead", viewBox: "0 0 10 10", refX: "6", refY: "5", markerWidth: "4", markerHeight: "4", orient: "auto-start-reverse" });
  marker.append(s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }));
  defs.append(marker);
  svg.append(defs);
  for (const a of arrows) {
    const from = at.get(a.from);
    const to = at.get(a.to);
    if (!from || !to) continue;
    const line = s("line", {
      x1: from.x * CELL + CELL / 2, y1: from.y * CELL + CELL / 2,
      x2: to.x * CELL + CELL / 2, y2: to.y * CELL + CELL / 2,
      class: "arrow", "marker-end": "url(#arrowhead)",
      "stroke-width": 4 + 8 * a.share, opacity: 0.35 + 0.55 * a.share,
    });
    svg.append(line);
  }
}

// `marks` maps a cell key to a CSS class (selected, target, last, hinted); `onCell(cell)` is
// called on a click or Enter on a playable cell; `animate` = {from, to} slides a piece;
// `arrows` are moves to point out ({from, to, share}).
export function drawBoard(board, { marks = {}, onCell = null, animate = null, label = "board", arrows = [] } = {}) {
  const width = board.width * CELL;
  const height = board.height * CELL;
  const svg = s("svg", {
    viewBox: `${-MARGIN} -4 ${width + MARGIN + 4} ${height + MARGIN + 4}`,
    class: `board look-${board.look}`,
    role: "group",
    "aria-label": label,
  });
  if (board.look === "holes") svg.append(s("rect", { x: -4, y: -4, width: width + 8, height: height + 8, rx: 18, class: "wood" }));
  board.cols.forEach((c) => svg.append(text(c.text, c.at * CELL + CELL / 2, height + 18, "coord")));
  board.rows.forEach((r) => svg.append(text(r.text, -12, r.at * CELL + CELL / 2 + 5, "coord")));
  for (const cell of board.cells) {
    const style = cell.content ? board.styles[cell.content] : null;
    const active = onCell && cell.playable && !cell.void;
    const g = s("g", {
      class: `cell ${cell.shade ? "dark" : "light"} ${cell.playable ? "playable" : "unplayable"} ${marks[cell.key] || ""}`,
      transform: `translate(${cell.x * CELL},${cell.y * CELL})`,
      tabindex: active ? "0" : "-1",
      role: active ? "button" : "img",
      "aria-label": `${cell.name}: ${cell.void ? "hole (not part of the board)" : cell.content || "empty"}`,
      "data-cell": cell.key,
    });
    g.append(square(cell, board.look));
    if (style && style.shape !== "hole") {
      const piece = pieceOf(style);
      g.append(piece);
      if (animate && animate.to === cell.key && animate.from) slideIn(piece, board, cell, animate.from);
    }
    if (active) {
      g.addEventListener("click", () => onCell(cell));
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          onCell(cell);
        }
      });
    }
    svg.append(g);
  }
  if (arrows.length) drawArrows(svg, board, arrows);
  return svg;
}
