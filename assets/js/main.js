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
//   panels/      one module per variant (panels/registry.js: the hooks they answer)
//
// The board is drawn by chessground as soon as this module runs (before Python is up) and
// becomes movable when main.py sets window.hcReady and fires the "hc:ready" event.

import { $ } from './dom.js';
import { app } from './state.js';
import { call, onAfterCall, onRender } from './bridge.js';
import { renderBoard, startBoard } from './board.js';
import { hidePromotion } from './promotion.js';
import { each } from './panels/index.js';
import { renderPlayers, renderTrays } from './players.js';
import { dismissBanner, renderBanner, renderClaim, renderHandover, renderNotice, renderStatus } from './status.js';
import { renderMoves, renderReplay, replayPly, replayTo } from './movelist.js';
import { startClocks, updateClocks } from './clock.js';
import { openNewGame } from './dialogs.js';
import { showToast } from './toast.js';
import { renderComputer, think } from './computer.js';
import { friendAfterCall, friendOpenLink, renderFriend, startFriend } from './friend-ui.js';

// ------------------------------------------------------------------ what a state draws, in order

function renderPage(st) {
  $('chk-autoflip').checked = !!st.autoFlip;
  $('layout').dataset.orientation = st.orientation;
  $('game-title').textContent = [st.variant && st.variant.name, st.clock ? st.clock.label : 'no clock']
    .filter(Boolean)
    .join(' · ');
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
onRender(renderPage);
onRender(renderComputer);
onRender(renderFriend);
onRender((st, { quiet }) => {
  if (st.error && !quiet) showToast(st.error);
  else each('notify', st);
});
onRender(() => updateClocks());
onRender(think);
onAfterCall(friendAfterCall); // friend play: send the protocol messages this call queued

// ------------------------------------------------------------------ buttons and keys

$('btn-new').addEventListener('click', openNewGame);
$('banner-new').addEventListener('click', openNewGame);
$('banner-replay').addEventListener('click', () => {
  dismissBanner();
  replayTo(0);
});
$('btn-flip').addEventListener('click', () => call('flip'));
$('chk-autoflip').addEventListener('change', e => call('set_auto_flip', { on: e.target.checked }));

document.addEventListener('keydown', e => {
  if (e.target instanceof HTMLInputElement || document.querySelector('dialog[open]') || !$('promo').hidden) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'f') call('flip');
  const st = app.state;
  if (st && st.status && st.status.over) {
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

// ------------------------------------------------------------------ start-up

function onReady() {
  if (app.ready) return;
  app.ready = true;
  const st = call('restore');
  $('loading').hidden = true;
  for (const id of ['btn-new', 'btn-flip', 'chk-autoflip']) $(id).disabled = false;
  document.body.dataset.ready = 'true';
  friendOpenLink(); // opened with an invite link (#join=...)
  return st;
}

// Another tab saved this game: the Session checks whether it is newer (then this page goes stale
// and says so). Leaving the page saves the clocks as they stand (see Session.suspend).
window.addEventListener('storage', e => {
  if (app.ready && (e.key === 'hiddenchess.current' || e.key === null)) call('storage_changed', {}, { quiet: true });
});
window.addEventListener('pagehide', () => app.ready && call('suspend', {}, { quiet: true }));
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden' && app.ready) call('suspend', {}, { quiet: true });
});

startBoard();
startClocks();
startFriend();

// For tests and the console: drive the page through the same path as the buttons.
window.hcApp = { call, state: () => app.state, boardFen: () => app.cg.getFen() };

if (window.hcReady) onReady();
else window.addEventListener('hc:ready', onReady, { once: true });

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
