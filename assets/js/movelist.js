// Hidden Chess -- the move list and, once the game is over, the replay (bar, clicks on moves).

import { $, isOver } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { any, first } from './panels/index.js';

export function renderMoves(st) {
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
    if (m.reveal) san.classList.add('has-reveal'); // the move revealed something
    if (m.illegal) san.classList.add('has-illegal'); // an illegal move (tabletop rules), found
    const note = first('moveNote', st, m);
    if (note) {
      san.classList.add('has-note');
      san.title = note;
    }
    if (isOver(st)) {
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

export function renderReplay(st) {
  const over = isOver(st);
  const plies = (st.moves || []).length;
  $('replay-bar').hidden = !over;
  if (!over) return;
  const r = st.replay;
  const ply = r ? r.ply : plies;
  $('rp-pos').textContent = `${ply} / ${plies}`;
  $('rp-first').disabled = $('rp-prev').disabled = ply === 0;
  $('rp-next').disabled = $('rp-last').disabled = ply === plies;
  $('rp-persp').hidden = !any('perspectives', st);
  const persp = r ? r.perspective : 'all';
  for (const b of $('rp-persp').querySelectorAll('button')) b.setAttribute('aria-checked', String(b.dataset.persp === persp));
  $('replay-bar').classList.toggle('is-replaying', !!r);
}

export function replayPly() {
  const st = app.state;
  return st.replay ? st.replay.ply : (st.moves || []).length;
}

export function replayTo(ply, perspective) {
  const st = app.state;
  if (!isOver(st)) return;
  const args = {};
  if (ply !== undefined) args.ply = Math.max(0, Math.min((st.moves || []).length, ply));
  if (perspective !== undefined) args.perspective = perspective;
  call('replay', args);
}

$('rp-first').addEventListener('click', () => replayTo(0));
$('rp-prev').addEventListener('click', () => replayTo(replayPly() - 1));
$('rp-next').addEventListener('click', () => replayTo(replayPly() + 1));
$('rp-last').addEventListener('click', () => replayTo((app.state.moves || []).length));
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
