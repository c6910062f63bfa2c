// Hidden Chess -- the board from the keyboard: the board takes focus; the arrow keys move a cursor
// over the squares (as the board is turned), Enter or Space selects a piece and drops it (the
// same path as a click: chessground, then the variant's panels, then the Session), Escape
// cancels. The focused square is shown (a framed square) and said: "e4, white pawn, can move to
// e5". What is said comes from the state only -- the board as the seat at the device sees it
// (unknown pieces stay unknown), the marks of its variant (state.squareMarks: "your secret pawn",
// "covered", "royal"; a panel's squareWords hook adds its page-only picks: "chosen") and the
// moves it may try.

import { $, FILES, splitUnknown } from './dom.js';
import { app } from './state.js';
import { onRender } from './bridge.js';
import { onBoardMarks, redrawMarks } from './board.js';
import { announce } from './announce.js';
import { first } from './panels/registry.js';

const ROLE = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
// (for: the game and the seat the square belongs to -- another game or the next player at the
// device starts again, never on the squares the one before left it)
const cursor = { square: null, focused: false, for: null };

/** What stands on each square of the state's board: "white knight", "black piece, identity unknown". */
function pieceNames(st) {
  const out = {};
  const board = splitUnknown(st.fen || '');
  board.fen.split('/').forEach((row, r) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '8') file += Number(ch);
      else {
        out[`${FILES[file]}${8 - r}`] = `${ch === ch.toLowerCase() ? 'black' : 'white'} ${ROLE[ch.toLowerCase()] || 'piece'}`;
        file += 1;
      }
    }
  });
  for (const [sq, p] of board.unknown) out[sq] = `${p.color} piece, identity unknown`;
  return out;
}

/** The words for one square: "e4, white pawn, can move to e5", "d2, white pawn, your secret pawn". */
export function squareText(st, sq) {
  const piece = pieceNames(st)[sq];
  const parts = [sq, piece || 'empty'];
  if (piece && (st.squareMarks || {})[sq]) parts.push(st.squareMarks[sq]);
  const picked = first('squareWords', st, sq);
  if (picked) parts.push(picked);
  const dests = ((st.movable || {}).dests || {})[sq];
  if (dests && dests.length) parts.push(`can move to ${[...dests].sort().join(' ')}`);
  const selected = app.cg && app.cg.state.selected;
  if (selected && selected !== sq) {
    const to = ((st.movable || {}).dests || {})[selected] || [];
    if (to.includes(sq)) parts.push(`Enter moves ${selected} here`);
  }
  return parts.join(', ');
}

function startSquare(st) {
  if (st.lastMove) return st.lastMove[1];
  return st.orientation === 'black' ? 'e7' : 'e2';
}

/** The cursor's square in the state `st`: where it was, unless the game or the seat at the
 *  device changed since (a hand-over: the next player starts from the last move, or its own side). */
function cursorSquare(st) {
  const key = `${st.gameId}|${st.viewer}`;
  if (key !== cursor.for) {
    cursor.for = key;
    cursor.square = null;
    $('board').setAttribute('aria-label', 'Chess board');
  }
  return cursor.square || startSquare(st);
}

function step(sq, key, orientation) {
  let file = FILES.indexOf(sq[0]);
  let rank = Number(sq[1]);
  const flip = orientation === 'black' ? -1 : 1;
  if (key === 'ArrowUp') rank += flip;
  else if (key === 'ArrowDown') rank -= flip;
  else if (key === 'ArrowLeft') file -= flip;
  else if (key === 'ArrowRight') file += flip;
  file = Math.max(0, Math.min(7, file));
  rank = Math.max(1, Math.min(8, rank));
  return `${FILES[file]}${rank}`;
}

function moveCursor(sq) {
  cursor.square = sq;
  $('board').setAttribute('aria-label', `Chess board, ${sq}`);
  redrawMarks();
  if (app.state) announce(squareText(app.state, sq));
}

function onKey(e) {
  const st = app.state;
  if (!st || e.ctrlKey || e.metaKey || e.altKey) return;
  const sq = cursorSquare(st);
  cursor.focused = true;
  if (e.key.startsWith('Arrow')) {
    moveCursor(step(sq, e.key, st.orientation));
  } else if (e.key === 'Enter' || e.key === ' ') {
    const before = app.cg.state.selected;
    app.cg.selectSquare(sq); // (a selected piece and one of its squares: the move is made)
    const now = app.cg.state.selected;
    if (now && now !== before) announce(`Selected ${squareText(app.state, now)}`);
    else if (!now && before && before === sq) announce(`${sq}: selection cancelled`);
  } else if (e.key === 'Escape') {
    if (app.cg.state.selected) {
      app.cg.selectSquare(null);
      announce('Selection cancelled');
    }
  } else if (e.key === 'Home' || e.key === 'End') {
    moveCursor(e.key === 'Home' ? startSquare(st) : st.lastMove ? st.lastMove[0] : sq);
  } else {
    return;
  }
  e.preventDefault();
  e.stopPropagation(); // (the page's own keys -- replay, flip -- are not for the board)
}

export function startA11yBoard() {
  const el = $('board');
  el.tabIndex = 0;
  el.setAttribute('role', 'application');
  el.setAttribute('aria-roledescription', 'chess board');
  el.setAttribute('aria-label', 'Chess board');
  let help = $('board-help');
  if (!help) {
    help = document.createElement('p');
    help.id = 'board-help';
    help.className = 'sr-only';
    help.textContent =
      'Arrow keys move over the squares, Enter or Space picks up a piece and puts it down, Escape cancels. ' +
      'Or type moves in the move box.';
    el.after(help);
  }
  el.setAttribute('aria-describedby', 'board-help');
  el.addEventListener('keydown', onKey);
  el.addEventListener('focus', () => {
    if (!el.matches(':focus-visible')) return; // (a click: the pointer is the cursor)
    cursor.focused = true;
    if (app.state) moveCursor(cursorSquare(app.state));
  });
  el.addEventListener('blur', () => {
    cursor.focused = false;
    redrawMarks();
  });
  onBoardMarks(custom => {
    if (cursor.focused && cursor.square) {
      custom.set(cursor.square, (custom.get(cursor.square) ? `${custom.get(cursor.square)} ` : '') + 'kbd-cursor');
    }
  });
  // chessground's drawing (pieces, coordinates) is for the eye: the board itself is read aloud.
  onRender(st => {
    cursorSquare(st); // (a new game, or another player at the device: the cursor starts again)
    const inner = el.querySelector('cg-container');
    if (inner) inner.setAttribute('aria-hidden', 'true');
  });
}

startA11yBoard();
