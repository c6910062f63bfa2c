// Hidden Chess -- the bridge to the Python Session: window.hc.call(action, argsJson) -> stateJson
// (set up by py/main.py). Every state that comes back is handed to the renderers main.js wires in
// (in order), then to the after-call hooks (friend play sends what the protocol queued).
//
// The move list comes as a change of the last one received (py/hiddenchess/app/wire.py):
// `movesDelta: {base, from, items, changed}` keeps the first `from` moves of the list of answer
// `base`, puts in the `changed` ones ([index, move] pairs) and appends `items`; every answer has
// its number, `wireSeq`.

import { app } from './state.js';
import { showBoardToast, showToast } from './toast.js';
import { reportFault } from './fault.js';

// The move list of the last answer read, and its number.
const wire = { seq: null, moves: [] };

/** A state from the JSON text of an answer (the move list put back together). */
function decode(text) {
  let st = JSON.parse(text);
  const delta = st.movesDelta;
  if (delta) {
    if (delta.base === wire.seq && delta.from <= wire.moves.length) {
      const kept = wire.moves.slice(0, delta.from);
      for (const [i, item] of delta.changed || []) kept[i] = item;
      st.moves = kept.concat(delta.items);
      delete st.movesDelta;
    } else {
      st = JSON.parse(window.hc.full()); // an answer was missed: the whole state again
    }
  }
  wire.seq = st.wireSeq;
  delete st.wireSeq;
  wire.moves = st.moves || [];
  return st;
}

const hooks = {
  renderers: [], // fn(state, {quiet}) in order, for every state
  afterCall: [], // fn(state) after each call (not after a poll's render)
  failed: [], // fn(state) when a call threw: redraw what the click changed
};

/** Draw every state with fn(state, {quiet}), in the order of registration. */
export function onRender(fn) {
  hooks.renderers.push(fn);
}

/** fn(state) after each call's render. */
export function onAfterCall(fn) {
  hooks.afterCall.push(fn);
}

/** fn(lastState) when a call failed (the last good state is drawn again). */
export function onCallFailed(fn) {
  hooks.failed.push(fn);
}

/** Render a state the page got (from a call, or a poll of its own). */
export function render(st, { quiet = false } = {}) {
  app.state = st;
  for (const fn of hooks.renderers) {
    // One part of the page that fails to draw leaves the others drawn (the board, the clocks, the
    // connection); the fault is reported as the page's uncaught error, never swallowed.
    try {
      fn(st, { quiet });
    } catch (err) {
      reportFault(err);
    }
  }
}

/** Run the hooks that follow a call (e.g. after a poll that changed something). */
export function afterCall(st) {
  for (const fn of hooks.afterCall) fn(st);
}

/**
 * Send one action to the Session and render the state it returns (null before Python is up or
 * when the call threw). quiet: an error in the state is not shown as a toast (the caller shows
 * it); boardError: the error is shown over the board.
 */
export function call(action, args = {}, { quiet = false, boardError = false } = {}) {
  if (!app.ready) return null;
  let st;
  try {
    st = decode(window.hc.call(action, JSON.stringify(args)));
  } catch (err) {
    console.error(err);
    showToast(`Something went wrong: ${err && err.message ? err.message.split('\n').slice(-2).join(' ') : err}`);
    if (app.state) for (const fn of hooks.failed) fn(app.state);
    return null;
  }
  render(st, { quiet: quiet || (boardError && !!st.error) });
  if (boardError && st.error) showBoardToast(st.error);
  afterCall(st);
  return st;
}

// What arrived before the Session was up (e.g. a friend's channel that opened while Python was
// still starting, as on a fast return visit): run in order once it is, never dropped.
const early = [];

/** Run fn now if the Session is up, else once it is (main.js: after the game is restored). */
export function whenReady(fn) {
  if (app.ready) fn();
  else early.push(fn);
}

/** The Session is up and its game restored: run what waited for it, in order. */
export function runWaiting() {
  for (const fn of early.splice(0)) {
    try {
      fn();
    } catch (err) {
      console.error(err);
    }
  }
}

/** The state of an action without rendering it (polls compare it with the last one first). */
export function peek(action, args = {}) {
  return decode(window.hc.call(action, JSON.stringify(args)));
}
