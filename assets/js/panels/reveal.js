// Reveal Chess (state.reveal): a "?" badge on every covered piece, a gold tag naming the role the
// last move drew, and the pools with the odds of each side's next reveal.

import { $, COLOR_NAMES, COLORS, boardColors } from '../dom.js';
import { registerPanel } from './registry.js';

// The "?" badge on a covered piece (top-right corner of its square, above the piece).
const COVER_SVG =
  '<g class="cover-badge">' +
  '<circle cx="79" cy="21" r="17" fill="#2f6fb0" stroke="#fff" stroke-width="4"/>' +
  '<path d="M73 16.5a6.2 6.2 0 1 1 8.8 5.6c-1.8.9-2.8 2-2.8 4v1.2" fill="none" stroke="#fff" stroke-width="4.6" stroke-linecap="round" stroke-linejoin="round"/>' +
  '<circle cx="79" cy="33.2" r="2.9" fill="#fff"/></g>';
const ROLE_LETTERS = ['q', 'r', 'b', 'n', 'p'];
const ROLE_LETTER_OF = { queen: 'Q', rook: 'R', bishop: 'B', knight: 'N', pawn: 'P' };
const POOL_NAMES = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', p: 'Pawn' };

// The gold tag naming the role the last move drew (bottom-left corner of its square): "N", or
// "P=N" for a cover that drew a Pawn on the last rank and promoted (the piece shown is the knight).
function drawnTagSvg(text) {
  const width = text.length === 1 ? 31 : 15 * text.length + 10;
  return (
    '<g class="drawn-tag">' +
    `<rect x="3" y="66" width="${width}" height="31" rx="7" fill="#ffc400" stroke="#5a3d00" stroke-width="3"/>` +
    `<text x="${3 + width / 2}" y="90" text-anchor="middle" font-family="system-ui, sans-serif" font-weight="800" font-size="24" fill="#3a2600">${text}</text></g>`
  );
}

const drawnText = r =>
  (ROLE_LETTER_OF[r.role] || '?') + (r.promoted ? `=${ROLE_LETTER_OF[r.promoted] || '?'}` : '');

// Each side's pool, with the odds of its next reveal; the role just drawn flashes once.
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
  let covers = rv.covers;
  if (!covers) {
    covers = { white: 0, black: 0 };
    const colors = boardColors(st.fen);
    for (const sq of rv.covered || []) if (colors[sq]) covers[colors[sq]] += 1;
  }
  const drawn = new Set((rv.last || []).map(r => `${r.color}|${(ROLE_LETTER_OF[r.role] || '').toLowerCase()}`));
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const color of COLORS) {
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
      // (no cover left: the roles still in the pool are those of covers captured unrevealed,
      // which never come back, so there is no next reveal and no odds)
      const none = !covers[color];
      const pct = Math.round((odds[r] || 0) * 100);
      td.title = `${COLOR_NAMES[color]}: ${n} ${POOL_NAMES[r].toLowerCase()}${n === 1 ? '' : 's'} left, `
        + (none ? 'no covered piece left to reveal' : `${pct}% for the next reveal`);
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
      odd.textContent = none ? '–' : `${pct}%`;
      td.append(icon, count, odd);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $('pools-covers').textContent = st.replay ? `(replay ${st.replay.ply} / ${st.replay.plies})` : '';
}

export default registerPanel({
  id: 'reveal',
  // A rules page's example board: the "?" on every covered piece (marks.covered).
  guideMarks(marks, mark) {
    for (const sq of marks.covered || []) mark.svg(sq, COVER_SVG);
  },
  overlay(st, mark) {
    const rv = st.reveal;
    if (!rv) return;
    for (const sq of rv.covered || []) {
      mark.cls(sq, 'covered');
      mark.svg(sq, COVER_SVG);
    }
    for (const r of rv.last || []) {
      mark.cls(r.square, 'reveal');
      mark.svg(r.square, drawnTagSvg(drawnText(r)));
    }
  },
  // A covered piece going to the last rank: the choice applies only if it reveals a Pawn.
  conditionalPromotion: (st, uci) =>
    st.reveal && (st.reveal.conditional || []).includes(uci) ? 'if it reveals a Pawn' : null,
  render: renderPools,
  handoverIcon: st => (st.reveal ? 'assets/img/reveal.svg' : null),
  // A draw opening that is overdue is judged on this page's time (friend play asks each second).
  ticking: st => !!st.reveal,
});
