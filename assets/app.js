// Hidden Chess -- the page. A thin renderer: every decision is made by the Python Session
// (py/hiddenchess/session.py) behind window.hc.call(action, argsJson) -> stateJson, set up by
// py/main.py. This file draws the state it gets back and turns clicks into actions.
//
// The board is drawn by chessground as soon as this module runs (before Python is up) and
// becomes movable when main.py sets window.hcReady and fires the "hc:ready" event.

import { Chessground } from './vendor/chessground/chessground.min.js';
import { PyWorker } from './vendor/pyscript/core.js';

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR';
const ROLE_NAMES = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight' };
const COLOR_NAMES = { white: 'White', black: 'Black' };
const LOW_TIME_MS = 20000;
// Crown badge drawn over a royal pawn (top-right corner of its square), above the piece.
const CROWN_SVG =
  '<g transform="translate(60 3) scale(1.5)" class="royal-crown">' +
  '<path d="M3 8.5l4.2 3.6L12 4.5l4.8 7.6L21 8.5l-1.9 10H4.9z" fill="#f4c430" stroke="#5a3d00" stroke-width="1.5" stroke-linejoin="round"/>' +
  '<rect x="4.9" y="18.5" width="14.2" height="2.6" rx="0.8" fill="#e0a800" stroke="#5a3d00" stroke-width="1.2"/>' +
  '<circle cx="12" cy="4.4" r="1.6" fill="#fff3c4" stroke="#5a3d00"/>' +
  '<circle cx="3" cy="8.4" r="1.4" fill="#fff3c4" stroke="#5a3d00"/>' +
  '<circle cx="21" cy="8.4" r="1.4" fill="#fff3c4" stroke="#5a3d00"/></g>';

// Necktie drawn on a secret pawn (a 100x100 square; the tie hangs from the pawn's collar).
// kind: "hidden" (known to its owner only: translucent, dashed gold outline), "revealed" (solid, striped,
// white outline), "pick" (being chosen while sealing).
function tieSvg(kind) {
  const fill = kind === 'hidden' ? 'rgba(224, 49, 43, 0.6)' : '#e0312b';
  const knot = kind === 'hidden' ? 'rgba(168, 27, 22, 0.75)' : '#a81b16';
  const dash = kind === 'hidden' ? ' stroke-dasharray="4 2.6"' : '';
  const stroke = kind === 'hidden' ? '#ffe27a' : kind === 'pick' ? '#d7ffc4' : '#fff';
  return (
    `<g class="necktie necktie-${kind}">` +
    `<path d="M37 47.5h26l-5.6 10h-14.8z" fill="${knot}" stroke="${stroke}" stroke-width="2.6" stroke-linejoin="round"${dash}/>` +
    `<path d="M42.6 57.5h14.8l7.4 25.5L50 96 35.2 83z" fill="${fill}" stroke="${stroke}" stroke-width="2.6" stroke-linejoin="round"${dash}/>` +
    (kind === 'hidden'
      ? ''
      : '<path d="M44 65.5l11.5 7.5M40.5 76l18.5 12M42.5 86.5l8 5.2" stroke="#ffd24a" stroke-width="3.2" stroke-linecap="round"/>') +
    '</g>'
  );
}
const TIE_SVG = { hidden: tieSvg('hidden'), revealed: tieSvg('revealed'), pick: tieSvg('pick') };
// The same tie for HTML (the end-of-game summary heading): a standalone 24x24 icon.
const TIE_ICON = '<img class="tie-icon" src="assets/img/necktie.svg" alt="" width="16" height="16">';

// Reveal Chess: the "?" badge on a covered piece (top-right corner of its square, above the piece),
// and the gold tag naming the role the last move drew (bottom-left corner).
const COVER_SVG =
  '<g class="cover-badge">' +
  '<circle cx="79" cy="21" r="17" fill="#2f6fb0" stroke="#fff" stroke-width="4"/>' +
  '<path d="M73 16.5a6.2 6.2 0 1 1 8.8 5.6c-1.8.9-2.8 2-2.8 4v1.2" fill="none" stroke="#fff" stroke-width="4.6" stroke-linecap="round" stroke-linejoin="round"/>' +
  '<circle cx="79" cy="33.2" r="2.9" fill="#fff"/></g>';
const ROLE_LETTERS = ['q', 'r', 'b', 'n', 'p'];
const ROLE_LETTER_OF = { queen: 'Q', rook: 'R', bishop: 'B', knight: 'N', pawn: 'P' };
const POOL_NAMES = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', p: 'Pawn' };
function drawnTagSvg(role) {
  return (
    '<g class="drawn-tag">' +
    '<rect x="3" y="66" width="31" height="31" rx="7" fill="#ffc400" stroke="#5a3d00" stroke-width="3"/>' +
    `<text x="18.5" y="90" text-anchor="middle" font-family="system-ui, sans-serif" font-weight="800" font-size="24" fill="#3a2600">${role}</text></g>`
  );
}

const $ = id => document.getElementById(id);

// Hidden Identity Chess: the tray of pieces to place, and piece names for the captured tray.
const PLACE_ROLES = ['k', 'q', 'r', 'b', 'n', 'p'];
const PIECE_OF = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
const PIECE_TITLE = { k: 'King', q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', p: 'Pawn' };
let placeRole = null; // the tray piece picked while placing (not yet put on a square)
let noteShownFor = null; // gameId|ply|note of the last note (en passant, tabletop discovery) shown
let penaltyChoice = []; // tabletop rules: enemy squares picked as the penalty (not yet sent)
let penaltyFor = null; // gameId|ply|seat the picks belong to

// A board whose placement holds "?" (unknown white piece) and "*" (unknown black piece):
// chessground reads the rest, the unknown pieces are put on with the role "unknown".
function splitUnknown(fen) {
  const unknown = new Map();
  fen.split('/').forEach((row, r) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '8') file += Number(ch);
      else {
        if (ch === '?' || ch === '*') {
          unknown.set(`${'abcdefgh'[file]}${8 - r}`, { role: 'unknown', color: ch === '?' ? 'white' : 'black' });
        }
        file += 1;
      }
    }
  });
  return { fen: fen.replace(/[?*]/g, '1'), unknown };
}

let cg = null;
let state = null; // last state from the Session
let ready = false;
let pendingPromotion = null; // {orig, dest, roles}
let bannerDismissedFor = null; // key of the game-over the player closed
let lastTickCall = 0;
let toastTimer = 0;
let noticeDismissed = null;
let sealChoice = []; // squares the player at the device has picked while sealing (not yet sent)
let sealFor = null; // gameId|seat the picks belong to
let boardToastTimer = 0;
let aiWorker = null; // Promise of the PyScript worker running py/worker.py (started on demand)
let aiJob = null; // "game|ply" of the request the worker is answering
let aiShownMessage = null; // the computer's last draw answer already shown

// ------------------------------------------------------------------ board

function startBoard() {
  const el = $('board');
  cg = Chessground(el, {
    fen: START_FEN,
    orientation: 'white',
    coordinates: true,
    autoCastle: true,
    highlight: { lastMove: true, check: false },
    animation: { enabled: true, duration: 180 },
    movable: { free: false, color: undefined, showDests: true, events: { after: onUserMove } },
    events: { select: onSelectSquare },
    premovable: { enabled: false },
    draggable: { enabled: true, showGhost: true },
    selectable: { enabled: true },
    drawable: { enabled: true, visible: true },
  });
  el.classList.remove('board-static');
}

function toDests(obj) {
  const m = new Map();
  for (const [from, tos] of Object.entries(obj || {})) m.set(from, tos);
  return m;
}

function addClass(map, sq, cls) {
  map.set(sq, (map.get(sq) ? map.get(sq) + ' ' : '') + cls);
}

function renderBoard(st) {
  const custom = new Map();
  const shapes = [];
  for (const sq of st.royal || []) {
    custom.set(sq, 'royal');
    shapes.push({ orig: sq, customSvg: { html: CROWN_SVG } });
  }
  const sec = st.secrets;
  if (sec && !st.handover) {
    const revealed = new Set(sec.revealed || []);
    for (const sq of sec.visible || []) {
      const kind = revealed.has(sq) ? 'revealed' : 'hidden';
      addClass(custom, sq, `secret-${kind}`);
      shapes.push({ orig: sq, customSvg: { html: TIE_SVG[kind] } });
    }
    for (const r of sec.last || []) addClass(custom, r.square, 'reveal');
  }
  const rv = st.reveal;
  if (rv) {
    for (const sq of rv.covered || []) {
      addClass(custom, sq, 'covered');
      shapes.push({ orig: sq, customSvg: { html: COVER_SVG } });
    }
    for (const r of rv.last || []) {
      addClass(custom, r.square, 'reveal');
      shapes.push({ orig: r.square, customSvg: { html: drawnTagSvg(ROLE_LETTER_OF[r.role] || '?') } });
    }
  }
  if (st.sealing) {
    for (const sq of st.sealing.candidates) addClass(custom, sq, sealChoice.includes(sq) ? 'seal-chosen' : 'seal-candidate');
    for (const sq of sealChoice) shapes.push({ orig: sq, customSvg: { html: TIE_SVG.pick } });
  }
  const pen = st.tabletop && st.tabletop.penalty;
  if (pen && pen.mine) {
    for (const [sq, c] of Object.entries(pieceColors(st.fen))) {
      if (c !== pen.by) addClass(custom, sq, penaltyChoice.includes(sq) ? 'penalty-chosen' : 'penalty-candidate');
    }
  }
  if (st.placing) {
    for (const sq of st.placing.squares) if (!st.placing.draft[sq]) addClass(custom, sq, 'place-target');
  }
  if (st.check) addClass(custom, st.check, 'check');
  const movable = st.movable || {};
  const board = splitUnknown(st.fen);
  const blanks = !!st.identity;
  cg.set({
    ...(blanks ? {} : { fen: board.fen }),
    // Hidden Identity: no animation (a blank turning into a piece must not linger as a fading ghost).
    animation: { enabled: !blanks, duration: 180 },
    orientation: st.orientation,
    turnColor: st.turnColor,
    lastMove: st.lastMove || undefined,
    check: false,
    highlight: { custom },
    movable: { color: movable.color || undefined, dests: toDests(movable.dests) },
    drawable: { autoShapes: shapes },
  });
  if (blanks) setAllPieces(board);
}

