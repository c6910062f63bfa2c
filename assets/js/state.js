// Hidden Chess -- the page's shared mutable state: one object instead of module-level variables.
// Everything else a module remembers is private to it (a `const` object in that module).

export const app = {
  state: null, // the last state from the Session (py/hiddenchess/app/session.py)
  ready: false, // Python is up: window.hc.call works
  cg: null, // the chessground board (board.js)
  bannerDismissedFor: null, // key of the game-over the player closed (status.js)
  noticeDismissed: null, // text of the notice the player closed (status.js)
  noticeDismissedFor: '', // and, for a warning, the game and move it was closed at
};
