// Hidden Chess -- short messages: the toast at the bottom of the page and the one over the board.

import { $ } from './dom.js';

const timers = { toast: 0, board: 0 };

export function showToast(text) {
  const t = $('toast');
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