// Hidden Identity: put the whole position (blanks included) on the board in one animated step.
function setAllPieces(board) {
  const want = new Map(board.unknown);
  const letters = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
  board.fen.split('/').forEach((row, r) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '8') file += Number(ch);
      else {
        const lower = ch.toLowerCase();
        want.set(`${'abcdefgh'[file]}${8 - r}`, { role: letters[lower], color: ch === lower ? 'black' : 'white' });
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
  if (!state) return;
  const roles = (state.promotions || {})[orig + dest];
  if (roles && roles.length) {
    const conditional = !!(state.reveal && (state.reveal.conditional || []).includes(orig + dest));
    showPromotion(orig, dest, roles, conditional);
    return;
  }
  const bluffs = (state.tabletop && state.tabletop.bluffs) || {};
  if ((bluffs[orig] || []).includes(dest)) {
    // Tabletop rules: a move this piece cannot legally make is played only once confirmed.
    const asked = state;
    confirmDialog('Illegal move?', 'This piece cannot move there: play it anyway?', 'Play it anyway').then(yes => {
      if (state !== asked) return;
      if (yes) call('move', { orig, dest, allow_illegal: true }, { boardError: true });
      else renderBoard(state);
    });
    return;
  }
  call('move', { orig, dest }, { boardError: true });
}

// The colour of every piece of a board, unknown pieces ("?" / "*") included.
function pieceColors(fen) {
  const board = splitUnknown(fen);
  const out = boardColors(board.fen);
  for (const [sq, p] of board.unknown) out[sq] = p.color;
  return out;
}

// Tabletop rules: the wronged player picks (or unpicks) an enemy piece to remove.
function onPenaltySquare(key) {
  const pen = state.tabletop.penalty;
  const color = pieceColors(state.fen)[key];
  const enemy = !!color && color !== pen.by;
  if (!enemy) {
    showBoardToast(`Pick ${pen.count === 1 ? 'an enemy piece' : `${pen.count} enemy pieces`} to remove.`);
    return;
  }
  if (penaltyChoice.includes(key)) penaltyChoice = penaltyChoice.filter(s => s !== key);
  else if (penaltyChoice.length < pen.count) penaltyChoice = [...penaltyChoice, key];
  else {
    showBoardToast(`You have already picked ${pen.count}: click one of them to unpick it.`);
    return;
  }
  renderPenalty(state);
  renderBoard(state);
}

function renderPenalty(st) {
  const pen = st.tabletop && st.tabletop.penalty;
  const mine = !!(pen && pen.mine && !st.handover);
  $('penalty-panel').hidden = !mine;
  $('board').classList.toggle('is-penalty', mine);
  if (!mine) return;
  const n = pen.count;
  $('penalty-title').textContent = `${COLOR_NAMES[pen.by]}: choose ${n} enemy piece${n === 1 ? '' : 's'} to remove`;
  $('penalty-chosen').textContent = `Chosen: ${penaltyChoice.length ? penaltyChoice.join(', ') : 'none'}`;
  $('penalty-submit').disabled = penaltyChoice.length !== n;
}

function renderTabletopSummary(st) {
  const box = $('tabletop-summary');
  const list = (st.tabletop && st.tabletop.illegalMoves) || [];
  const show = !!(st.tabletop && st.status && st.status.over);
  box.hidden = !show;
  if (!show) return;
  box.replaceChildren();
  const h = document.createElement('h3');
  h.textContent = 'Illegal moves';
  box.appendChild(h);
  if (!list.length) {
    const p = document.createElement('p');
    p.textContent = 'None: every move was legal.';
    box.appendChild(p);
    return;
  }
  const FOUND = { 'on-board': 'found on the board', 'on-capture': 'found on capture', 'at-end': 'disclosed at the end' };
  const ul = document.createElement('ul');
  for (const m of list) {
    const li = document.createElement('li');
    li.dataset.uci = m.uci;
    li.textContent = `${COLOR_NAMES[m.color]}, move ${Math.floor(m.ply / 2) + 1}: ${m.uci} (${FOUND[m.found] || m.found})`;
    ul.appendChild(li);
  }
  box.appendChild(ul);
}

// While sealing, a click on one of the player's original pawns picks or unpicks it.
function onSelectSquare(key) {
  if (state && state.placing) return onPlaceSquare(key);
  if (state && state.tabletop && state.tabletop.penalty && state.tabletop.penalty.mine && !state.handover) {
    return onPenaltySquare(key);
  }
  if (state && state.identity) showCandidates(key);
  if (!state || !state.sealing) return;
  if (!state.sealing.candidates.includes(key)) {
    showSealError('Pick one of your own pawns on its starting square.');
    return;
  }
  if (sealChoice.includes(key)) sealChoice = sealChoice.filter(s => s !== key);
  else if (sealChoice.length < state.sealing.count) sealChoice = [...sealChoice, key];
  else {
    showSealError(`You have already picked ${state.sealing.count} pawns: click one of them to unpick it.`);
    return;
  }
  $('seal-error').hidden = true;
  renderSeal(state);
  renderBoard(state);
}

// Hidden Identity setup: a click on a placed piece takes it back (and picks it up); a click on a
// free home square puts the picked tray piece there.
function onPlaceSquare(key) {
  const p = state.placing;
  const here = p.draft[key];
  if (here) {
    const st = call('place', { square: key, role: null }, { quiet: true });
    if (st && !st.error) placeRole = here;
  } else if (!p.squares.includes(key)) {
    showPlaceError(homeRowsText(p.seat));
    return;
  } else if (!placeRole) {
    showPlaceError('Pick a piece in the tray first.');
    return;
  } else {
    const st = call('place', { square: key, role: placeRole }, { quiet: true });
    if (st && st.error) return showPlaceError(st.error);
    if (st && st.placing && !st.placing.left[placeRole]) placeRole = null;
  }
  $('place-error').hidden = true;
  renderPlace(state);
}

function showPlaceError(text) {
  $('place-error').textContent = text;
  $('place-error').hidden = false;
}

function renderPlace(st) {
  const p = st.placing;
  $('place-panel').hidden = !p;
  if (!p) {
    placeRole = null;
    return;
  }
  $('place-title').textContent = `${COLOR_NAMES[p.seat]}: place your 16 pieces`;
  const tray = $('place-tray');
  tray.replaceChildren();
  if (placeRole && !p.left[placeRole]) placeRole = null;
  for (const r of PLACE_ROLES) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.role = r;
    b.disabled = !p.left[r];
    b.setAttribute('aria-pressed', String(placeRole === r));
    b.setAttribute('aria-label', `${PIECE_TITLE[r]} (${p.left[r]} left)`);
    b.title = `${PIECE_TITLE[r]}: ${p.left[r]} left`;
    const piece = document.createElement('piece');
    piece.className = `${PIECE_OF[r]} ${p.seat}`;
    const left = document.createElement('span');
    left.className = 'left';
    left.textContent = String(p.left[r]);
    b.append(piece, left);
    b.addEventListener('click', () => {
      placeRole = placeRole === r ? null : r;
      $('place-error').hidden = true;
      renderPlace(state);
    });
    b.addEventListener('mousedown', e => pressPlacePiece(e, r, 'tray'));
    b.addEventListener('touchstart', e => pressPlacePiece(e, r, 'tray'), { passive: true });
    tray.appendChild(b);
  }
  const placed = Object.keys(p.draft).length;
  $('place-count').textContent = `${placed} of 16 placed`;
  $('place-confirm').disabled = !p.complete;
  $('place-clear').disabled = !placed;
}

// Hidden Identity setup by dragging, with a mouse or a finger: a tray piece onto a home square
// (a piece already there goes back to the tray), a placed piece onto another home square (a piece
// there swaps with it) or off the board (back to the tray). A press that does not move stays a
// click (tray: pick the piece; board: take it back and pick it up). Chessground draws the piece
// under the pointer (dragNewPiece, which it cannot drop itself: nothing is movable while placing);
// the drop is decided here and sent to the Session.
const DRAG_START_PX = 6;
let placeDrag = null; // {role, from: 'tray' | square, x, y, started}

function pointerXY(e) {
  const t = (e.touches && e.touches[0]) || (e.changedTouches && e.changedTouches[0]);
  return t ? [t.clientX, t.clientY] : [e.clientX, e.clientY];
}

function pressPlacePiece(e, role, from) {
  if (!state || !state.placing || state.handover || (e.type === 'mousedown' && e.button !== 0)) return;
  if (from === 'tray' && !state.placing.left[role]) return;
  const [x, y] = pointerXY(e);
  placeDrag = { role, from, x, y, started: false };
}

// A press on a placed piece is ours (chessground would select the square and fire a click at once).
function onPlaceBoardPress(e) {
  if (!state || !state.placing || state.handover || (e.type === 'mousedown' && e.button !== 0)) return;
  const key = cg.getKeyAtDomPos(pointerXY(e));
  const role = key && state.placing.draft[key];
  if (!role) return; // a free square: chessground's select -> onPlaceSquare (click placement)
  e.stopPropagation();
  if (e.cancelable) e.preventDefault(); // no scrolling, no mouse events copied from the touch
  pressPlacePiece(e, role, key);
}

function movePlaceDrag(e) {
  const d = placeDrag;
  if (!d) return;
  if (e.type === 'mousemove' && !(e.buttons & 1)) {
    // The button went up where we could not see it (outside the window): forget the drag.
    placeDrag = null;
    if (d.started && state) renderBoard(state);
    return;
  }
  const [x, y] = pointerXY(e);
  if (e.type === 'touchmove' && e.cancelable) e.preventDefault();
  if (d.started || Math.hypot(x - d.x, y - d.y) < DRAG_START_PX) return;
  d.started = true;
  if (d.from !== 'tray') cg.setPieces(new Map([[d.from, undefined]])); // lifted off its square
  cg.dragNewPiece({ role: PIECE_OF[d.role], color: state.placing.seat }, e);
}

function endPlaceDrag(e) {
  const d = placeDrag;
  placeDrag = null;
  if (!d || !state || !state.placing) return;
  if (e.type === 'touchcancel') return renderBoard(state);
  const key = d.started ? cg.getKeyAtDomPos(pointerXY(e)) : d.from === 'tray' ? null : d.from;
  dropPlacePiece(d, key);
}

// Where a dragged piece lands: key is a square of the board, or null/undefined off the board.
function dropPlacePiece(d, key) {
  const p = state.placing;
  let st = null;
  if (!d.started) {
    if (d.from === 'tray') return; // a click on the tray: its click handler picks the piece
    st = call('place', { square: d.from, role: null }, { quiet: true }); // a click: take it back
    if (st && !st.error) placeRole = d.role;
  } else if (!key) {
    if (d.from === 'tray') return renderBoard(state);
    st = call('place', { square: d.from, role: null }, { quiet: true }); // off the board
  } else if (!p.squares.includes(key)) {
    renderBoard(state);
    return showPlaceError(homeRowsText(p.seat));
  } else if (d.from === 'tray') {
    st = call('place', { square: key, role: d.role }, { quiet: true });
  } else if (key === d.from) {
    return renderBoard(state);
  } else {
    st = call('move_placed', { orig: d.from, dest: key }, { quiet: true });
  }
  if (!st) return;
  if (st.error) return showPlaceError(st.error);
  $('place-error').hidden = true;
  renderPlace(state);
}

function homeRowsText(seat) {
  return `Place your pieces on your two home rows (rows ${seat === 'white' ? '1 and 2' : '7 and 8'}).`;
}

$('board').addEventListener('mousedown', onPlaceBoardPress, { capture: true });
$('board').addEventListener('touchstart', onPlaceBoardPress, { capture: true, passive: false });
document.addEventListener('mousemove', movePlaceDrag);
document.addEventListener('touchmove', movePlaceDrag, { passive: false });
document.addEventListener('mouseup', endPlaceDrag);
document.addEventListener('touchend', endPlaceDrag);
document.addEventListener('touchcancel', endPlaceDrag);

