// Hidden Chess -- the page. A thin renderer: every decision is made by the Python Session
// (py/hiddenchess/app/session.py) behind window.hc.call(action, argsJson) -> stateJson, set up by
// py/main.py. These modules draw the state they get back and turn clicks into actions:
//
//   main.js      start-up and wiring (this file)      bridge.js   hc.call, render dispatch
//   state.js     the shared mutable state             dom.js      small helpers
//   board.js     chessground                          promotion.js  the promotion picker
//   players.js   player boxes, trays, draw offer      status.js   status, banner, notice, hand-over, claim
//   movelist.js  moves and replay                     clock.js    clocks
//   dialogs.js   confirm, new game                    toast.js    toasts
//   computer.js  the computer (PyScript worker)       friend.js, friend-ui.js  play with a friend
//   start.js     start screen, rules pages, first-game hints    preview.js  the saved game drawn before Python is up
//   settings.js  board, colours, coordinates, animation, sound  sound.js   the sounds (Web Audio)
//   exchange.js  export (PGN, record, FEN, replay link) and import
//   levels.js    the computer's levels: the approximate rating shown beside each
//   games.js     the Games screen (the games kept here)   yourmove.js  "your move": title, icon, notification
//   tabgame.js   which game this tab shows (each game has its own storage key)
//   analysis.js  analysis after the game: evaluation and best move of the replayed position
//   dots.js      the "thinking" dots' beat (no infinite CSS animation)
//   chat.js      the chat of a game online (state.peer.chat)
//   panels/      one module per variant (panels/registry.js: the hooks they answer)
//
// The board is drawn by chessground as soon as this module runs (before Python is up) and
// becomes movable when main.py sets window.hcReady and fires the "hc:ready" event.
//
// Only what draws that first board is imported statically (board.js and what it needs: the
// modulepreload list of index.html, kept equal to it by tests/test_build.py); the rest of the
// page is imported after the board's first frame, long before Python is up.

import { $, isOver, saveRevision, savedPreview, showTitle, titleParts } from './dom.js';
import { app } from './state.js';
import { call, onAfterCall, onRender, runWaiting } from './bridge.js';
import { renderBoard, startBoard } from './board.js';
import { hidePromotion } from './promotion.js';
import { showToast } from './toast.js';

// A reload draws the saved game's position and title at once (its marks, players and moves follow
// with the rest of the page, preview.js), never the start position titled "Standard" first.
const early = window.hcReady ? null : savedPreview();
startBoard(early);
showTitle(early ? titleParts(early) : saveRevision() ? [] : ['Standard']);
if (early) {
  document.body.dataset.preview = 'early'; // ("true" once the whole preview is drawn, preview.js)
  $('loading-text').textContent = 'Loading the rules engine… (your game is shown as saved)';
}

// The page is being left (reload, navigation): parts still loading are cut short, not broken.
const leaving = { now: false };
window.addEventListener('beforeunload', () => (leaving.now = true));
window.addEventListener('pagehide', () => (leaving.now = true));
window.addEventListener('pageshow', () => (leaving.now = false));

// For tests and the console: drive the page through the same path as the buttons.
window.hcApp = {
  call,
  state: () => app.state,
  boardFen: () => app.cg.getFen(),
  premove: () => app.cg.state.premovable.current || null,
  animating: () => !!app.cg.state.animation.current,
};

