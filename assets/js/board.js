// Hidden Chess -- the board: chessground, drawn from the state. The overlays of a variant
// (crowns, neckties, covers, tags, highlights) come from its panel (panels/registry.js: overlay);
// a click on a square or a move on the board goes to the panels first, then to the Session.

import { Chessground } from '../vendor/chessground/chessground.min.js';
import { $, FILES, isOver, splitUnknown } from './dom.js';
import { app } from './state.js';
import { call, onCallFailed } from './bridge.js';
import { any, each, first, panels } from './panels/registry.js';
import { showPromotion } from './promotion.js';

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR';
// prefers-reduced-motion: the pieces jump instead of sliding.
const calm = () => !!(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
// The animation speed of the settings (settings.js): 0 turns it off.
const animMs = () => (app.settings && typeof app.settings.animMs === 'number' ? app.settings.animMs : 180);
// The game last drawn: another game (a new one, one of Your games, an import) is drawn at once,
// not slid from the last game's position. While pieces slide, chessground leaves the marks drawn
// on the board as they were (QA: a Reveal game's "?" stood on an imported Standard game).
let drawnGame = null;
const ROLE_OF_LETTER = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };

/** Draw the board at once (before Python is up): the saved game's position as last shown
 * (``early``: the preview's state, its marks come with the rest of the page), else the starting
 * position; movable once a state arrives. */
export function startBoard(early) {
  const el = $('board');
  const board = early ? splitUnknown(early.fen) : null;
  app.cg = Chessground(el, {
    fen: board ? board.fen : START_FEN,
    orientation: early && early.orientation === 'black' ? 'black' : 'white',
    lastMove: (early && early.lastMove) || undefined,
    coordinates: document.documentElement.dataset.coords !== 'off', // (settings.js; set in index.html)
    autoCastle: true,
    highlight: { lastMove: true, check: false },
    animation: { enabled: !calm(), duration: 180 },
    movable: { free: false, color: undefined, showDests: true, events: { after: onUserMove } },
    events: { select: onSelectSquare },
    premovable: { enabled: false },
    draggable: { enabled: true, showGhost: true },
    selectable: { enabled: true },
    drawable: { enabled: true, visible: true },
  });
  if (board && board.unknown.size) setAllPieces(board);
  el.classList.remove('board-static');
  if ('ResizeObserver' in window) new ResizeObserver(() => { if (withheld.shapes) redrawShapes(); }).observe(el);
  onCallFailed(renderBoard);
}

function toDests(obj) {
  const m = new Map();
  for (const [from, tos] of Object.entries(obj || {})) m.set(from, tos);
  return m;
}

/** Add a CSS class to a square of a chessground "custom highlight" map. */
export function addClass(map, sq, cls) {
  map.set(sq, (map.get(sq) ? map.get(sq) + ' ' : '') + cls);
}

// The square classes of the last state, and marks drawn over them between states (the keyboard
// cursor of a11y-board.js: fn(customMap)).
const marks = { custom: new Map(), hooks: [], shapes: [], shapeHooks: [] };

/** fn(shapes) adds its chessground shapes (arrows) each time the board is drawn (analysis.js). */
export function onBoardShapes(fn) {
  marks.shapeHooks.push(fn);
}

/** Draw the shapes again (a shape hook's answer changed, not the state). */
export function redrawShapes() {
  if (!app.cg) return;
  const shapes = marks.shapes.slice();
  for (const fn of marks.shapeHooks) fn(shapes);
  app.cg.setAutoShapes(sized(shapes));
}

// Chessground places a shape by the board's size: on a board with none (display: none, under a
// phone's friend card) every coordinate is NaN, and the browser logs an error for each. Such a
// board gets its shapes when it has a size again (a ResizeObserver in startBoard).
const withheld = { shapes: false };

function sized(shapes) {
  const box = $('board').getBoundingClientRect();
  withheld.shapes = shapes.length > 0 && !(box.width > 0 && box.height > 0);
  return withheld.shapes ? [] : shapes;
}

/** fn(custom) adds its classes to the square classes each time the board is drawn. */
export function onBoardMarks(fn) {
  marks.hooks.push(fn);
}

/** Draw the square classes again (a mark changed, not the state). */
export function redrawMarks() {
  if (!app.cg) return;
  const custom = new Map(marks.custom);
  for (const fn of marks.hooks) fn(custom);
  app.cg.set({ highlight: { custom } });
}