// Hidden Identity: what an enemy piece of unknown identity may be ("N or B or P"), shown over
// its square on hover (mouse) or tap.
function showCandidates(key) {
  const tip = $('cand-tip');
  const text = state && state.identity && state.identity.candidatesText[key];
  if (!text || state.handover) {
    tip.hidden = true;
    return;
  }
  const file = key.charCodeAt(0) - 97;
  const rank = Number(key[1]) - 1;
  const white = state.orientation === 'white';
  const col = white ? file : 7 - file;
  const row = white ? 7 - rank : rank;
  tip.textContent = text;
  tip.dataset.square = key;
  tip.style.left = `${(col + 0.5) * 12.5}%`;
  tip.style.top = `${row * 12.5}%`;
  tip.hidden = false;
}

function squareAt(e) {
  const box = $('board').querySelector('cg-board');
  if (!box || !state) return null;
  const r = box.getBoundingClientRect();
  const col = Math.floor(((e.clientX - r.left) / r.width) * 8);
  const row = Math.floor(((e.clientY - r.top) / r.height) * 8);
  if (col < 0 || col > 7 || row < 0 || row > 7) return null;
  const white = state.orientation === 'white';
  return `${'abcdefgh'[white ? col : 7 - col]}${white ? 8 - row : row + 1}`;
}

$('board').addEventListener('mousemove', e => {
  if (!state || !state.identity) return;
  const key = squareAt(e);
  if (key && state.identity.candidatesText[key]) showCandidates(key);
  else $('cand-tip').hidden = true;
});
$('board').addEventListener('mouseleave', () => ($('cand-tip').hidden = true));

function showSealError(text) {
  $('seal-error').textContent = text;
  $('seal-error').hidden = false;
}

// ------------------------------------------------------------------ promotion picker

// conditional: a covered piece goes to the last rank (Reveal Chess): the choice is made before the
// move and applies only if the piece reveals a Pawn.
function showPromotion(orig, dest, roles, conditional = false) {
  pendingPromotion = { orig, dest, roles };
  const color = state.turnColor;
  const picker = $('promo-picker');
  picker.replaceChildren();
  const asWhite = state.orientation === 'white';
  const file = dest.charCodeAt(0) - 97;
  const rank = parseInt(dest.slice(1), 10) - 1;
  const col = asWhite ? file : 7 - file;
  const row = asWhite ? 7 - rank : rank; // 0 = top row on screen
  picker.style.left = `${col * 12.5}%`;
  const fromTop = row < 4;
  picker.classList.toggle('from-bottom', !fromTop);
  picker.style.top = fromTop ? `${row * 12.5}%` : '';
  picker.style.bottom = fromTop ? '' : `${(7 - row) * 12.5}%`;
  const note = $('promo-note');
  note.hidden = !conditional;
  note.classList.toggle('at-top', !fromTop); // on the half of the board the picker leaves free
  $('promo').classList.toggle('is-conditional', conditional);
  for (const r of roles) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.role = r;
    b.setAttribute('aria-label', conditional
      ? `Promote to ${ROLE_NAMES[r] || r} if it reveals a Pawn`
      : `Promote to ${ROLE_NAMES[r] || r}`);
    const p = document.createElement('piece');
    p.className = `${ROLE_NAMES[r] || r} ${color}`;
    b.appendChild(p);
    b.addEventListener('click', () => choosePromotion(r));
    picker.appendChild(b);
  }
  $('promo').hidden = false;
  picker.querySelector('button')?.focus();
}

function choosePromotion(role) {
  const p = pendingPromotion;
  hidePromotion();
  if (p) call('move', { orig: p.orig, dest: p.dest, promotion: role }, { boardError: true });
}

function cancelPromotion() {
  hidePromotion();
  if (state) renderBoard(state); // put the pawn back
}

function hidePromotion() {
  pendingPromotion = null;
  $('promo').hidden = true;
}

$('promo').addEventListener('click', e => {
  if (e.target === $('promo')) cancelPromotion();
});
$('promo').addEventListener('keydown', e => {
  const buttons = [...$('promo-picker').querySelectorAll('button')];
  const i = buttons.indexOf(document.activeElement);
  if (e.key === 'Escape') {
    e.preventDefault();
    cancelPromotion();
  } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    const down = e.key === 'ArrowDown' !== $('promo-picker').classList.contains('from-bottom');
    const next = (i + (down ? 1 : buttons.length - 1)) % buttons.length;
    buttons[next].focus();
  } else if (e.key === 'Tab') {
    e.preventDefault();
    buttons[(i + (e.shiftKey ? buttons.length - 1 : 1)) % buttons.length].focus();
  }
});

// ------------------------------------------------------------------ calling the Session

function call(action, args = {}, { quiet = false, boardError = false } = {}) {
  if (!ready) return null;
  let st;
  try {
    st = JSON.parse(window.hc.call(action, JSON.stringify(args)));
  } catch (err) {
    console.error(err);
    showToast(`Something went wrong: ${err && err.message ? err.message.split('\n').slice(-2).join(' ') : err}`);
    if (state) renderBoard(state);
    return null;
  }
  render(st, { quiet: quiet || (boardError && !!st.error) });
  if (boardError && st.error) showBoardToast(st.error);
  friendAfterCall(st); // friend play: send the protocol messages this call queued
  return st;
}

// ------------------------------------------------------------------ rendering

function render(st, { quiet = false } = {}) {
  state = st;
  hidePromotion();
  const sealKey = st.sealing ? `${st.gameId}|${st.sealing.seat}` : null;
  if (sealKey !== sealFor) {
    sealFor = sealKey;
    sealChoice = [];
    $('seal-error').hidden = true;
  }
  const pen = st.tabletop && st.tabletop.penalty;
  const penKey = pen && pen.mine ? `${st.gameId}|${(st.moves || []).length}|${pen.by}` : null;
  if (penKey !== penaltyFor) {
    penaltyFor = penKey;
    penaltyChoice = [];
  }
  renderBoard(st);
  renderPlayers(st);
  renderMoves(st);
  renderStatus(st);
  renderBanner(st);
  renderNotice(st);
  renderClaim(st);
  renderHandover(st);
  renderSeal(st);
  renderPlace(st);
  renderTrays(st);
  renderPools(st);
  renderSummary(st);
  renderPenalty(st);
  renderTabletopSummary(st);
  renderReplay(st);
  $('chk-autoflip').checked = !!st.autoFlip;
  $('layout').dataset.orientation = st.orientation;
  $('game-title').textContent = [st.variant && st.variant.name, st.clock ? st.clock.label : 'no clock']
    .filter(Boolean)
    .join(' · ');
  document.body.dataset.variant = st.variant ? st.variant.id : '';
  document.body.dataset.over = st.status && st.status.over ? 'true' : 'false';
  document.body.dataset.viewer = st.viewer || '';
  $('board').classList.toggle('is-sealing', !!st.sealing);
  document.body.dataset.replay = st.replay ? st.replay.perspective : '';
  renderComputer(st);
  renderFriend(st);
  $('cand-tip').hidden = true;
  $('board').classList.toggle('is-placing', !!st.placing);
  if (st.error && !quiet) showToast(st.error);
  else if (st.identity && st.identity.lastNote && !st.replay) {
    const key = `${st.gameId}|${(st.moves || []).length}|${st.identity.lastNote}`;
    if (noteShownFor !== key) {
      noteShownFor = key;
      showToast(st.identity.lastNote);
    }
  }
  updateClocks();
  think(st);
}

// ------------------------------------------------------------------ the computer opponent

// The computer thinks in a Web Worker (py/worker.py) so the page never blocks. It gets only the
// request of state.computer: the view of the computer's seat and the level, never the game. Its
// answer goes back through the Session (action computer_move), which checks it like any move.
function startWorker() {
  if (!aiWorker) {
    const version = new URL('./vendor/pyodide/pyodide.mjs', import.meta.url).href;
    aiWorker = PyWorker('./py/worker.py', { config: './pyscript.toml', version });
    aiWorker.then(() => {
      document.body.dataset.aiReady = 'true';
      if (state) renderComputer(state);
    }, () => {});
  }
  return aiWorker;
}

function think(st) {
  const c = st.computer;
  if (!c) return;
  startWorker();
  const req = c.request;
  if (!req) return;
  const key = `${req.game}|${req.ply}`;
  if (aiJob === key) return;
  aiJob = key;
  startWorker()
    .then(w => w.sync.choose(JSON.stringify(req.view), req.level))
    .then(text => {
      const answer = JSON.parse(text);
      if (aiJob === key) aiJob = null; // done: the same ply may be asked again after a takeback
      const cur = state && state.computer && state.computer.request;
      if (!cur || `${cur.game}|${cur.ply}` !== key) return; // a takeback or a new game meanwhile
      if (answer.error) {
        showToast(`The computer could not move: ${answer.error}`);
        return;
      }
      call('computer_move', { uci: answer.uci, ply: req.ply, game: req.game, score: answer.score });
    })
    .catch(err => {
      console.error(err);
      if (aiJob === key) aiJob = null;
      showToast(`The computer could not start: ${err && err.message ? err.message : err}`);
    });
}

function renderComputer(st) {
  const c = st.computer;
  const thinking = !!(c && c.thinking);
  $('thinking').hidden = !thinking;
  if (thinking) {
    $('thinking-text').textContent = document.body.dataset.aiReady === 'true'
      ? `The computer (level ${c.level}) is thinking…`
      : 'The computer is getting ready…';
  }
  document.body.dataset.computer = c ? c.seat : '';
  document.body.dataset.thinking = thinking ? 'true' : 'false';
  const over = !!(st.status && st.status.over);
  const canTakeBack = !!c && !thinking && (st.moves || []).some(m => m.color === c.player) &&
    !(over && ['resignation', 'agreement', 'timeout', 'timeout-insufficient-material'].includes(st.status.reason));
  $('btn-takeback').hidden = !c;
  $('btn-takeback').disabled = !canTakeBack;
  if (c && c.message && c.message !== aiShownMessage) showToast(c.message);
  aiShownMessage = c ? c.message : null;
}

function playerEl(color) {
  if (!state) return null;
  return color === state.orientation ? $('player-bottom') : $('player-top');
}