// Let the board paint, then fetch the rest of the page (a hidden tab gets no frames: 50 ms at most).
await new Promise(resolve => {
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 50);
});
// Python, started from its snapshot on a return visit, waits for this (index.html, pyodide-boot.js).
window.dispatchEvent(new Event('hc:board-drawn'));
// ...once PyScript has asked for Pyodide (the long pole): the ~40 small modules of the page then
// load while Pyodide downloads and compiles, instead of delaying its start (at most 800 ms).
await new Promise(resolve => {
  const started = () => performance.getEntriesByType('resource').some(r => /\/pyodide\.m?js$/.test(r.name));
  const since = performance.now();
  const look = () => (started() || performance.now() - since > 800 ? resolve() : setTimeout(look, 25));
  look();
});
const [
  { each },
  { renderPlayers, renderTrays },
  { dismissBanner, rematch, renderBanner, renderClaim, renderHandover, renderNotice, renderStatus },
  { focusReplay, renderMoves, renderReplay, replayPly, replayTo },
  { startClocks, updateClocks },
  { openNewGame },
  { renderComputer, think },
  { friendAfterCall, friendOpenLink, renderFriend, startFriend },
  { startOffline },
  { maybeOpenStart, renderHint, renderStart, startStart },
  { endPreview, flushPreview, rememberPreview, showPreview },
  { startSettings },
  { renderSound, startSound },
  { openReplayLink, startExchange },
  { fitBoard, startFit },
  { gamesChanged, renderGamesBadge, renderStartGames, startGames },
  { renderYourMove, startYourMove },
  { saveKey, tabGame },
  { renderAnalysis },
  { startDots },
  { startChat },
] = await Promise.all([
  import('./panels/index.js'),
  import('./players.js'),
  import('./status.js'),
  import('./movelist.js'),
  import('./clock.js'),
  import('./dialogs.js'),
  import('./computer.js'),
  import('./friend-ui.js'),
  import('./offline.js'),
  import('./start.js'),
  import('./preview.js'),
  import('./settings.js'),
  import('./sound.js'),
  import('./exchange.js'),
  import('./fit.js'),
  import('./games.js'),
  import('./yourmove.js'),
  import('./tabgame.js'),
  import('./analysis.js'),
  import('./dots.js'),
  import('./chat.js'),
]).catch(error => {
  // A reload or a link followed while the parts load cuts their fetches short: nothing failed.
  if (leaving.now) return new Promise(() => {});
  $('loading').classList.add('is-failed');
  $('loading-text').textContent = 'The page could not load all its parts. Reload the page to try again.';
  throw error;
});

// ------------------------------------------------------------------ what a state draws, in order

function renderPage(st) {
  $('chk-autoflip').checked = !!st.autoFlip;
  $('layout').dataset.orientation = st.orientation;
  showTitle(titleParts(st));
  document.body.dataset.variant = st.variant ? st.variant.id : '';
  document.body.dataset.over = st.status && st.status.over ? 'true' : 'false';
  document.body.dataset.viewer = st.viewer || '';
  document.body.dataset.replay = st.replay ? st.replay.perspective : '';
}

onRender(() => hidePromotion());
onRender(st => each('reset', st));
onRender(renderBoard);
onRender(renderPlayers);
onRender(renderMoves);
onRender(renderStatus);
onRender(renderBanner);
onRender(renderNotice);
onRender(renderClaim);
onRender(renderHandover);
onRender(renderTrays);
onRender(st => each('render', st));
onRender(renderReplay);
onRender(renderAnalysis);
onRender(renderPage);
onRender(renderComputer);
onRender(renderFriend);
onRender((st, { quiet }) => {
  if (st.error && !quiet) showToast(st.error);
  else each('notify', st);
});
onRender(() => updateClocks());
onRender(think);
onRender(renderHint);
onRender(renderStart);
onRender(rememberPreview);
onRender(renderSound);
onRender(fitBoard);
onRender(renderGamesBadge);
onRender(renderStartGames);
onRender(renderYourMove);
onAfterCall(friendAfterCall); // friend play: send the protocol messages this call queued

// ------------------------------------------------------------------ buttons and keys

$('btn-new').addEventListener('click', openNewGame);
$('banner-new').addEventListener('click', openNewGame);
$('banner-rematch').addEventListener('click', rematch);
$('banner-replay').addEventListener('click', () => {
  dismissBanner();
  replayTo(0);
  focusReplay(); // (the banner is gone: the keyboard goes on from the replay bar)
});
$('btn-flip').addEventListener('click', () => call('flip'));
$('chk-autoflip').addEventListener('change', e => call('set_auto_flip', { on: e.target.checked }));

document.addEventListener('keydown', e => {
  if (e.target instanceof HTMLInputElement || document.querySelector('dialog[open]') || !$('promo').hidden) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'f') call('flip');
  const st = app.state;
  // The arrows browse the moves: after the game, and during play too (as lichess does) unless the
  // board has the focus (there they move its cursor) or a hand-over hides the board.
  const onBoard = $('board').contains(document.activeElement);
  const browsable = st && (isOver(st) || (!onBoard && !st.handover && st.phase === 'play'));
  if (browsable) {
    const plies = (st.moves || []).length;
    const keys = {
      ArrowLeft: () => replayPly() - 1,
      ArrowRight: () => replayPly() + 1,
      ArrowUp: () => 0,
      Home: () => 0,
      ArrowDown: () => plies,
      End: () => plies,
    };
    if (keys[e.key]) {
      e.preventDefault();
      replayTo(keys[e.key]());
    }
  }
});

