// Hidden Identity by the tabletop rules (state.tabletop): a move the piece cannot make is played
// only once confirmed (bluffs); a player wronged by an illegal move picks enemy pieces to remove
// (the penalty panel); once the game is over, every illegal move is listed.

import { $, COLOR_NAMES, isOver, pieceColors } from '../dom.js';
import { app } from '../state.js';
import { call } from '../bridge.js';
import { renderBoard } from '../board.js';
import { confirmDialog } from '../dialogs.js';
import { showBoardToast } from '../toast.js';
import { registerPanel } from './registry.js';

const FOUND = { 'on-board': 'found on the board', 'on-capture': 'found on capture', 'at-end': 'disclosed at the end' };

const penalty = {
  choice: [], // enemy squares picked as the penalty (not yet sent)
  for: null, // gameId|ply|seat the picks belong to
};

const owed = st => (st.tabletop && st.tabletop.penalty) || null;

// The wronged player picks (or unpicks) an enemy piece to remove.
function selectPenalty(st, key) {
  const pen = owed(st);
  if (!pen || !pen.mine || st.handover) return false;
  const color = pieceColors(st.fen)[key];
  const enemy = !!color && color !== pen.by;
  if (!enemy) {
    showBoardToast(`Pick ${pen.count === 1 ? 'an enemy piece' : `${pen.count} enemy pieces`} to remove.`);
    return true;
  }
  if (penalty.choice.includes(key)) penalty.choice = penalty.choice.filter(s => s !== key);
  else if (penalty.choice.length < pen.count) penalty.choice = [...penalty.choice, key];
  else {
    showBoardToast(`You have already picked ${pen.count}: click one of them to unpick it.`);
    return true;
  }
  renderPenalty(st);
  renderBoard(st);
  return true;
}

function renderPenalty(st) {
  const pen = owed(st);
  const mine = !!(pen && pen.mine && !st.handover);
  $('penalty-panel').hidden = !mine;
  $('board').classList.toggle('is-penalty', mine);
  if (!mine) return;
  const n = pen.count;
  $('penalty-title').textContent = `${COLOR_NAMES[pen.by]}: choose ${n} enemy piece${n === 1 ? '' : 's'} to remove`;
  $('penalty-chosen').textContent = `Chosen: ${penalty.choice.length ? penalty.choice.join(', ') : 'none'}`;
  $('penalty-submit').disabled = penalty.choice.length !== n;
}

function renderSummary(st) {
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
  const ul = document.createElement('ul');
  for (const m of list) {
    const li = document.createElement('li');
    li.dataset.uci = m.uci;
    li.textContent = `${COLOR_NAMES[m.color]}, move ${Math.floor(m.ply / 2) + 1}: ${m.uci} (${FOUND[m.found] || m.found})`;
    ul.appendChild(li);
  }
  box.appendChild(ul);
}

// A move this piece cannot legally make is played only once confirmed.
function bluff(st, orig, dest) {
  const bluffs = (st.tabletop && st.tabletop.bluffs) || {};
  if (!(bluffs[orig] || []).includes(dest)) return false;
  confirmDialog('Illegal move?', 'This piece cannot move there: play it anyway?', 'Play it anyway').then(yes => {
    if (app.state !== st) return;
    if (yes) call('move', { orig, dest, allow_illegal: true }, { boardError: true });
    else renderBoard(st);
  });
  return true;
}

$('penalty-clear').addEventListener('click', () => {
  penalty.choice = [];
  if (app.state) {
    renderPenalty(app.state);
    renderBoard(app.state);
  }
});
$('penalty-submit').addEventListener('click', () => call('penalty', { squares: [...penalty.choice] }, { boardError: true }));

export default registerPanel({
  id: 'tabletop',
  reset(st) {
    const pen = owed(st);
    const key = pen && pen.mine ? `${st.gameId}|${(st.moves || []).length}|${pen.by}` : null;
    if (key !== penalty.for) {
      penalty.for = key;
      penalty.choice = [];
    }
  },
  overlay(st, mark) {
    const pen = owed(st);
    if (!pen || !pen.mine) return;
    for (const [sq, c] of Object.entries(pieceColors(st.fen))) {
      if (c !== pen.by) mark.cls(sq, penalty.choice.includes(sq) ? 'penalty-chosen' : 'penalty-candidate');
    }
  },
  select: selectPenalty,
  userMove: bluff,
  // (the keyboard cursor says a picked piece is picked, as the board's mark shows it)
  squareWords(st, sq) {
    const pen = owed(st);
    return pen && pen.mine && penalty.choice.includes(sq) ? 'chosen for removal' : null;
  },
  render(st) {
    renderPenalty(st);
    renderSummary(st);
  },
  handoverText(st, who) {
    if (st.handover.for !== 'penalty') return null;
    const pen = owed(st);
    const n = pen ? pen.count : 1;
    return `An illegal move was found: ${who} chooses ${n} enemy piece${n === 1 ? '' : 's'} to remove.`;
  },
  // While a penalty is owed, the side choosing it acts, not the side to move.
  actor(st) {
    const pen = owed(st);
    if (!pen || isOver(st)) return null;
    const n = pen.count;
    return {
      seat: pen.by,
      marker: 'choosing',
      status: `${COLOR_NAMES[pen.by]} chooses ${n} enemy piece${n === 1 ? '' : 's'} to remove`,
    };
  },
});