function renderPlayers(st) {
  const over = !!(st.status && st.status.over);
  for (const color of ['white', 'black']) {
    const el = playerEl(color);
    el.dataset.color = color;
    el.setAttribute('aria-label', `${COLOR_NAMES[color]} player`);
    const comp = st.computer;
    el.querySelector('.player-name').textContent = !comp ? COLOR_NAMES[color]
      : comp.seat === color ? `Computer · level ${comp.level}` : 'You';
    el.classList.toggle('is-computer', !!comp && comp.seat === color);
    el.querySelector('.player-actions').hidden = !!comp && comp.seat === color;
    // Before the first move (pieces placed, secret pawns chosen) the marker goes to whoever sets up.
    const setup = !over && st.phase === 'setup';
    const setupSeat = setup ? ((st.placing || st.sealing || {}).seat || (st.handover && st.handover.to)) : null;
    const turn = setup ? setupSeat === color : !over && st.turnColor === color;
    el.classList.toggle('is-turn', turn);
    el.querySelector('.to-move').textContent = !turn ? ''
      : setup ? (st.identity ? 'placing pieces' : 'choosing pawns') : 'to move';
    const resign = el.querySelector('.act-resign');
    resign.disabled = over;
    resign.setAttribute('aria-label', `Resign (${COLOR_NAMES[color]})`);
    resign.title = `${COLOR_NAMES[color]} resigns`;
    resign.dataset.color = color;
    const draw = el.querySelector('.act-draw');
    const offered = st.drawOffer === color;
    draw.disabled = over || !!st.drawOffer;
    draw.classList.toggle('is-offered', offered);
    draw.setAttribute('aria-label', offered ? `${COLOR_NAMES[color]} offered a draw` : `Offer a draw (${COLOR_NAMES[color]})`);
    draw.title = offered ? 'Draw offered' : `${COLOR_NAMES[color]} offers a draw`;
    draw.dataset.color = color;
    const clock = el.querySelector('.clock');
    clock.hidden = !st.clock;
    el.classList.toggle('has-clock', !!st.clock);
    clock.dataset.color = color;
    clock.setAttribute('aria-label', `${COLOR_NAMES[color]}'s clock`);
  }
  $('offer').hidden = !st.drawOffer || over;
  if (st.drawOffer && !over) {
    const other = st.drawOffer === 'white' ? 'black' : 'white';
    $('offer-text').textContent = `${COLOR_NAMES[st.drawOffer]} offers a draw. ${COLOR_NAMES[other]}?`;
    $('btn-accept').dataset.color = other;
    $('btn-decline').dataset.color = other;
  }
}

function renderMoves(st) {
  const ol = $('moves');
  ol.replaceChildren();
  const moves = st.moves || [];
  if (!moves.length) {
    const hint = document.createElement('li');
    hint.className = 'empty-hint';
    hint.textContent = 'No moves yet.';
    ol.appendChild(hint);
    return;
  }
  let li = null;
  moves.forEach((m, i) => {
    // each <li> is one move number: "12." White's move, Black's move ("…" stands in for a missing one)
    if (m.color === 'white' || !li) {
      li = document.createElement('li');
      const num = document.createElement('span');
      num.className = 'num';
      num.textContent = `${m.number}.`;
      li.appendChild(num);
      if (m.color === 'black') {
        const dots = document.createElement('span');
        dots.className = 'san';
        dots.textContent = '…';
        li.appendChild(dots);
      }
      ol.appendChild(li);
    }
    const san = document.createElement('span');
    san.className = 'san';
    san.textContent = m.san;
    san.dataset.uci = m.uci;
    san.dataset.ply = String(m.ply);
    if (m.san.includes('**') || m.san.includes('?')) san.classList.add('has-reveal');
    const note = st.identity && st.identity.notes[String(m.ply)];
    if (note) {
      san.classList.add('has-note');
      san.title = note;
      if (st.tabletop && /illegal move|removes/.test(note)) san.classList.add('has-illegal');
    }
    if (st.status && st.status.over) {
      san.classList.add('is-link');
      san.setAttribute('role', 'button');
      san.tabIndex = 0;
    }
    if (i === (st.replay ? st.replay.ply - 1 : moves.length - 1)) {
      san.classList.add('is-current');
      san.setAttribute('aria-current', 'step');
    }
    li.appendChild(san);
    if (m.color === 'black') li = null;
  });
  // keep the current move in view: vertically on desktop, horizontally on phones
  const cur = ol.querySelector('.is-current');
  if (st.replay) {
    if (cur) cur.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  } else {
    ol.scrollTop = ol.scrollHeight;
    ol.scrollLeft = ol.scrollWidth;
  }
}

function renderStatus(st) {
  const line = $('status-line');
  const s = st.status || {};
  line.classList.toggle('is-over', !!s.over);
  line.classList.toggle('is-check', !s.over && !!st.check);
  line.hidden = !!s.over; // the result line under the moves says it then
  if (!s.over) {
    if (st.handover) {
      line.textContent = `Pass the device to ${COLOR_NAMES[st.handover.to]}`;
    } else if (st.phase === 'setup' && st.identity) {
      line.textContent = st.placing ? `${COLOR_NAMES[st.placing.seat]} places the pieces` : 'Placing the pieces';
    } else if (st.phase === 'setup') {
      line.textContent = st.sealing ? `${COLOR_NAMES[st.sealing.seat]} chooses secret pawns` : 'Choosing secret pawns';
    } else {
      const who = st.computer ? (st.turnColor === st.computer.seat ? 'Computer' : 'You') : '';
      line.textContent = who
        ? `${who} (${COLOR_NAMES[st.turnColor]}) to move${st.check ? ' · check!' : ''}`
        : `${COLOR_NAMES[st.turnColor]} to move${st.check ? ' · check!' : ''}`;
    }
  }
  const res = $('result-line');
  res.hidden = !s.over;
  if (s.over) {
    res.replaceChildren();
    const strong = document.createElement('strong');
    strong.textContent = s.result;
    res.appendChild(strong);
    res.appendChild(document.createTextNode(s.message || ''));
  }
}

function gameOverKey(st) {
  return st.status && st.status.over ? `${st.gameId}|${st.status.result}|${st.status.reason}` : null;
}

function renderBanner(st) {
  const key = gameOverKey(st);
  const show = !!key && key !== bannerDismissedFor;
  $('banner').hidden = !show;
  if (show) {
    $('banner-result').textContent = st.status.result;
    $('banner-title').textContent = st.status.message;
  }
}

function renderNotice(st) {
  const text = st.warning || st.notice;
  const el = $('notice');
  if (!text || text === noticeDismissed) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  el.classList.toggle('is-warning', !!st.warning);
  $('notice-text').textContent = text;
  $('notice-text').title = (!st.warning && st.noticeDetail) || '';
  $('notice-download').hidden = !!st.warning || !st.corrupt;
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function renderClaim(st) {
  const c = st.claim || {};
  const can = !!(c.now || (c.moves && c.moves.length));
  const over = st.status && st.status.over;
  const btn = $('btn-claim');
  btn.hidden = !can || over;
  btn.textContent = c.now ? `Claim draw (${COLOR_NAMES[st.turnColor]})` : `Claim draw with a move (${COLOR_NAMES[st.turnColor]})`;
}

// ------------------------------------------------------------------ clocks

function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < LOW_TIME_MS) {
    const tenths = Math.floor(ms / 100);
    const s = Math.floor(tenths / 10);
    return `0:${String(s).padStart(2, '0')}.${tenths % 10}`;
  }
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
}

function remaining(color, now) {
  const c = state.clock;
  let ms = c[color];
  if (c.running === color) ms -= now - c.at;
  return Math.max(0, ms);
}

function updateClocks() {
  if (!state || !state.clock) return;
  const now = Date.now();
  const over = state.status && state.status.over;
  let flagged = false;
  for (const color of ['white', 'black']) {
    const el = playerEl(color).querySelector('.clock');
    const ms = remaining(color, now);
    el.querySelector('.time').textContent = fmtClock(ms);
    const running = !over && state.clock.running === color;
    el.classList.toggle('is-running', running);
    el.classList.toggle('is-low', ms < LOW_TIME_MS);
    el.classList.toggle('is-flagged', ms <= 0 && (over || running));
    if (running && ms <= 0) flagged = true;
  }
  // The display reached zero: ask the Session, which decides (and ends the game on a flag).
  if (flagged && ready && now - lastTickCall > 250) {
    lastTickCall = now;
    call('tick');
  }
}

setInterval(updateClocks, 100);

// ------------------------------------------------------------------ notices

function showToast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 4500);
}

function hideToasts() {
  clearTimeout(toastTimer);
  clearTimeout(boardToastTimer);
  $('toast').hidden = true;
  $('board-toast').hidden = true;
}

function showBoardToast(text) {
  const t = $('board-toast');
  t.textContent = text;
  t.hidden = false;
  t.classList.remove('is-shown'); // restart the one-off fade-in
  void t.offsetWidth;
  t.classList.add('is-shown');
  clearTimeout(boardToastTimer);
  boardToastTimer = setTimeout(() => (t.hidden = true), 3500);
}

// ------------------------------------------------------------------ hidden information

function renderHandover(st) {
  const h = st.handover;
  $('handover').hidden = !h;
  if (!h) return;
  const who = COLOR_NAMES[h.to];
  $('handover-title').textContent = `Pass the device to ${who}`;
  let text;
  if (h.for === 'seal') {
    text = `${who} chooses two secret pawns in private.`;
  } else if (h.for === 'place') {
    text = `${who} places their 16 pieces in private.`;
  } else if (h.for === 'penalty') {
    const pen = st.tabletop && st.tabletop.penalty;
    const n = pen ? pen.count : 1;
    text = `An illegal move was found: ${who} chooses ${n} enemy piece${n === 1 ? '' : 's'} to remove.`;
  } else {
    const last = (st.moves || [])[st.moves.length - 1];
    text = last ? `${COLOR_NAMES[last.color]} played ${last.san}. ${who} to move.` : `${who} moves first.`;
  }
  $('handover-text').textContent = text;
  $('handover-show').textContent = `I am ${who} — show my board`;
  $('handover-show').dataset.seat = h.to;
}

function renderSeal(st) {
  const s = st.sealing;
  $('seal-panel').hidden = !s;
  if (!s) return;
  $('seal-title').textContent = `${COLOR_NAMES[s.seat]}: choose your ${s.count} secret pawns`;
  const chosen = [...sealChoice].sort();
  $('seal-chosen').textContent = chosen.length
    ? `Chosen: ${chosen.join(', ')} (${chosen.length} of ${s.count})`
    : `Chosen: none (0 of ${s.count})`;
  $('seal-submit').disabled = chosen.length !== s.count;
  $('seal-clear').disabled = !chosen.length;
}

function trayItem(color, title) {
  const item = document.createElement('span');
  item.className = 'tray-item cg-wrap';
  item.title = title;
  const p = document.createElement('piece');
  p.className = `pawn ${color}`;
  item.appendChild(p);
  item.insertAdjacentHTML('beforeend', `<svg viewBox="0 0 100 100" class="tray-tie" aria-hidden="true">${TIE_SVG.revealed}</svg>`);
  return item;
}

function renderTrays(st) {
  if (st.identity) return renderIdentityTrays(st);
  const captured = (st.secrets && st.secrets.captured) || [];
  for (const color of ['white', 'black']) {
    const tray = playerEl(color).querySelector('.tray');
    tray.replaceChildren();
    // Beside each player: the opponent's secret pawns that player captured (as lichess shows material).
    const mine = captured.filter(c => c.color !== color);
    tray.hidden = !mine.length;
    for (const c of mine) tray.appendChild(trayItem(c.color, `${COLOR_NAMES[c.color]}'s secret pawn, captured on ${c.square}`));
    tray.setAttribute('aria-label', `Secret pawns captured by ${COLOR_NAMES[color]}: ${mine.map(c => c.square).join(', ') || 'none'}`);
  }
}