// The mouse wheel over the board steps through the moves, as on lichess (down: the next move,
// up: the one before), where the arrow keys would; a trackpad's small steps add up to one move.
const wheel = { sum: 0 };
$('board').addEventListener(
  'wheel',
  e => {
    const st = app.state;
    const browsable = st && (isOver(st) || (!st.handover && st.phase === 'play')) && (st.moves || []).length > 0;
    if (!browsable || e.ctrlKey || document.querySelector('dialog[open]') || !$('promo').hidden) return;
    e.preventDefault();
    wheel.sum += e.deltaMode === 1 ? e.deltaY * 40 : e.deltaMode === 2 ? e.deltaY * 400 : e.deltaY;
    if (Math.abs(wheel.sum) < 40) return;
    const step = wheel.sum > 0 ? 1 : -1;
    wheel.sum = 0;
    replayTo(Math.max(0, replayPly() + step));
  },
  { passive: false },
);

// ------------------------------------------------------------------ start-up

function onReady() {
  if (app.ready) return;
  app.ready = true;
  const tab = tabGame(); // (this tab's game across its reloads; a new tab: the device's last game)
  const st = call('restore', tab ? { game: tab } : {});
  runWaiting(); // (e.g. a friend's channel that opened while Python was starting)
  endPreview();
  $('loading').hidden = true;
  for (const id of ['btn-new', 'btn-flip', 'chk-autoflip', 'btn-exchange', 'btn-games']) $(id).disabled = false;
  document.body.dataset.ready = 'true';
  friendOpenLink(); // opened with an invite link (#join=...)
  maybeOpenStart(st); // a first visit: the start screen; #rules=<id>: a rules page
  openReplayLink(); // opened with a replay link (#replay=...): import that game
  return st;
}

// Another tab saved this game: the Session checks whether it is newer (then this page goes stale
// and says so); each game has its own key, so another game played in another tab changes nothing
// here but the list of games. Leaving the page saves the clocks as they stand (see Session.suspend).
window.addEventListener('storage', e => {
  if (!app.ready) return;
  const own = app.state && app.state.gameId ? saveKey(app.state.gameId) : null;
  if (e.key === own || e.key === null) call('storage_changed', {}, { quiet: true });
  gamesChanged(e.key);
});
window.addEventListener('pagehide', () => {
  if (!app.ready) return;
  call('suspend', {}, { quiet: true });
  flushPreview();
});
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'hidden' || !app.ready) return;
  call('suspend', {}, { quiet: true });
  flushPreview();
});

startClocks();
startFriend();
startOffline();
startStart();
startSettings();
startSound();
startExchange();
startFit();
startGames();
startYourMove();
startDots();
startChat();

if (window.hcReady) onReady();
else {
  // The saved game as it was last shown, until the engine is up; "none" says there is none to show.
  if (!showPreview() && !document.body.dataset.preview) document.body.dataset.preview = 'none';
  window.addEventListener('hc:ready', onReady, { once: true });
}

// A few discrete steps a second: cheap for the main thread while Python starts (see app.css).
const spin = { angle: 0 };
const spinTimer = setInterval(() => {
  if (app.ready) return clearInterval(spinTimer);
  spin.angle += 90;
  const sp = document.querySelector('.spinner');
  if (sp) sp.style.transform = `rotate(${spin.angle}deg)`;
}, 350);

setTimeout(() => {
  if (!app.ready) $('loading-text').textContent = 'Still loading the rules engine… (the first visit can take a while)';
}, 15000);

// PyScript fires py:all-done after running main.py; without hcReady by then, Python failed.
window.addEventListener('py:all-done', () =>
  setTimeout(() => {
    if (app.ready) return;
    $('loading').classList.add('is-failed');
    $('loading-text').textContent = 'The rules engine could not start. Reload the page to try again.';
  }, 1000),
);
