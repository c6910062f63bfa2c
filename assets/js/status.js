// Hidden Chess -- what the page says about the game: the status line, the result, the game-over
// banner, the notice bar, the hand-over screen (hidden information on one device) and the
// draw claim.

import { $, COLOR_NAMES, download, gameFocus, isOver } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { first } from './panels/index.js';
// Keyboard and screen-reader play (the move box, the live regions, the board's cursor).
import './announce.js';
import './keyboard.js';
import './a11y-board.js';

// Where the focus was when the hand-over screen came up (it goes back there after it).
const handoverFocus = { from: null };

export function renderStatus(st) {
  const line = $('status-line');
  const s = st.status || {};
  line.classList.toggle('is-over', !!s.over);
  line.classList.toggle('is-check', !s.over && !!st.check);
  line.hidden = !!s.over; // the result line under the moves says it then
  if (!s.over) {
    if (st.replay && st.replay.live) {
      // (the frame's side to move is not the game's: say where the board is instead)
      line.textContent = `Looking back: after ${st.replay.ply} of ${st.replay.plies} moves · "Back to the game" to play on`;
    } else if (st.handover) {
      line.textContent = `Pass the device to ${COLOR_NAMES[st.handover.to]}`;
    } else if (st.phase === 'setup') {
      const setup = first('setup', st);
      line.textContent = setup ? setup.status : 'Setting up';
    } else if (first('actor', st)) {
      line.textContent = first('actor', st).status;
    } else {
      const who = st.computer ? (st.turnColor === st.computer.seat ? 'Computer' : 'You') : '';
      line.textContent = who
        ? `${who} (${COLOR_NAMES[st.turnColor]}) to move${st.check ? ' · check!' : ''}`
        : `${COLOR_NAMES[st.turnColor]} to move${st.check ? ' · check!' : ''}`;
    }
  }
  const res = $('result-line');
  res.hidden = !s.over;
  if (s.over) {
    res.replaceChildren();
    const strong = document.createElement('strong');
    strong.textContent = shownResult(s);
    res.appendChild(strong);
    res.appendChild(document.createTextNode(s.message || ''));
  }
}

// (an aborted game has no result: PGN's "*" would read as a stray star)
const shownResult = s => (s.result === '*' ? '' : s.result);

export function gameOverKey(st) {
  return isOver(st) ? `${st.gameId}|${st.status.result}|${st.status.reason}` : null;
}

export function renderBanner(st) {
  const key = gameOverKey(st);
  const show = !!key && key !== app.bannerDismissedFor;
  $('banner').hidden = !show;
  if (show) {
    $('banner-result').textContent = shownResult(st.status);
    $('banner-title').textContent = st.status.message;
  }
  // Here: the same game, colours swapped. A friend game has its own rematch (the protocol's), as
  // the side bar's (friend-ui.js): offered while connected, "Accept the rematch" once the friend
  // offered (QA: the banner over the board offered only "New game", which leaves the friend).
  const p = st.peer, rm = p && p.rematch;
  const button = $('banner-rematch');
  // (a stranger who did not start the game is not asked again: the bar offers another opponent)
  button.hidden = !show || (!!p && (!p.connected || (!!rm && rm.by === 'me') || (p.aborted && p.stranger)));
  button.textContent = rm && rm.by === 'friend' ? 'Accept the rematch' : 'Rematch';
}

/** One click: the same game again (variant, clock, level), the player's colour swapped. */
export function rematch() {
  const st = app.state;
  if (st && st.peer) { // (a friend game: offered to the friend, or the friend's offer accepted)
    call('rematch');
    return;
  }
  if (!st || !st.options) return;
  const options = { ...st.options };
  delete options.menu;
  if (options.mode === 'computer') options.color = options.color === 'white' ? 'black' : 'white';
  const res = call('new_game', options);
  if (!res || res.error) return;
  app.bannerDismissedFor = null;
  if (document.activeElement === document.body || $('banner').contains(document.activeElement)) gameFocus().focus();
}

/** Close the game-over banner of the game shown (it stays closed for this ending). */
export function dismissBanner() {
  app.bannerDismissedFor = app.state ? gameOverKey(app.state) : null;
  $('banner').hidden = true;
}

const STALE_TEXT = 'This game was changed in another tab or window. Load it here to go on from there.';
const DELETED_TEXT = 'This game was deleted in another tab or window. Reload to go on with your other games.';

// A closed warning (the storage is full: nothing more is saved) comes back with the next move or
// game, which it did not save either; a closed notice stays closed.
const dismissedFor = st => (st && st.warning ? `${st.gameId}|${(st.moves || []).length}` : '');