// Hidden Identity: beside each player, the enemy pieces it captured, shown with their identity.
const PIECE_LETTER = { king: 'k', queen: 'q', rook: 'r', bishop: 'b', knight: 'n', pawn: 'p' };
function renderIdentityTrays(st) {
  const captured = st.identity.captured || [];
  for (const color of ['white', 'black']) {
    const tray = playerEl(color).querySelector('.tray');
    tray.replaceChildren();
    const mine = captured.filter(c => c.color !== color);
    tray.hidden = !mine.length;
    for (const c of mine) {
      const item = document.createElement('span');
      item.className = 'tray-item cg-wrap';
      item.dataset.piece = PIECE_LETTER[c.piece] || c.piece;
      item.title = `${COLOR_NAMES[c.color]}'s ${c.piece}, captured on ${c.square}`;
      const p = document.createElement('piece');
      p.className = `${c.piece} ${c.color}`;
      item.appendChild(p);
      tray.appendChild(item);
    }
    tray.setAttribute('aria-label', `Pieces captured by ${COLOR_NAMES[color]}: ${mine.map(c => `${c.piece} on ${c.square}`).join(', ') || 'none'}`);
  }
}

// Reveal Chess: each side's pool, with the odds of its next reveal; the role just drawn flashes once.
function renderPools(st) {
  const rv = st.reveal;
  const box = $('pools');
  box.hidden = !rv;
  if (!rv) return;
  const table = $('pools-table');
  const head = table.tHead.rows[0];
  while (head.cells.length > 1) head.deleteCell(1);
  for (const r of ROLE_LETTERS) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = r.toUpperCase();
    th.title = POOL_NAMES[r];
    head.appendChild(th);
  }
  const covers = { white: 0, black: 0 };
  const colors = boardColors(st.fen);
  for (const sq of rv.covered || []) if (colors[sq]) covers[colors[sq]] += 1;
  const drawn = new Set((rv.last || []).map(r => `${r.color}|${(ROLE_LETTER_OF[r.role] || '').toLowerCase()}`));
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const color of ['white', 'black']) {
    const pool = rv.pools[color] || {};
    const odds = rv.odds[color] || {};
    const tr = document.createElement('tr');
    tr.dataset.color = color;
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = COLOR_NAMES[color];
    const small = document.createElement('small');
    small.textContent = `${covers[color]} covered`;
    th.append(small);
    tr.appendChild(th);
    for (const r of ROLE_LETTERS) {
      const td = document.createElement('td');
      td.dataset.role = r;
      const n = pool[r] || 0;
      const pct = Math.round((odds[r] || 0) * 100);
      td.title = `${COLOR_NAMES[color]}: ${n} ${POOL_NAMES[r].toLowerCase()}${n === 1 ? '' : 's'} left, ${pct}% for the next reveal`;
      td.classList.toggle('is-empty', !n);
      if (drawn.has(`${color}|${r}`)) td.classList.add('just-drawn');
      const icon = document.createElement('span');
      icon.className = 'pool-icon cg-wrap';
      icon.setAttribute('aria-hidden', 'true');
      const p = document.createElement('piece');
      p.className = `${POOL_NAMES[r].toLowerCase()} ${color}`;
      icon.appendChild(p);
      const count = document.createElement('span');
      count.className = 'pool-count';
      count.textContent = String(n);
      const odd = document.createElement('span');
      odd.className = 'pool-odds';
      odd.textContent = `${pct}%`;
      td.append(icon, count, odd);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $('pools-covers').textContent = st.replay ? `(replay ${st.replay.ply} / ${st.replay.plies})` : '';
}

function boardColors(fen) {
  const out = {};
  (fen || '').split('/').forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) {
        file += Number(ch);
        continue;
      }
      out[String.fromCharCode(97 + file) + (8 - i)] = ch === ch.toUpperCase() ? 'white' : 'black';
      file += 1;
    }
  });
  return out;
}

const FATE_TEXT = {
  hidden: at => `never revealed (on ${at})`,
  revealed: at => `revealed (on ${at})`,
  captured: at => `captured on ${at}`,
  promoted: at => `promoted on ${at}`,
};

function renderSummary(st) {
  const box = $('secret-summary');
  const fates = st.secrets && st.secrets.fates;
  box.hidden = !fates;
  if (!fates) return;
  box.replaceChildren();
  const h = document.createElement('h3');
  h.innerHTML = `${TIE_ICON} Secret pawns`;
  box.appendChild(h);
  for (const color of ['white', 'black']) {
    const row = document.createElement('div');
    row.className = 'summary-row';
    row.dataset.color = color;
    const who = document.createElement('strong');
    who.textContent = `${COLOR_NAMES[color]} chose`;
    row.appendChild(who);
    const list = document.createElement('ul');
    for (const f of fates[color] || []) {
      const li = document.createElement('li');
      li.dataset.square = f.square;
      li.dataset.fate = f.fate;
      li.appendChild(trayItem(color, `${COLOR_NAMES[color]}'s secret pawn from ${f.square}`));
      const txt = document.createElement('span');
      const b = document.createElement('b');
      b.textContent = f.square;
      txt.append(b, ' ', FATE_TEXT[f.fate] ? FATE_TEXT[f.fate](f.at) : f.fate);
      li.appendChild(txt);
      list.appendChild(li);
    }
    row.appendChild(list);
    box.appendChild(row);
  }
}

function renderReplay(st) {
  const over = !!(st.status && st.status.over);
  const plies = (st.moves || []).length;
  $('replay-bar').hidden = !over;
  if (!over) return;
  const r = st.replay;
  const ply = r ? r.ply : plies;
  $('rp-pos').textContent = `${ply} / ${plies}`;
  $('rp-first').disabled = $('rp-prev').disabled = ply === 0;
  $('rp-next').disabled = $('rp-last').disabled = ply === plies;
  $('rp-persp').hidden = !st.secrets;
  const persp = r ? r.perspective : 'all';
  for (const b of $('rp-persp').querySelectorAll('button')) b.setAttribute('aria-checked', String(b.dataset.persp === persp));
  $('replay-bar').classList.toggle('is-replaying', !!r);
}

function replayPly() {
  return state.replay ? state.replay.ply : (state.moves || []).length;
}

function replayTo(ply, perspective) {
  if (!state || !(state.status && state.status.over)) return;
  const args = {};
  if (ply !== undefined) args.ply = Math.max(0, Math.min((state.moves || []).length, ply));
  if (perspective !== undefined) args.perspective = perspective;
  call('replay', args);
}

$('penalty-clear').addEventListener('click', () => {
  penaltyChoice = [];
  if (state) {
    renderPenalty(state);
    renderBoard(state);
  }
});
$('penalty-submit').addEventListener('click', () => call('penalty', { squares: [...penaltyChoice] }, { boardError: true }));
$('handover-show').addEventListener('click', e => call('show_board', { seat: e.currentTarget.dataset.seat }));
$('seal-clear').addEventListener('click', () => {
  sealChoice = [];
  $('seal-error').hidden = true;
  renderSeal(state);
  renderBoard(state);
});
for (const [id, kind] of [['place-shuffle', 'shuffle'], ['place-standard', 'standard'], ['place-clear', 'clear']]) {
  $(id).addEventListener('click', () => {
    $('place-error').hidden = true; // (an earlier refusal no longer applies)
    call('layout', { kind });
  });
}
$('place-confirm').addEventListener('click', () => {
  const st = call('confirm_setup', {}, { quiet: true });
  if (st && st.error) showPlaceError(st.error);
});
$('seal-submit').addEventListener('click', () => {
  const st = call('seal', { squares: [...sealChoice] }, { quiet: true });
  if (st && st.error) showSealError(st.error);
});
$('rp-first').addEventListener('click', () => replayTo(0));
$('rp-prev').addEventListener('click', () => replayTo(replayPly() - 1));
$('rp-next').addEventListener('click', () => replayTo(replayPly() + 1));
$('rp-last').addEventListener('click', () => replayTo((state.moves || []).length));
for (const b of $('rp-persp').querySelectorAll('button')) {
  b.addEventListener('click', () => replayTo(undefined, b.dataset.persp));
}
$('moves').addEventListener('click', e => {
  const san = e.target.closest('.san.is-link');
  if (san) replayTo(Number(san.dataset.ply) + 1);
});
$('moves').addEventListener('keydown', e => {
  const san = e.target.closest('.san.is-link');
  if (san && (e.key === 'Enter' || e.key === ' ')) {
    e.preventDefault();
    replayTo(Number(san.dataset.ply) + 1);
  }
});

$('notice-close').addEventListener('click', () => {
  noticeDismissed = $('notice-text').textContent;
  $('notice').hidden = true;
  if (state && state.notice && !state.warning) call('dismiss_notice');
});
$('notice-download').addEventListener('click', () => {
  const st = call('export_corrupt');
  if (st && st.download) download(st.download.name, st.download.text);
});

// ------------------------------------------------------------------ dialogs

function confirmDialog(title, text, yesLabel) {
  return new Promise(resolve => {
    const dlg = $('dlg-confirm');
    $('confirm-title').textContent = title;
    $('confirm-text').textContent = text;
    $('confirm-yes').textContent = yesLabel;
    const done = answer => {
      $('confirm-yes').onclick = $('confirm-no').onclick = null;
      dlg.onclose = null;
      if (dlg.open) dlg.close();
      resolve(answer);
    };
    $('confirm-yes').onclick = () => done(true);
    $('confirm-no').onclick = () => done(false);
    dlg.onclose = () => done(false);
    dlg.showModal();
    $('confirm-no').focus();
  });
}

function openNewGame() {
  const dlg = $('dlg-new');
  const form = $('form-new');
  $('new-error').hidden = true;
  if (state && state.options) {
    const o = state.options;
    const identity = /^hidden-identity/.test(o.variant || '');
    const rk = identity && o.variant.includes('-rk');
    const tt = identity && o.variant.endsWith('-tt');
    const v = form.querySelector(`input[name=variant][value="${identity ? 'hidden-identity' : o.variant}"]`);
    if (v) v.checked = true;
    $('new-rk').checked = rk;
    $('new-tt').checked = tt;
    const m = form.querySelector(`input[name=mode][value="${o.mode}"]`);
    if (m && !m.disabled) m.checked = true;
    const lv = form.querySelector(`input[name=level][value="${o.level}"]`);
    if (lv) lv.checked = true;
    const col = form.querySelector(`input[name=color][value="${o.color}"]`);
    if (col) col.checked = true;
    $('new-autoflip').checked = !!state.autoFlip;
  }
  let warn = form.querySelector('.form-warning');
  const inProgress = state && !(state.status && state.status.over) && (state.moves || []).length > 0;
  if (inProgress && !warn) {
    warn = document.createElement('p');
    warn.className = 'form-warning';
    warn.textContent = 'Starting a new game ends the game in progress (only one game is kept).';
    form.querySelector('h2').after(warn);
  } else if (!inProgress && warn) {
    warn.remove();
  }
  syncCustomClock();
  syncComputer();
  syncFriend();
  dlg.showModal();
  (form.querySelector('input[name=variant]:checked') || form.querySelector('input')).focus();
}

