// Hidden Identity Chess (state.identity, state.placing): placing the 16 pieces in private (the
// tray, clicks and drags), what an unknown enemy piece may be (a tip over its square), the
// captured pieces with their identity, and the notes of the moves (en passant, discoveries).

import { $, COLOR_NAMES, screenCell } from '../dom.js';
import { app } from '../state.js';
import { call } from '../bridge.js';
import { renderBoard, squareAt } from '../board.js';
import { showToast } from '../toast.js';
import { announce } from '../announce.js';
import { registerPanel } from './registry.js';

const PLACE_ROLES = ['k', 'q', 'r', 'b', 'n', 'p'];
const PIECE_OF = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
const PIECE_TITLE = { k: 'King', q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', p: 'Pawn' };
const PIECE_LETTER = { king: 'k', queen: 'q', rook: 'r', bishop: 'b', knight: 'n', pawn: 'p' };
const DRAG_START_PX = 6;

const local = {
  role: null, // the tray piece picked while placing (not yet put on a square)
  drag: null, // {role, from: 'tray' | square, x, y, started}
  noteShownFor: null, // gameId|ply|note of the last note shown
};

// ------------------------------------------------------------------ placing by clicks

// A click on a placed piece takes it back (and picks it up); a click on a free home square puts
// the picked tray piece there.
function onPlaceSquare(st, key) {
  const p = st.placing;
  const here = p.draft[key];
  if (here) {
    const next = call('place', { square: key, role: null }, { quiet: true });
    if (next && !next.error) local.role = here;
  } else if (!p.squares.includes(key)) {
    showPlaceError(`${key} is not on your two home rows (rows ${p.seat === 'white' ? '1 and 2' : '7 and 8'}).`);
    return;
  } else if (!local.role) {
    showPlaceError(`${key}: pick a piece in the tray first.`);
    return;
  } else {
    const next = call('place', { square: key, role: local.role }, { quiet: true });
    if (next && next.error) return showPlaceError(next.error);
    if (next && next.placing && !next.placing.left[local.role]) local.role = null;
  }
  $('place-error').hidden = true;
  renderPlace(app.state);
}

// (shown in the panel, and said through the page's assertive live region: Enter on the board's
// cursor that places nothing says why)
function showPlaceError(text) {
  $('place-error').textContent = text;
  $('place-error').hidden = false;
  announce(text, { urgent: true });
}

function homeRowsText(seat) {
  return `Place your pieces on your two home rows (rows ${seat === 'white' ? '1 and 2' : '7 and 8'}).`;
}

function renderPlace(st) {
  const p = st.placing;
  $('place-panel').hidden = !p;
  if (!p) {
    local.role = null;
    return;
  }
  // (one player at this device -- against the computer, with a friend -- is "you", not a colour)
  $('place-title').textContent = st.computer || st.peer ? 'Place your 16 pieces' : `${COLOR_NAMES[p.seat]}: place your 16 pieces`;
  const tray = $('place-tray');
  tray.replaceChildren();
  if (local.role && !p.left[local.role]) local.role = null;
  for (const r of PLACE_ROLES) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.role = r;
    b.disabled = !p.left[r];
    b.setAttribute('aria-pressed', String(local.role === r));
    b.setAttribute('aria-label', `${PIECE_TITLE[r]}: ${p.left[r]} left`);
    b.title = `${PIECE_TITLE[r]}: ${p.left[r]} left`;
    const piece = document.createElement('piece');
    piece.className = `${PIECE_OF[r]} ${p.seat}`;
    const left = document.createElement('span');
    left.className = 'left';
    left.textContent = String(p.left[r]);
    b.append(piece, left);
    b.addEventListener('click', () => {
      local.role = local.role === r ? null : r;
      $('place-error').hidden = true;
      renderPlace(app.state);
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

// ------------------------------------------------------------------ placing by dragging
// With a mouse or a finger: a tray piece onto a home square (a piece already there goes back to
// the tray), a placed piece onto another home square (a piece there swaps with it) or off the
// board (back to the tray). A press that does not move stays a click (tray: pick the piece;
// board: take it back and pick it up). Chessground draws the piece under the pointer
// (dragNewPiece, which it cannot drop itself: nothing is movable while placing); the drop is
// decided here and sent to the Session.

function pointerXY(e) {
  const t = (e.touches && e.touches[0]) || (e.changedTouches && e.changedTouches[0]);
  return t ? [t.clientX, t.clientY] : [e.clientX, e.clientY];
}

const placing = () => (app.state && app.state.placing && !app.state.handover ? app.state.placing : null);

function pressPlacePiece(e, role, from) {
  const p = placing();
  if (!p || (e.type === 'mousedown' && e.button !== 0)) return;
  if (from === 'tray' && !p.left[role]) return;
  const [x, y] = pointerXY(e);
  local.drag = { role, from, x, y, started: false };
}

// A press on a placed piece is ours (chessground would select the square and fire a click at once).
function onPlaceBoardPress(e) {
  const p = placing();
  if (!p || (e.type === 'mousedown' && e.button !== 0)) return;
  const key = app.cg.getKeyAtDomPos(pointerXY(e));
  const role = key && p.draft[key];
  if (!role) return; // a free square: chessground's select -> onPlaceSquare (click placement)
  e.stopPropagation();
  if (e.cancelable) e.preventDefault(); // no scrolling, no mouse events copied from the touch
  pressPlacePiece(e, role, key);
}

function movePlaceDrag(e) {
  const d = local.drag;
  if (!d) return;
  if (e.type === 'mousemove' && !(e.buttons & 1)) {
    // The button went up where we could not see it (outside the window): forget the drag.
    local.drag = null;
    if (d.started && app.state) renderBoard(app.state);
    return;
  }
  const [x, y] = pointerXY(e);
  if (e.type === 'touchmove' && e.cancelable) e.preventDefault();
  if (d.started || Math.hypot(x - d.x, y - d.y) < DRAG_START_PX) return;
  d.started = true;
  if (d.from !== 'tray') app.cg.setPieces(new Map([[d.from, undefined]])); // lifted off its square
  app.cg.dragNewPiece({ role: PIECE_OF[d.role], color: app.state.placing.seat }, e);
}

function endPlaceDrag(e) {
  const d = local.drag;
  local.drag = null;
  const st = app.state;
  if (!d || !st || !st.placing) return;
  if (e.type === 'touchcancel') return renderBoard(st);
  const key = d.started ? app.cg.getKeyAtDomPos(pointerXY(e)) : d.from === 'tray' ? null : d.from;
  dropPlacePiece(st, d, key);
}

// Where a dragged piece lands: key is a square of the board, or null/undefined off the board.
function dropPlacePiece(st, d, key) {
  const p = st.placing;
  let next = null;
  if (!d.started) {
    if (d.from === 'tray') return; // a click on the tray: its click handler picks the piece
    next = call('place', { square: d.from, role: null }, { quiet: true }); // a click: take it back
    if (next && !next.error) local.role = d.role;
  } else if (!key) {
    if (d.from === 'tray') return renderBoard(st);
    next = call('place', { square: d.from, role: null }, { quiet: true }); // off the board
  } else if (!p.squares.includes(key)) {
    renderBoard(st);
    return showPlaceError(homeRowsText(p.seat));
  } else if (d.from === 'tray') {
    next = call('place', { square: key, role: d.role }, { quiet: true });
  } else if (key === d.from) {
    return renderBoard(st);
  } else {
    next = call('move_placed', { orig: d.from, dest: key }, { quiet: true });
  }
  if (!next) return;
  if (next.error) return showPlaceError(next.error);
  $('place-error').hidden = true;
  renderPlace(app.state);
}

$('board').addEventListener('mousedown', onPlaceBoardPress, { capture: true });
$('board').addEventListener('touchstart', onPlaceBoardPress, { capture: true, passive: false });
document.addEventListener('mousemove', movePlaceDrag);
document.addEventListener('touchmove', movePlaceDrag, { passive: false });
document.addEventListener('mouseup', endPlaceDrag);
document.addEventListener('touchend', endPlaceDrag);
document.addEventListener('touchcancel', endPlaceDrag);

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

// ------------------------------------------------------------------ what an unknown piece may be

// What an enemy piece of unknown identity may be ("N or B or P"), shown over its square on hover
// (mouse) or tap.
function showCandidates(st, key) {
  const tip = $('cand-tip');
  const text = st && st.identity && st.identity.candidatesText[key];
  if (!text || st.handover) {
    tip.hidden = true;
    return;
  }
  const { col, row } = screenCell(key, st.orientation);
  tip.textContent = text;
  tip.dataset.square = key;
  tip.style.left = `${(col + 0.5) * 12.5}%`;
  tip.style.top = `${row * 12.5}%`;
  tip.hidden = false;
}

$('board').addEventListener('mousemove', e => {
  const st = app.state;
  if (!st || !st.identity) return;
  const key = squareAt(e);
  if (key && st.identity.candidatesText[key]) showCandidates(st, key);
  else $('cand-tip').hidden = true;
});
$('board').addEventListener('mouseleave', () => ($('cand-tip').hidden = true));

// ------------------------------------------------------------------ the panel

export default registerPanel({
  id: 'hidden-identity',
  // No animation: a blank turning into a piece must not linger as a fading ghost.
  stillPieces: st => !!st.identity,
  overlay(st, mark) {
    if (!st.placing) return;
    for (const sq of st.placing.squares) if (!st.placing.draft[sq]) mark.cls(sq, 'place-target');
  },
  select(st, key) {
    if (st.placing) {
      onPlaceSquare(st, key);
      return true;
    }
    if (st.identity) showCandidates(st, key);
    return false;
  },
  render(st) {
    renderPlace(st);
    $('cand-tip').hidden = true;
    $('board').classList.toggle('is-placing', !!st.placing);
  },
  setup(st) {
    if (!st.identity) return null;
    const p = st.placing;
    return {
      seat: p ? p.seat : null,
      marker: 'placing pieces',
      status: !p ? 'Placing the pieces' : st.computer || st.peer ? 'You place your pieces' : `${COLOR_NAMES[p.seat]} places the pieces`,
    };
  },
  handoverIcon: st => (st.identity ? 'assets/img/unknown-white.svg' : null),
  handoverText(st, who) {
    return st.handover.for === 'place' ? `${who} places their 16 pieces in private.` : null;
  },
  moveNote: (st, m) => (st.identity && st.identity.notes[String(m.ply)]) || null,
  tray(st) {
    if (!st.identity) return null;
    return {
      what: 'Pieces',
      items: (st.identity.captured || []).map(c => ({
        color: c.color,
        label: `${c.piece} on ${c.square}`,
        node: () => {
          const item = document.createElement('span');
          item.className = 'tray-item cg-wrap';
          item.dataset.piece = PIECE_LETTER[c.piece] || c.piece;
          item.title = `${COLOR_NAMES[c.color]}'s ${c.piece}, captured on ${c.square}`;
          const p = document.createElement('piece');
          p.className = `${c.piece} ${c.color}`;
          item.appendChild(p);
          return item;
        },
      })),
    };
  },
  // The note of the last move (en passant against a piece that was not a pawn, a discovery), once.
  notify(st) {
    if (!st.identity || !st.identity.lastNote || st.replay) return;
    const key = `${st.gameId}|${(st.moves || []).length}|${st.identity.lastNote}`;
    if (local.noteShownFor !== key) {
      local.noteShownFor = key;
      showToast(st.identity.lastNote, { kind: 'info' });
    }
  },
});
