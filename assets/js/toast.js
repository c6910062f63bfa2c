// Hidden Chess -- short messages: the toast at the bottom of the page and the one over the board.

import { $ } from './dom.js';

const timers = { toast: 0, board: 0 };

/**
 * A message at the top of the page for 4.5 s. ``kind`` 'error' (default: a red alert) or 'info'
 * (a neutral notice such as the computer declining a draw: quiet colours, announced politely,
 * at the bottom of the page so that it covers no rank of the board).
 */
export function showToast(text, { kind = 'error' } = {}) {
  const t = $('toast');
  const info = kind === 'info';
  t.classList.toggle('is-info', info);
  t.setAttribute('role', info ? 'status' : 'alert');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(timers.toast);
  timers.toast = setTimeout(() => (t.hidden = true), 4500);
}

export function hideToasts() {
  clearTimeout(timers.toast);
  clearTimeout(timers.board);
  $('toast').hidden = true;
  $('board-toast').hidden = true;
}

/** Take the board's notice away (it spoke of a moment that has passed). */
export function hideBoardToast() {
  clearTimeout(timers.board);
  $('board-toast').hidden = true;
}

export function showBoardToast(text) {
  const t = $('board-toast');
  t.textContent = text;
  t.hidden = false;
  t.classList.remove('is-shown'); // restart the one-off fade-in
  void t.offsetWidth;
  t.classList.add('is-shown');
  clearTimeout(timers.board);
  timers.board = setTimeout(() => (t.hidden = true), 3500);
}