function syncCustomClock() {
  const custom = $('form-new').querySelector('input[name=clock][value=custom]').checked;
  $('custom-clock').classList.toggle('is-off', !custom);
  $('clock-minutes').disabled = !custom;
  $('clock-increment').disabled = !custom;
}

// "Against the computer" only for the variants the computer plays (the Session's list).
function syncComputer() {
  const form = $('form-new');
  const variant = form.querySelector('input[name=variant]:checked');
  const supported = (state && state.computerVariants) || [];
  const identity = !!variant && variant.value === 'hidden-identity';
  $('new-rk').disabled = !identity;
  $('rk-toggle').classList.toggle('is-disabled', !identity);
  $('new-tt').disabled = !identity;
  $('tt-toggle').classList.toggle('is-disabled', !identity);
  const ok = !!variant && supported.includes(chosenVariant());
  const input = form.querySelector('input[name=mode][value=computer]');
  input.disabled = !ok;
  $('choice-computer').classList.toggle('is-disabled', !ok);
  const name = variant ? variant.closest('label').querySelector('strong').textContent.trim() : '';
  $('computer-note').textContent = ok
    ? 'You play one side, the computer the other.'
    : `The computer does not play ${name} yet.`;
  if (!ok && input.checked) form.querySelector('input[name=mode][value=local]').checked = true;
  $('computer-options').hidden = !input.checked;
}

// The variant id the dialog names: Hidden Identity with "revealed kings" is its own variant.
function chosenVariant() {
  const v = $('form-new').querySelector('input[name=variant]:checked');
  if (!v) return null;
  if (v.value !== 'hidden-identity') return v.value;
  return `hidden-identity${$('new-rk').checked ? '-rk' : ''}${$('new-tt').checked ? '-tt' : ''}`;
}

$('form-new').addEventListener('change', () => {
  syncCustomClock();
  syncComputer();
  syncFriend();
});

// "Invite a friend": its own colour choice, for the variants the Session plays with a friend.
// The variants the Session plays with a friend (unless the state names them: state.friendVariants).
const FRIEND_VARIANTS = ['standard', 'royal-pawn', 'secret-pawn', 'reveal', 'hidden-identity', 'hidden-identity-rk'];
const FRIEND_NOTE = 'Play on another device with a link. No server; every secret is checked at the end.';
function syncFriend() {
  const form = $('form-new');
  const input = form.querySelector('input[name=mode][value=friend]');
  const variant = chosenVariant();
  const supported = (state && state.friendVariants) || FRIEND_VARIANTS;
  const ok = !variant || supported.includes(variant);
  input.disabled = !ok;
  $('choice-friend').classList.toggle('is-disabled', !ok);
  $('friend-note').textContent = ok ? FRIEND_NOTE : 'Not available for this variant yet.';
  if (!ok && input.checked) form.querySelector('input[name=mode][value=local]').checked = true;
  $('friend-options').hidden = !input.checked;
  $('new-start').textContent = input.checked ? 'Create the invite' : 'Start game';
}
$('new-cancel').addEventListener('click', () => $('dlg-new').close());

$('form-new').addEventListener('submit', e => {
  e.preventDefault();
  const f = new FormData($('form-new'));
  let clock = f.get('clock');
  if (clock === 'custom') {
    clock = { minutes: Number($('clock-minutes').value), increment: Number($('clock-increment').value) };
  }
  const options = {
    variant: chosenVariant(),
    mode: f.get('mode') || 'local',
    clock,
    autoflip: $('new-autoflip').checked,
  };
  if (options.mode === 'computer') {
    options.level = Number(f.get('level') || 3);
    options.color = f.get('color') || 'white';
  }
  if (options.mode === 'friend') options.color = f.get('fcolor') || 'white';
  const st = call('new_game', options, { quiet: true }); // an error is shown in the dialog itself
  if (st && st.error) {
    $('new-error').textContent = st.error;
    $('new-error').hidden = false;
    return;
  }
  if (st) {
    bannerDismissedFor = null;
    noticeDismissed = null;
    hideToasts(); // a notice about the previous game does not belong to the new one
    $('dlg-new').close();
  }
});

function openClaim() {
  const c = (state && state.claim) || {};
  const box = $('claim-options');
  box.replaceChildren();
  const who = COLOR_NAMES[state.turnColor];
  $('claim-text').textContent = c.now
    ? `${who} may claim a draw now.`
    : `${who} may claim a draw by declaring one of these moves instead of playing it: it would repeat the position a third time or reach fifty moves without a capture or pawn move. The game ends drawn.`;
  if (c.now) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn btn-good';
    b.textContent = `Claim now: ${c.nowText || c.now}`;
    b.addEventListener('click', () => {
      $('dlg-claim').close();
      call('claim_draw', {});
    });
    box.appendChild(b);
  }
  for (const m of c.moves || []) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn';
    b.dataset.uci = m.uci;
    b.append(`Declare ${m.san}`);
    const small = document.createElement('small');
    small.textContent = m.reasonText || m.reason;
    b.appendChild(small);
    b.addEventListener('click', () => {
      $('dlg-claim').close();
      call('claim_draw', { move: m.uci });
    });
    box.appendChild(b);
  }
  $('dlg-claim').showModal();
  box.querySelector('button')?.focus();
}

$('claim-cancel').addEventListener('click', () => $('dlg-claim').close());

// ------------------------------------------------------------------ buttons

$('btn-new').addEventListener('click', openNewGame);
$('banner-new').addEventListener('click', openNewGame);
$('banner-replay').addEventListener('click', () => {
  bannerDismissedFor = state ? gameOverKey(state) : null;
  $('banner').hidden = true;
  replayTo(0);
});
$('banner-close').addEventListener('click', () => {
  bannerDismissedFor = state ? gameOverKey(state) : null;
  $('banner').hidden = true;
});
$('btn-flip').addEventListener('click', () => call('flip'));
$('chk-autoflip').addEventListener('change', e => call('set_auto_flip', { on: e.target.checked }));
$('btn-claim').addEventListener('click', openClaim);
$('btn-takeback').addEventListener('click', () => call('takeback'));
$('btn-accept').addEventListener('click', e => call('accept_draw', { color: e.currentTarget.dataset.color }));
$('btn-decline').addEventListener('click', e => call('decline_draw', { color: e.currentTarget.dataset.color }));

for (const el of document.querySelectorAll('.act-resign')) {
  el.addEventListener('click', async e => {
    const color = e.currentTarget.dataset.color;
    const ok = await confirmDialog(`Resign as ${COLOR_NAMES[color]}?`, `${COLOR_NAMES[color]} loses the game.`, 'Resign');
    if (ok) call('resign', { color });
  });
}
for (const el of document.querySelectorAll('.act-draw')) {
  el.addEventListener('click', e => call('offer_draw', { color: e.currentTarget.dataset.color }));
}

document.addEventListener('keydown', e => {
  if (e.target instanceof HTMLInputElement || document.querySelector('dialog[open]') || !$('promo').hidden) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'f') call('flip');
  if (state && state.status && state.status.over) {
    const plies = (state.moves || []).length;
    const keys = {
      ArrowLeft: () => replayPly() - 1,
      ArrowRight: () => replayPly() + 1,
      ArrowUp: () => 0,
      Home: () => 0,
      ArrowDown: () => plies,
      End: () => plies,
    };
    if (keys[e.key]) {
      e.preventDefault();
      replayTo(keys[e.key]());
    }
  }
});

// ------------------------------------------------------------------ friend play (issue #7)
// "Invite a friend": the Session's friend mode (py/hiddenchess/peer/) plays the protocol; the
// functions below only carry its messages over assets/peer.js (window.HCPeer) and draw the
// invite / join / reconnect card over the board, the connection pill and the audit.
//   * every state may carry state.peer.outbox: sent in order right after the call that made it
//     (friendAfterCall); messages made while disconnected are re-sent by the resync (hello);
//   * HCPeer events -> actions: open -> peer_open, message -> peer_receive {data},
//     close / lost -> peer_closed;
//   * the host's link is <page>#join=<invite>.<offer>; opening it calls join {invite} and shows
//     the answer code; a reload on either side restores the game "disconnected" and both sides
//     offer a new link (either one may be used; the other side pastes it and sends its answer).

const FRIEND_CONN_TEXT = {
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  waiting: 'Waiting for your friend',
  lost: 'Connection lost',
};

const friend = {
  peer: null, // the HCPeer.Peer of the current connection (attempt)
  gameId: null, // the friend game these fields belong to
  card: null, // null | 'invite' | 'join' | 'answer' | 'reconnect': what the card over the board shows
  code: '', // the link or answer code this side has to send
  making: false, // a code is being prepared (ICE gathering)
  error: '', // the last problem with a pasted code / link
  hidden: false, // the player closed the card to look at the board
  waitingSince: 0, // when this side started to wait for the other (join / answer)
  noticeShown: null, // the protocol notice already shown
  alt: null, // a second Peer over a one-click signaling channel (assets/signal.js), if any
  signalNote: '', // what the one-click channel is doing (or why it cannot)
  taken: false, // the one-click host said another friend took this invite
};

function friendGame(st) {
  return st && st.peer ? st.peer : null;
}

// After every Session call: send what the protocol queued.
function friendAfterCall(st) {
  const p = friendGame(st);
  if (!p || !p.outbox || !p.outbox.length) return;
  const peer = friend.peer;
  if (!peer || !(peer.status === 'open' || peer.status === 'weak')) return; // the resync re-sends them
  for (const text of p.outbox) {
    try {
      peer.send(text);
    } catch (e) {
      break; // the connection just dropped: onclose follows, then the resync
    }
  }
}

// Forget the current peer without hearing from it again.
function friendDrop() {
  const old = friend.peer;
  friend.peer = null;
  if (old) {
    old.onstatus = old.onopen = old.onmessage = old.onclose = null;
    old.close();
  }
}

function friendReset(gameId) {
  friendDrop();
  friendDropAlt();
  Object.assign(friend, { peer: null, gameId, card: null, code: '', making: false, error: '', hidden: false, waitingSince: 0, signalNote: '', taken: false });
}

function friendNewPeer() {
  friendDrop();
  const peer = new window.HCPeer.Peer({ gameId: friend.gameId });
  friend.peer = peer;
  friendWire(peer);
  return peer;
}

