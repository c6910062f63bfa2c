// Hidden Chess -- the promotion picker over the board.

import { $, screenCell } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';

const ROLE_NAMES = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight' };
const picking = { move: null, onCancel: null, from: null }; // move: {orig, dest, roles} being promoted; from: the focus before

// conditional: null, or the condition the choice depends on ("if it reveals a Pawn"): it is made
// before the move and applies only if the condition holds (the picker's note explains it).
export function showPromotion(orig, dest, roles, conditional = null, onCancel = null) {
  const st = app.state;
  picking.move = { orig, dest, roles };
  picking.onCancel = onCancel;
  if (!$('promo').contains(document.activeElement)) picking.from = document.activeElement;
  const color = st.turnColor;
  const picker = $('promo-picker');
  picker.replaceChildren();
  const { col, row } = screenCell(dest, st.orientation); // row 0 = top row on screen
  picker.style.left = `${col * 12.5}%`;
  const fromTop = row < 4;
  picker.classList.toggle('from-bottom', !fromTop);
  picker.style.top = fromTop ? `${row * 12.5}%` : '';
  picker.style.bottom = fromTop ? '' : `${(7 - row) * 12.5}%`;
  const note = $('promo-note');
  note.hidden = !conditional;
  note.classList.toggle('at-top', !fromTop); // on the half of the board the picker leaves free
  $('promo').classList.toggle('is-conditional', !!conditional);
  for (const r of roles) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.role = r;
    b.setAttribute('aria-label', `Promote to ${ROLE_NAMES[r] || r}${conditional ? ` ${conditional}` : ''}`);
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
  const p = picking.move;
  hidePromotion();
  if (p) call('move', { orig: p.orig, dest: p.dest, promotion: role }, { boardError: true });
}

function cancelPromotion() {
  const onCancel = picking.onCancel;
  hidePromotion();
  if (onCancel) onCancel(); // put the pawn back
}

export function hidePromotion() {
  picking.move = null;
  picking.onCancel = null;
  const wasOpen = !$('promo').hidden;
  const inside = $('promo').contains(document.activeElement) || document.activeElement === document.body;
  $('promo').hidden = true;
  // The focus goes back where the move came from (the board's cursor, the page).
  const from = picking.from;
  picking.from = null;
  if (wasOpen && inside && from && from.isConnected && from !== document.body) from.focus();
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
