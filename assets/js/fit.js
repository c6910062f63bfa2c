// Hidden Chess -- on a phone held upright, the action of the moment (sealing, placing, a penalty
// to choose, a draw offer to answer: the panels under the board) stays on the screen without
// scrolling: when it would end below the screen, the board shrinks by as much (app.css reads
// --board-fit), and grows back when the action is done. The column under the board keeps the
// screen's width, so the panel's height does not depend on the board's and one step is enough.

import { $ } from './dom.js';

const ACTIONS = ['seal-panel', 'place-panel', 'penalty-panel', 'offer'];
const MIN_BOARD = 200; // px: smaller than this, the squares are too small to tap
const MARGIN = 6; // px between the action and the bottom of the screen
const media = q => window.matchMedia(q).matches;
const upright = () => media('(max-width: 820px)') && !media('(orientation: landscape) and (max-height: 500px)');
const fitState = { frame: 0 };

/** The screen's height in the page's pixels. Right after the board shrinks, chessground's own box
 * keeps its old size until it redraws; a phone then widens the page to show it all, and the
 * screen is taller in the page's pixels for a while (innerHeight 683 and 669 instead of 640 at 360
 * wide). A fit measured then left the action below the screen. A phone's screen is never wider
 * than screen.width held upright (iOS gives the upright width in landscape too), so the height is
 * scaled back by as much as the page is wider. */
function screenHeight() {
  const width = window.screen.width;
  if (!media('(orientation: portrait)') || !(width > 0) || window.innerWidth <= width) return window.innerHeight;
  return window.innerHeight * width / window.innerWidth;
}

function visibleAction() {
  for (const id of ACTIONS) {
    const el = $(id);
    if (el && !el.hidden && el.getClientRects().length) return el;
  }
  return null;
}

function fit() {
  fitState.frame = 0;
  const root = document.documentElement;
  const action = upright() ? visibleAction() : null;
  if (!action) {
    root.style.removeProperty('--board-fit');
    return;
  }
  const frame = document.querySelector('.board-frame');
  const now = frame.getBoundingClientRect().height;
  const bottom = action.getBoundingClientRect().bottom + window.scrollY;
  const want = Math.max(MIN_BOARD, Math.floor(now - (bottom + MARGIN - screenHeight())));
  if (Math.abs(want - now) >= 1) root.style.setProperty('--board-fit', `${want}px`);
}

/** Fit the board to the action at the next frame (after a render, a resize, a panel change). */
export function fitBoard() {
  if (!fitState.frame) fitState.frame = requestAnimationFrame(fit);
}

export function startFit() {
  window.addEventListener('resize', fitBoard);
  window.addEventListener('orientationchange', fitBoard);
  if (window.visualViewport) window.visualViewport.addEventListener('resize', fitBoard);
  if ('ResizeObserver' in window) {
    const watch = new ResizeObserver(fitBoard);
    for (const id of ACTIONS) if ($(id)) watch.observe($(id));
  }
  fitBoard();
}