export function renderNotice(st) {
  const text = st.stale === 'deleted' ? DELETED_TEXT : st.stale ? STALE_TEXT : st.warning || st.notice;
  const el = $('notice');
  if (!text || (text === app.noticeDismissed && !st.stale && dismissedFor(st) === app.noticeDismissedFor)) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  el.classList.toggle('is-warning', !!(st.warning || st.stale));
  $('notice-text').textContent = text;
  $('notice-text').title = (!st.warning && !st.stale && st.noticeDetail) || '';
  $('notice-download').hidden = !!(st.warning || st.stale) || !st.corrupt;
  $('notice-reload').hidden = !st.stale;
  $('notice-reload').textContent = st.stale === 'deleted' ? 'Reload' : 'Load it';
  $('notice-close').hidden = !!st.stale;
}

export function renderHandover(st) {
  const h = st.handover;
  const wasShown = !$('handover').hidden;
  $('handover').hidden = !h;
  if (!h) {
    const back = handoverFocus.from;
    // ("show" typed in the move box keeps the focus there: the player goes on typing)
    if (document.activeElement === $('move-input')) handoverFocus.from = null;
    else if (back) (back.isConnected && !back.disabled && !back.closest('[hidden]') ? back : $('board')).focus();
    else if (wasShown && $('handover').contains(document.activeElement)) $('board').focus();
    handoverFocus.from = null;
    return;
  }
  const who = COLOR_NAMES[h.to];
  $('handover-title').textContent = `Pass the device to ${who}`;
  const icon = first('handoverIcon', st) || 'assets/img/favicon.svg';
  const img = $('handover').querySelector('.handover-icon');
  if (img.getAttribute('src') !== icon) img.setAttribute('src', icon);
  let text = h.for === 'draw' && st.drawOffer ? `${COLOR_NAMES[st.drawOffer]} offers a draw. ${who} answers it.` : first('handoverText', st, who);
  if (!text) {
    const last = (st.moves || [])[st.moves.length - 1];
    text = last ? `${COLOR_NAMES[last.color]} played ${last.san}. ${who} to move.` : `${who} moves first.`;
  }
  $('handover-text').textContent = text;
  $('handover-show').textContent = `I am ${who} — show my board`;
  $('handover-show').dataset.seat = h.to;
  // The screen is a dialog for the keyboard too: its button takes the focus (not from the move
  // box, where "show" does the same), and gives it back when the board is shown.
  const active = document.activeElement;
  if (!wasShown && app.ready && active !== $('move-input') && !document.querySelector('dialog[open]')) {
    handoverFocus.from = active && active !== document.body ? active : $('board');
    $('handover-show').focus();
  }
}

export function renderClaim(st) {
  const c = st.claim || {};
  const can = !!(c.now || (c.moves && c.moves.length));
  const btn = $('btn-claim');
  btn.hidden = !can || isOver(st);
  btn.textContent = c.now ? `Claim draw (${COLOR_NAMES[st.turnColor]})` : `Claim draw with a move (${COLOR_NAMES[st.turnColor]})`;
}

function openClaim() {
  const st = app.state;
  const c = (st && st.claim) || {};
  const box = $('claim-options');
  box.replaceChildren();
  const who = COLOR_NAMES[st.turnColor];
  $('claim-text').textContent = c.now
    ? `${who} may claim a draw now.`
    : `${who} may claim a draw by declaring one of these moves instead of playing it: it would repeat the position a third time or reach fifty moves without a capture or pawn move. The game ends drawn.`;
  if (c.now) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn btn-good';
    b.textContent = `Claim now: ${c.nowText || c.now}`;
    b.addEventListener('click', () => {
      $('dlg-claim').close();
      call('claim_draw', {});
    });
    box.appendChild(b);
  }
  for (const m of c.moves || []) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn';
    b.dataset.uci = m.uci;
    b.append(`Declare ${m.san}`);
    const small = document.createElement('small');
    small.textContent = m.reasonText || m.reason;
    b.appendChild(small);
    b.addEventListener('click', () => {
      $('dlg-claim').close();
      call('claim_draw', { move: m.uci });
    });
    box.appendChild(b);
  }
  $('dlg-claim').showModal();
  box.querySelector('button')?.focus();
}

$('btn-claim').addEventListener('click', openClaim);
$('claim-cancel').addEventListener('click', () => $('dlg-claim').close());
$('handover-show').addEventListener('click', e => call('show_board', { seat: e.currentTarget.dataset.seat }));
// The banner's buttons go with it: the keyboard goes on from the board (or the hand-over screen's
// button), not from the page's body (where the next Tab started at the top of the page).
$('banner-close').addEventListener('click', () => {
  dismissBanner();
  gameFocus().focus();
});
$('notice-close').addEventListener('click', () => {
  app.noticeDismissed = $('notice-text').textContent;
  app.noticeDismissedFor = dismissedFor(app.state);
  $('notice').hidden = true;
  if (app.state && app.state.notice && !app.state.warning) call('dismiss_notice');
});
$('notice-reload').addEventListener('click', () => location.reload());
$('notice-download').addEventListener('click', () => {
  const st = call('export_corrupt');
  if (st && st.download) download(st.download.name, st.download.text);
});