export function renderBoard(st) {
  const custom = new Map();
  const shapes = [];
  const mark = {
    cls: (sq, cls) => addClass(custom, sq, cls),
    svg: (sq, html) => shapes.push({ orig: sq, customSvg: { html } }),
  };
  each('overlay', st, mark);
  if (st.check) addClass(custom, st.check, 'check');
  marks.custom = new Map(custom);
  for (const fn of marks.hooks) fn(custom);
  marks.shapes = shapes.slice();
  for (const fn of marks.shapeHooks) fn(shapes);
  const movable = st.movable || {};
  const board = splitUnknown(st.fen);
  const still = any('stillPieces', st);
  // Against the computer, a move made while it thinks is kept as a premove and played (if legal
  // then) as soon as it has moved, as on lichess; with a friend, likewise while the friend is to
  // move (this page's own move may still await the friend's answer).
  const c = st.computer;
  const seat = st.peer && (st.peer.seat === 'white' || st.peer.seat === 'black') ? st.peer.seat : null;
  const waits = c ? !!c.thinking : !!seat && st.turnColor !== seat;
  const player = c ? c.player : seat;
  const premove = waits && !st.replay && !isOver(st) && st.phase === 'play';
  const turned = app.cg.state.orientation !== st.orientation;
  const sameGame = st.gameId === drawnGame;
  drawnGame = st.gameId;
  app.cg.set({
    ...(still ? {} : { fen: board.fen }),
    // No animation when a blank may turn into a piece (it must not linger as a fading ghost).
    animation: { enabled: sameGame && !still && !calm() && animMs() > 0, duration: animMs() },
    orientation: st.orientation,
    turnColor: st.turnColor,
    lastMove: st.lastMove || undefined,
    check: false,
    highlight: { custom },
    movable: { color: (premove ? player : movable.color) || undefined, dests: toDests(movable.dests) },
    premovable: { enabled: premove || !!app.cg.state.premovable.current },
    drawable: { autoShapes: sized(shapes) },
  });
  // Turning the board, chessground builds it anew; a redraw it had scheduled before then draws on
  // the old one, and the new one kept the shapes of the moment it turned (after a rematch, the
  // colours swapped, the last game's neckties stayed: QA). Build it once more after that redraw.
  if (turned) requestAnimationFrame(() => app.cg.redrawAll());
  if (still) setAllPieces(board);
  if (app.cg.state.premovable.current) {
    if (isOver(st) || !player || st.replay || st.phase !== 'play') app.cg.cancelPremove();
    else if (!waits && movable.color) setTimeout(() => app.cg.playPremove(), 0);
  }
}

// Put the whole position (unknown pieces included) on the board in one step, changing only
// the squares that differ.
function setAllPieces(board) {
  const cg = app.cg;
  const want = new Map(board.unknown);
  board.fen.split('/').forEach((row, r) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '8') file += Number(ch);
      else {
        const lower = ch.toLowerCase();
        want.set(`${FILES[file]}${8 - r}`, { role: ROLE_OF_LETTER[lower], color: ch === lower ? 'black' : 'white' });
        file += 1;
      }
    }
  });
  const diff = new Map();
  for (const key of cg.state.pieces.keys()) if (!want.has(key)) diff.set(key, undefined);
  for (const [key, piece] of want) {
    const cur = cg.state.pieces.get(key);
    if (!cur || cur.role !== piece.role || cur.color !== piece.color) diff.set(key, piece);
  }
  if (diff.size) cg.setPieces(diff);
}

function onUserMove(orig, dest) {
  const st = app.state;
  if (!st) return;
  const roles = (st.promotions || {})[orig + dest];
  if (roles && roles.length) {
    const conditional = first('conditionalPromotion', st, orig + dest);
    showPromotion(orig, dest, roles, conditional, () => app.state && renderBoard(app.state));
    return;
  }
  for (const p of panels) if (p.userMove && p.userMove(st, orig, dest)) return;
  call('move', { orig, dest }, { boardError: true });
}

function onSelectSquare(key) {
  const st = app.state;
  if (!st) return;
  for (const p of panels) if (p.select && p.select(st, key)) return;
}

/** The square under a pointer event (null off the board). */
export function squareAt(e) {
  const box = $('board').querySelector('cg-board');
  if (!box || !app.state) return null;
  const r = box.getBoundingClientRect();
  const col = Math.floor(((e.clientX - r.left) / r.width) * 8);
  const row = Math.floor(((e.clientY - r.top) / r.height) * 8);
  if (col < 0 || col > 7 || row < 0 || row > 7) return null;
  const white = app.state.orientation === 'white';
  return `${FILES[white ? col : 7 - col]}${white ? 8 - row : row + 1}`;
}
