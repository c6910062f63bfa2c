// Hidden Chess -- the saved game on screen at once. The rules engine takes seconds to start; until
// it does, a reload draws the last state this page showed (board, clocks, move list, players),
// marked as loading and not movable, instead of the start position. The copy is exactly what was
// on screen then, and never a board a player holds on one device (a reload hands the device over
// again), so it shows no secret a hand-over hides. It is used only while the save it was drawn
// from is still the current one (same write revision), kept small (the last moves only) and
// dropped whenever storage is short: the game's own save always comes first.

import { $, PREVIEW_KEY as KEY, saveRevision, savedPreview } from './dom.js';
import { app } from './state.js';
import { render } from './bridge.js';

const MAX_MOVES = 60;
const MAX_BYTES = 48 * 1024;
const pending = { timer: 0, state: null };

function write() {
  pending.timer = 0;
  const st = pending.state;
  if (!st || !app.ready) return;
  const rev = saveRevision(st.gameId); // (this game's own save)
  try {
    if (!rev || st.stale) {
      window.localStorage.removeItem(KEY);
      return;
    }
    // One device, secrets, a player holding it: after a reload the device is handed over again,
    // so this board (that player's secrets) is never kept; the last hand-over screen stays.
    const seat = st.viewer === 'white' || st.viewer === 'black';
    if (seat && !st.computer && !st.peer && !(st.status && st.status.over)) return;
    const moves = st.moves || [];
    const copy = {
      ...st,
      moves: moves.slice(-MAX_MOVES),
      movable: { color: null, dests: {} },
      error: null,
      replay: null,
    };
    const text = JSON.stringify({ rev, state: copy });
    if (text.length > MAX_BYTES) window.localStorage.removeItem(KEY);
    else window.localStorage.setItem(KEY, text);
  } catch {
    // storage full or blocked: no preview next time; the game's save is not touched
    try {
      window.localStorage.removeItem(KEY);
    } catch {
      /* nothing more to do */
    }
  }
}

/** Render hook: remember what is on screen (written after a quiet moment, and on leaving). */
export function rememberPreview(st) {
  if (!app.ready || !st || st.replay) return;
  pending.state = st;
  if (!pending.timer) pending.timer = setTimeout(write, 400);
}

export function flushPreview() {
  if (pending.timer) {
    clearTimeout(pending.timer);
    write();
  }
}

/** Before the engine is up: draw the saved game as it was last shown, if that is still current. */
export function showPreview() {
  if (app.ready || app.state) return false;
  const saved = savedPreview();
  if (!saved) return false;
  try {
    document.body.dataset.preview = 'true';
    $('loading-text').textContent = 'Loading the rules engine… (your game is shown as saved)';
    render(saved, { quiet: true });
    // Its marks (neckties, covers) are drawn over the board once it has its size on the page: the
    // marks set in the same moment as the position were not drawn at all (seen on phones).
    if (app.cg) requestAnimationFrame(() => app.cg && document.body.dataset.preview === 'true' && app.cg.redrawAll());
    app.state = null; // the real state comes from the engine
    return true;
  } catch (err) {
    document.body.dataset.preview = 'false';
    console.warn('the saved preview could not be drawn', err);
    return false;
  }
}

/** The engine is up: the preview gives way to the real state. */
export function endPreview() {
  const shown = document.body.dataset.preview === 'true' || document.body.dataset.preview === 'early';
  document.body.dataset.preview = 'false';
  // The marks drawn over the preview (covers, crowns...) may equal the real state's, and
  // chessground keeps equal shapes as they are: draw the board afresh once, with the real state.
  if (shown && app.cg) app.cg.redrawAll();
  // ...and once more after the first frame of the real state, whatever came first (a late layout
  // change of the page around the board must not leave the marks drawn for the old one).
  if (app.cg) requestAnimationFrame(() => app.cg.redrawAll());
}