function friendWire(peer) {
  peer.onstatus = () => {
    if ((peer === friend.peer || peer === friend.alt) && state) renderFriend(state);
  };
  peer.onopen = () => {
    if (peer === friend.alt) {
      // The one-click channel opened first: the manual codes are not needed any more.
      friendDrop();
      friend.alt = null;
      friend.peer = peer;
    }
    if (peer !== friend.peer) return;
    friendDropAlt();
    Object.assign(friend, { card: null, code: '', error: '', hidden: false, signalNote: '' });
    if (/^#join=/.test(location.hash)) history.replaceState(null, '', location.pathname + location.search);
    call('peer_open');
  };
  peer.onmessage = data => {
    if (peer === friend.peer) call('peer_receive', { data }, { quiet: true });
  };
  peer.onclose = () => {
    if (peer === friend.alt) friend.alt = null;
    if (peer !== friend.peer) return;
    friend.peer = null;
    friend.hidden = false;
    call('peer_closed');
  };
}

// ---- one-click invites (assets/signal.js, optional): when a signaling server is configured
// (the host's setting; the guest takes it from the link), a second Peer is attached to the
// signaling channel next to the manual codes, and whichever opens first carries the game.
const SIGNAL_LINK_KEY = 'hiddenchess:signal:link'; // the last link's {g, peerId, settings} (guest)

function friendDropAlt() {
  const old = friend.alt;
  friend.alt = null;
  if (old) {
    old.onstatus = old.onopen = old.onmessage = old.onclose = null;
    old.close();
  }
}

// Remember the one-click part of a link this page joined with (for reconnects after a reload).
function friendRememberSignal(gameId, hash) {
  const S = window.HCSignal;
  const j = S && S.fromHash(hash);
  if (!j) return;
  if (j.error) {
    friend.signalNote = j.error;
    return;
  }
  try {
    localStorage.setItem(SIGNAL_LINK_KEY, JSON.stringify({ g: gameId, peerId: j.peerId, settings: j.settings }));
  } catch (e) {
    // storage full or off: one-click reconnects just do not happen
  }
}

// Start the one-click attempt for this side, if there is one; returns the channel or null.
function friendSignal(role) {
  const S = window.HCSignal;
  friendDropAlt();
  if (!S) return null;
  let ch;
  try {
    if (role === 'host') {
      if (!S.enabled()) return null;
      ch = S.host(friend.gameId);
    } else {
      const saved = JSON.parse(localStorage.getItem(SIGNAL_LINK_KEY) || 'null');
      if (!saved || saved.g !== friend.gameId) return null;
      ch = S.join(saved.peerId, saved.settings);
    }
  } catch (e) {
    friend.signalNote = `One-click connection unavailable (${e.message || e}); the codes work as usual.`;
    return null;
  }
  const peer = new window.HCPeer.Peer({ gameId: friend.gameId });
  friend.alt = peer;
  friendWire(peer);
  ch.onstatus = text => {
    if (peer !== friend.alt) return;
    friend.signalNote = text;
    if (state && friend.card) renderFriendCard(friend.card);
  };
  ch.onerror = err => {
    if (peer !== friend.alt || !err) return;
    if (err.kind === 'taken') {
      // Final: the host already has its friend. The answer code is no use either.
      friendDrop();
      friendDropAlt();
      Object.assign(friend, { taken: true, code: '', making: false, signalNote: '', error: err.message });
    } else {
      friend.signalNote = err.message || String(err);
    }
    if (state) renderFriend(state);
  };
  peer.attach(ch);
  return ch;
}

// This side offers: a new invite (host, before the game) or a reconnect link (after a drop).
async function friendOffer(st) {
  const p = friendGame(st);
  friend.making = true;
  friend.code = '';
  const peer = friendNewPeer();
  try {
    const { code } = await peer.host();
    if (peer !== friend.peer) return;
    const invite = p.invite || { g: p.game_id };
    let link = window.HCPeer.inviteLink(location.href, invite, code);
    const ch = friendSignal(p.role === 'host' ? 'host' : 'guest');
    if (ch && p.role === 'host') link += `&${window.HCSignal.linkParams(ch.peerId)}`;
    friend.code = link;
  } catch (e) {
    if (peer === friend.peer) friend.error = `Could not prepare the connection: ${e.message || e}`;
  } finally {
    if (peer === friend.peer) friend.making = false;
    if (state) renderFriend(state);
  }
}

// This side answers an offer (the invite link, or the other side's reconnect link).
async function friendAnswer(offerCode, card) {
  friend.making = true;
  friend.code = '';
  friend.error = '';
  friend.card = card;
  friend.hidden = false;
  const peer = friendNewPeer();
  if (state) renderFriend(state);
  try {
    const { code } = await peer.join(offerCode);
    if (peer !== friend.peer) return;
    friend.code = code;
    friend.waitingSince = Date.now();
  } catch (e) {
    if (peer === friend.peer) {
      friend.error = e.message || String(e);
      friendDrop();
      friend.card = null;
    }
  } finally {
    if (peer === friend.peer || !friend.peer) friend.making = false;
    if (state) renderFriend(state);
  }
}

// The Connect button: the pasted text is the friend's answer, or (to reconnect) the friend's link.
const OWN_LINK = 'This is your own link: send it to your friend, and paste the answer your friend sends back.';

// Whether an offer code is the one this page is showing (its own link).
function friendOwnOffer(offer) {
  try {
    return !!friend.code && window.HCPeer.parseLink(friend.code).offer === offer;
  } catch (e) {
    return false;
  }
}

async function friendPaste() {
  const text = $('friend-paste').value.trim();
  friend.error = '';
  const H = window.HCPeer;
  try {
    if (!text) throw new H.CodeError('mangled', 'Paste the code or link your friend sent you first.');
    if (/#join=|^join=/.test(text) || /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text)) {
      const { invite, offer } = H.parseLink(text);
      if (invite.g !== friend.gameId) throw new H.CodeError('another-invite', 'This link belongs to another game, not to this one.');
      if (friendOwnOffer(offer)) throw new H.CodeError('wrong-kind', OWN_LINK);
      // The friend's link (e.g. its page was reloaded and made a new one): answer it.
      $('friend-paste').value = '';
      await friendAnswer(offer, friend.card === 'relink' ? 'join' : 'answer');
      return;
    }
    const kind = H.decode(text).kind;
    if (kind === 0) {
      if (friendOwnOffer(text)) throw new H.CodeError('wrong-kind', OWN_LINK);
      $('friend-paste').value = '';
      await friendAnswer(text, friend.card === 'relink' ? 'join' : 'answer');
      return;
    }
    if (!friend.peer || friend.peer.status === 'lost' || friend.peer.status === 'closed') {
      throw new H.CodeError('stale', 'This answer was made for an older link: send your friend the current link and paste the answer it gives.');
    }
    await friend.peer.accept(text);
    $('friend-paste').value = '';
    friend.waitingSince = Date.now();
  } catch (e) {
    friend.error = e.message || String(e);
  }
  if (state) renderFriend(state);
}

// A page opened with #join=<invite>.<offer> (or the hash changed to one).
async function friendOpenLink() {
  if (!/^#join=/.test(location.hash) || !ready) return;
  const H = window.HCPeer;
  let link;
  try {
    link = H.parseLink(location.href);
  } catch (e) {
    history.replaceState(null, '', location.pathname + location.search);
    showToast(`${e.message}`);
    return;
  }
  const p = friendGame(state);
  if (p && p.game_id === link.invite.g) {
    // The same game: a reconnect link (or the invite opened again).
    if (friend.peer && (friend.peer.status === 'open' || friend.peer.status === 'weak')) {
      history.replaceState(null, '', location.pathname + location.search);
      showToast('Already connected to your friend.');
      return;
    }
    if (p.role === 'host' && p.status === 'inviting') {
      history.replaceState(null, '', location.pathname + location.search);
      friend.error = OWN_LINK;
      renderFriend(state);
      return;
    }
    friendRememberSignal(link.invite.g, location.hash);
    friendSignal('guest');
    await friendAnswer(link.offer, p.status === 'connecting' ? 'join' : 'answer');
    return;
  }
  const inProgress = state && !(state.status && state.status.over) && (state.moves || []).length > 0;
  if (inProgress) {
    const ok = await confirmDialog("Join your friend's game?", 'This ends the game in progress on this device (only one game is kept).', 'Join');
    if (!ok) {
      history.replaceState(null, '', location.pathname + location.search);
      return;
    }
  }
  const st = call('join', { invite: link.invite }, { quiet: true });
  if (!st) return;
  if (st.error || !friendGame(st)) {
    history.replaceState(null, '', location.pathname + location.search);
    showToast(`Cannot join this game: ${st.error || 'the invite was not accepted'}`);
    return;
  }
  bannerDismissedFor = null;
  renderFriend(st); // the friend fields now belong to this game
  friendRememberSignal(link.invite.g, location.hash);
  friendSignal('guest');
  await friendAnswer(link.offer, 'join');
}

// What the connection looks like: connected / reconnecting / waiting / lost.
function friendConn(p) {
  const s = friend.peer ? friend.peer.status : 'lost';
  if (s === 'open') return 'connected';
  if (s === 'weak') return 'reconnecting';
  const first = p.status === 'inviting' || p.status === 'connecting';
  if (first) return 'waiting';
  // After a drop: "reconnecting" once the two sides are exchanging codes, "lost" until then.
  return s === 'joining' || s === 'connecting' ? 'reconnecting' : 'lost';
}

const FRIEND_CARDS = {
  invite: {
    title: 'Invite a friend',
    steps: [
      'Send this link to your friend (by message or mail).',
      'Your friend opens it and sends you back an answer code.',
      'Paste the answer below and press Connect: the game starts.',
    ],
    mine: 'Your invite link',
    paste: "Your friend's answer",
    wait: null,
  },
  join: {
    title: "Join your friend's game",
    steps: [
      'Send this answer code back to your friend.',
      'Your friend pastes it and presses Connect: the game starts by itself.',
    ],
    mine: 'Your answer code',
    paste: null,
    wait: 'Waiting for your friend to enter your answer…',
  },
  answer: {
    title: 'Reconnect',
    steps: ['Send this answer code back to your friend, who pastes it and presses Connect.'],
    mine: 'Your answer code',
    paste: null,
    wait: 'Waiting for your friend to enter your answer…',
  },
  taken: {
    title: 'This game is already taken',
    steps: ['Another friend joined this invite first. Ask your friend for a new invite, or start a game of your own.'],
    mine: '',
    paste: null,
    wait: null,
  },
  relink: {
    title: "Join your friend's game",
    steps: ['Ask your friend for the invite link again (or a new one) and paste it below.'],
    mine: '',
    paste: "Your friend's invite link",
    wait: null,
  },
  reconnect: {
    title: 'Reconnect to your friend',
    steps: [
      'Send your friend this new link and paste the answer it gives,',
      'or, if your friend sent you a link first, paste that link instead.',
    ],
    mine: 'Your new link',
    paste: "Your friend's answer or link",
    wait: null,
  },
};

function friendCardFor(p) {
  if (friend.taken) return 'taken';
  const open = friend.peer && (friend.peer.status === 'open' || friend.peer.status === 'weak');
  if (open || p.connected) return null;
  const busy = !!friend.peer || friend.making;
  if ((friend.card === 'join' || friend.card === 'answer') && busy) return friend.card;
  if (p.status === 'inviting') return 'invite';
  // A guest whose invite could not be used (damaged link, reload before the host connected).
  if (p.status === 'connecting' && !busy) return 'relink';
  if (p.status === 'over' && p.audit && p.audit.status !== 'pending') return null; // nothing left to exchange
  return 'reconnect';
}

function renderFriend(st) {
  const p = friendGame(st);
  const bar = $('friend-bar');
  if (!p) {
    if (friend.gameId !== null) friendReset(null);
    bar.hidden = true;
    $('friend-card').hidden = true;
    $('friend-audit').hidden = true;
    $('friend-rejected').hidden = true;
    $('banner-audit').hidden = true;
    return;
  }
  if (p.game_id !== friend.gameId) {
    const live = friend.peer && (friend.peer.status === 'open' || friend.peer.status === 'weak');
    if (live && p.connected && friend.gameId !== null) {
      // A rematch: the new game goes on over the same channel.
      friend.gameId = friend.peer.gameId = p.game_id;
      Object.assign(friend, { card: null, code: '', error: '', hidden: false, noticeShown: null });
    } else {
      friendReset(p.game_id);
    }
  }

  // The card: make this side's code when the card needs one and none is being made.
  const card = friendCardFor(p);
  friend.card = card;
  const peerBusy = friend.peer && ['inviting', 'joining', 'connecting'].includes(friend.peer.status);
  if ((card === 'invite' || card === 'reconnect') && !friend.making && !peerBusy && !friend.peer) {
    friendOffer(st);
  }
  renderFriendCard(card);

  // The bar: connection pill, who plays what.
  const conn = friendConn(p);
  bar.hidden = false;
  const pill = $('friend-pill');
  pill.dataset.conn = conn;
  pill.textContent = FRIEND_CONN_TEXT[conn];
  const seat = p.seat || (st.options && st.options.color);
  $('friend-who').textContent = seat && COLOR_NAMES[seat] ? `You play ${COLOR_NAMES[seat]}` : '';
  const show = $('friend-show');
  show.hidden = !card || !friend.hidden;
  show.textContent = card === 'reconnect' ? 'Reconnect' : 'Show the invite';

  // Player names and the buttons of the seat this device does not play.
  for (const color of ['white', 'black']) {
    const el = playerEl(color);
    if (!el || !seat) continue;
    el.querySelector('.player-name').textContent = color === seat ? `You · ${COLOR_NAMES[color]}` : `Your friend · ${COLOR_NAMES[color]}`;
    el.querySelector('.player-actions').hidden = color !== seat;
  }
  if (st.drawOffer && seat && st.drawOffer === seat) $('offer').hidden = true; // my own offer: nothing to answer
  const over = !!(st.status && st.status.over);
  if (p.waiting_for && !over) $('status-line').textContent = `Waiting for ${p.waiting_for}…`;

  // Claims (the friend's flag fell, or a Reveal draw opening is overdue) and the rematch.
  const claim = $('friend-claim');
  claim.hidden = !p.canClaim || over;
  claim.textContent = p.canClaim === 'stalled' ? 'Claim the win (your friend stalls)' : 'Claim the win on time';
  const rematch = $('friend-rematch');
  const rm = p.rematch;
  rematch.hidden = !over || (rm && rm.by === 'me') || !p.connected;
  rematch.textContent = rm && rm.by === 'friend' ? 'Accept the rematch' : 'Rematch';
  if (over && rm && rm.by === 'me') $('friend-who').textContent = 'Rematch offered: waiting for your friend…';
  // A try the friend's hidden pieces refused (e.g. "a secret pawn attacks that square").
  const noteKey = p.notice ? `${p.game_id}|${(st.moves || []).length}|${p.notice}` : null;
  if (noteKey && noteKey !== friend.noticeShown) showBoardToast(p.notice);
  friend.noticeShown = noteKey;

  // Messages the protocol refused, and the audit.
  const rej = $('friend-rejected');
  rej.hidden = !p.rejected && !p.fork;
  rej.textContent = p.fork
    ? `This game cannot be resumed: ${p.fork} Start a new game.`
    : p.rejected ? `A message from your friend's device was refused: ${p.rejected}` : '';
  renderFriendAudit(p.audit);
}

function renderFriendCard(card) {
  const el = $('friend-card');
  const wasShown = !el.hidden;
  el.hidden = !card || friend.hidden;
  // On phones the card replaces the board: let chessground measure it again when it is back.
  if (wasShown && el.hidden) requestAnimationFrame(() => cg.redrawAll());
  if (!card) return;
  const c = FRIEND_CARDS[card];
  $('friend-title').textContent = c.title;
  const steps = $('friend-steps');
  steps.replaceChildren(...c.steps.map(t => Object.assign(document.createElement('li'), { textContent: t })));
  el.dataset.card = card;
  $('friend-mine').hidden = !friend.code;
  if ($('friend-code').value !== friend.code) $('friend-code').value = friend.code;
  $('friend-code-label').textContent = c.mine;
  $('friend-making').hidden = !friend.making;
  $('friend-paste-box').hidden = !c.paste;
  if (c.paste) $('friend-paste-label').textContent = c.paste;
  const err = $('friend-error');
  const newError = !!friend.error && err.textContent !== friend.error;
  err.hidden = !friend.error;
  err.textContent = friend.error;
  if (newError) err.scrollIntoView({ block: 'nearest' });
  $('friend-signal').hidden = !friend.signalNote;
  $('friend-signal').textContent = friend.signalNote ? `One-click: ${friend.signalNote}` : '';
  const connecting = friend.peer && friend.peer.status === 'connecting';
  const wait = connecting ? 'Connecting…' : c.wait && friend.code ? c.wait : null;
  $('friend-wait').hidden = !wait;
  if (wait) {
    const long = friend.waitingSince && Date.now() - friend.waitingSince > 60000 && !connecting;
    $('friend-wait-text').textContent = long
      ? `${wait} (Still nothing? Your friend may have reloaded the page, or the invite was already taken by someone else.)`
      : wait;
  }
}

function renderFriendAudit(audit) {
  const box = $('friend-audit');
  const banner = $('banner-audit');
  box.hidden = banner.hidden = !audit;
  if (!audit) return;
  box.dataset.audit = audit.status;
  banner.dataset.audit = audit.status;
  box.replaceChildren();
  let title;
  if (audit.status === 'verified') title = '✓ Verified: every move, answer and secret of both sides checks out.';
  else if (audit.status === 'failed') title = "✗ Not verified: your friend's device broke the rules.";
  else title = 'Checking the game: waiting for both sides to open their secrets…';
  const head = document.createElement('strong');
  head.textContent = title;
  box.appendChild(head);
  const problems = audit.problems || [];
  if (problems.length) {
    const ul = document.createElement('ul');
    for (const pr of problems) {
      const li = document.createElement('li');
      // ply: 1-based half-move (0 = the setup before the first move)
      const who = pr.by ? COLOR_NAMES[pr.by] || pr.by : '';
      const at = pr.ply == null ? '' : pr.ply === 0 ? 'Setup' : `Move ${Math.ceil(pr.ply / 2)}`;
      const where = at && who ? `${at} (${who})` : at || who;
      li.textContent = `${where ? `${where}: ` : ''}${pr.message || pr.kind}`;
      li.dataset.kind = pr.kind || '';
      ul.appendChild(li);
    }
    box.appendChild(ul);
  }
  banner.textContent = audit.status === 'verified' ? '✓ Verified' : audit.status === 'failed' ? `✗ Not verified (${problems.length} problem${problems.length === 1 ? '' : 's'})` : 'Checking…';
}

async function friendCopy() {
  const text = $('friend-code').value;
  if (!text) return;
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch (e) {
    const area = $('friend-code');
    area.focus();
    area.select();
    try {
      ok = document.execCommand('copy');
    } catch (e2) {
      ok = false;
    }
  }
  const btn = $('friend-copy');
  btn.textContent = ok ? 'Copied' : 'Select and copy';
  setTimeout(() => {
    btn.textContent = 'Copy';
  }, 2000);
}

$('friend-copy').addEventListener('click', friendCopy);
$('friend-code').addEventListener('focus', e => e.target.select());
$('friend-connect').addEventListener('click', friendPaste);
$('friend-paste').addEventListener('keydown', e => {
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    friendPaste();
  }
});
$('friend-hide').addEventListener('click', () => {
  friend.hidden = true;
  if (state) renderFriend(state);
});
$('friend-claim').addEventListener('click', () => call('claim_win'));
$('friend-rematch').addEventListener('click', () => call('rematch'));
// The friend's clock and a stalled draw opening are judged on this page's time: ask again each second.
// Only a change is rendered (a render would close an open promotion picker every second).
function friendPoll() {
  const p = friendGame(state);
  if (!ready || !p || !p.connected || (state.status && state.status.over) || !(state.clock || state.reveal)) return;
  let st;
  try {
    st = JSON.parse(window.hc.call(state.clock ? 'tick' : 'state', '{}'));
  } catch (e) {
    return;
  }
  const q = friendGame(st);
  const changed = !q || (q.outbox && q.outbox.length) || q.canClaim !== p.canClaim || q.status !== p.status ||
    JSON.stringify(st.status) !== JSON.stringify(state.status);
  if (!changed) return;
  render(st, { quiet: true });
  friendAfterCall(st);
}
setInterval(friendPoll, 1000);
$('friend-show').addEventListener('click', () => {
  friend.hidden = false;
  if (state) renderFriend(state);
});
window.addEventListener('hashchange', friendOpenLink);
setInterval(() => {
  if (state && friend.card && friend.waitingSince) renderFriendCard(friend.card);
}, 5000);

// For tests and the console.
window.hcFriend = {
  info: () => ({
    card: friend.card,
    code: friend.code,
    error: friend.error,
    making: friend.making,
    peerStatus: friend.peer ? friend.peer.status : null,
    gameId: friend.gameId,
    alt: friend.alt ? friend.alt.status : null,
    signalNote: friend.signalNote,
  }),
};

// ------------------------------------------------------------------ start-up

function onReady() {
  if (ready) return;
  ready = true;
  const st = call('restore');
  $('loading').hidden = true;
  for (const id of ['btn-new', 'btn-flip', 'chk-autoflip']) $(id).disabled = false;
  document.body.dataset.ready = 'true';
  friendOpenLink(); // opened with an invite link (#join=...)
  return st;
}

startBoard();

// For tests and the console: drive the page through the same path as the buttons.
window.hcApp = { call, state: () => state, boardFen: () => cg.getFen() };

if (window.hcReady) onReady();
else window.addEventListener('hc:ready', onReady, { once: true });

// A few discrete steps a second: cheap for the main thread while Python starts (see app.css).
let spinAngle = 0;
const spinTimer = setInterval(() => {
  if (ready) return clearInterval(spinTimer);
  spinAngle += 90;
  const sp = document.querySelector('.spinner');
  if (sp) sp.style.transform = `rotate(${spinAngle}deg)`;
}, 350);

setTimeout(() => {
  if (!ready) $('loading-text').textContent = 'Still loading the rules engine… (the first visit can take a while)';
}, 15000);

// PyScript fires py:all-done after running main.py; without hcReady by then, Python failed.
window.addEventListener('py:all-done', () =>
  setTimeout(() => {
    if (ready) return;
    $('loading').classList.add('is-failed');
    $('loading-text').textContent = 'The rules engine could not start. Reload the page to try again.';
  }, 1000),
);
