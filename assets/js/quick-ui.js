// Hidden Chess -- quick play, what the player sees (issue #13): the "Quick play" choice of the
// new-game dialog (default Secret Pawn, 5+3), the waiting card ("Looking for an opponent…", the
// time waited, how many others wait for the same game, Cancel), and the hand-over of a pairing
// to a normal friend game: the proposer makes the game (colour from the joint coin flip) and sends
// its invite over the pairing's room, the other checks it against the pairing and joins. From then
// on it is a saved friend game like any other (friend.js): a reload reconnects through the room.
// The lobby itself is signal/quick.js (+ peer/lobby.js, the pairing rule).

import HCPeer from '../peer.js';
import { $, isOver, showTitle } from './dom.js';
import { app } from './state.js';
import { call, render } from './bridge.js';
import { OFFLINE_NOTE, customClock, mayLeave } from './dialogs.js';
import { adoptLink } from './friend.js';
import { SEEK_EVERY_MS, lagOf } from './peer/lobby.js';
import { QuickPlay } from './signal/quick.js';
import { ICE_MESSAGE, RoomLink, loadRoom } from './signal/room.js';
import { relayUrls, relayWords } from './signal/relays.js';

// A pairing whose game has not started by then goes back to the queue: CONNECT_MS, plus four
// times the lag the lobby measured (the connection's offer and answer cross the relays too).
// An opponent whose page never even came into the room (no connection set-up from it) is given
// up after ARRIVE_MS: a stranger who completes pairings and never comes, with a fresh key each
// time, kept two honest pages apart for minutes at 20 s a pairing. Once the game is handed over,
// the other page must have joined it within START_MS, or the game is dropped and the page looks
// again (a stranger who connected and then ignored the invite left the host before a dead game).
const CONNECT_MS = 20000;
const ARRIVE_MS = 7000;
const START_MS = 20000;
const NO_RELAY_MS = 6000;
const SLOW_LAG_MS = 1500; // a seek's round trip through the relays this long is said to be slow
const NAMES = { standard: 'Standard', 'royal-pawn': 'Royal Pawn', 'secret-pawn': 'Secret Pawn', reveal: 'Reveal', 'hidden-identity': 'Hidden Identity' };

const quick = { qp: null, link: null, note: '', since: 0, label: '', timer: null, pairTimer: null, startWatch: null };
// The lobby key of each quick-play game's opponent (game id -> key), while the page is open: one
// whose game is dropped before it started is not paired with again at once (lookAgain).
const opponents = new Map();

/** The clock choice as a lobby key ("300+3") and as the game's [initial s, increment s] (or null). */
export function clockChoice(value) {
  if (!value || value === 'none') return { key: 'none', pair: null };
  let m;
  if (typeof value === 'string' && (m = /^(\d+(?:\.\d+)?)\+(\d+)$/.exec(value))) {
    const pair = [Math.round(Number(m[1]) * 60), Number(m[2])];
    return { key: `${pair[0]}+${pair[1]}`, pair };
  }
  if (value && typeof value === 'object') {
    const pair = [Math.round(Number(value.minutes) * 60), Math.round(Number(value.increment))];
    if (pair.every(Number.isFinite) && pair[0] >= 1) return { key: `${pair[0]}+${pair[1]}`, pair };
  }
  throw new Error('choose a clock for quick play');
}

function card() {
  let el = $('quick-card');
  if (el) return el;
  el = document.createElement('div');
  el.className = 'friend-card quick-card';
  el.id = 'quick-card';
  el.setAttribute('role', 'dialog');
  el.setAttribute('aria-labelledby', 'quick-title');
  el.hidden = true;
  el.innerHTML = `
    <h2 class="friend-title" id="quick-title">Quick play</h2>
    <p class="friend-steps" id="quick-game"></p>
    <p class="friend-wait" role="status"><span class="thinking-dots" aria-hidden="true"><i></i><i></i><i></i></span>
      <span id="quick-status">Looking for an opponent…</span></p>
    <p class="friend-steps" id="quick-waited"></p>
    <p class="friend-steps" id="quick-others"></p>
    <p class="friend-signal" id="quick-relays" role="status"></p>
    <div class="dialog-buttons"><button type="button" class="btn" id="quick-cancel">Cancel</button></div>`;
  $('friend-card').after(el);
  el.querySelector('#quick-cancel').addEventListener('click', () => {
    stopQuick();
    call('set_aside', { on: false }); // (the game set aside goes on, its clock too)
  });
  return el;
}

export const NO_RELAY_NOTE = 'No relay can be reached: quick play cannot look for an opponent.';

function renderQuick() {
  const el = card();
  const was = !el.hidden;
  el.hidden = !quick.qp;
  document.body.classList.toggle('is-seeking', !!quick.qp);
  if (!quick.qp) {
    // The seek is over: the header and the panel show the game again.
    if (was && app.state) render(app.state, { quiet: true });
    return;
  }
  const qp = quick.qp;
  const secs = Math.floor((Date.now() - quick.since) / 1000);
  const { open, total } = qp.relayState();
  const noRelay = open === 0 && Date.now() - quick.since > NO_RELAY_MS;
  // While seeking, the header and the panel say so (not the previous game's name and turn).
  showTitle(['Quick play', quick.label]);
  $('status-line').textContent = noRelay ? 'No relay reachable' : quick.link ? 'Opponent found: connecting…' : 'Looking for an opponent…';
  $('quick-game').textContent = quick.label;
  $('quick-status').textContent = quick.note || (noRelay ? NO_RELAY_NOTE : 'Looking for an opponent…');
  el.dataset.relays = noRelay ? 'none' : 'ok';
  $('quick-waited').textContent = `Waiting ${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
  const n = qp.others();
  const lag = qp.lobby ? qp.lobby.lag : 0;
  // The others seek every SEEK_EVERY_MS: until one round of theirs has come (late by the relays'
  // lag), "nobody" is not known. Once an opponent is found, who else waits is no news.
  const early = Date.now() - qp.startedAt < SEEK_EVERY_MS + 2000 + 2 * lagOf(lag);
  $('quick-others').textContent = noRelay || quick.link ? ''
    : n === 0 ? (early ? 'Checking who else is waiting…' : 'Nobody else is waiting for this game right now.')
      : `${n} other${n === 1 ? ' is' : 's are'} waiting for this game.`;
  const slow = lag >= SLOW_LAG_MS
    ? ` The relays are slow right now (a message takes about ${(lag / 1000).toFixed(1)} s there and back): finding an opponent may take longer.`
    : '';
  el.dataset.slow = slow ? 'true' : 'false';
  $('quick-relays').textContent = open > 0 ? `Connected to ${relayWords(open, total)}.${slow}`
    : noRelay
      ? `None of the ${total} relay${total === 1 ? '' : 's'} answers: still trying. Check your connection or the relay setting (New game → Relays and ICE servers); Invite a friend works without relays, with codes.`
      : `Reaching the relays (${total})…`;
}

/** Start waiting for an opponent for this variant and clock (the dialog's choice); `again`: the
 * note of a pairing whose game never started (the page looks again by itself). */
export async function startQuick(variant, clockValue, again = '', avoid = null) {
  const clock = clockChoice(clockValue);
  const st = app.state;
  const going = st && !isOver(st) && (st.moves || []).length > 0;
  if (!again && !(await mayLeave(going && ['Quick play?', 'The game in progress is kept in Your games.', 'Find an opponent', { danger: false }]))) return;
  stopQuick();
  call('set_aside', { on: true }, { quiet: true }); // (its clock waits too, until Cancel: QA)
  const relays = relayUrls();
  const seen = () => {
    if (quick.qp === qp) quick.maxOthers = Math.max(quick.maxOthers || 0, qp.others());
    renderQuick();
  };
  const back = { variant, clockValue, gameId: again ? quick.back && quick.back.gameId : st && st.gameId };
  const qp = new QuickPlay({ variant, clock: clock.key, relays, onchange: seen, onpaired: (q, pair) => paired(q, pair, variant, clock, relays) });
  Object.assign(quick, { qp, back, note: again, since: Date.now(), maxOthers: 0, label: `${NAMES[variant] || variant} · ${clock.pair ? `${clock.pair[0] / 60}+${clock.pair[1]}` : 'no clock'}` });
  quick.timer = setInterval(renderQuick, 1000);
  renderQuick();
  try {
    await qp.start();
    qp.giveUp(avoid);
  } catch (e) {
    quick.note = `Quick play cannot start: ${e.message || e}`;
  }
  renderQuick();
}

export function stopQuick() {
  clearInterval(quick.timer);
  clearInterval(quick.pairTimer);
  clearInterval(quick.startWatch);
  if (quick.qp) quick.qp.cancel();
  if (quick.link) quick.link.leave();
  Object.assign(quick, { qp: null, link: null, note: '', timer: null, pairTimer: null, startWatch: null });
  renderQuick();
}

/** After the hand-over: the game `gameId` must start (the other page joined it: a message of
 * this game came from it) within START_MS, else it is dropped (the page goes back to the game it
 * showed before quick play, and deletes this one: nobody else has its invite) and the page
 * looks for an opponent again. Opening another game meanwhile ends the watch. */
function watchStart(gameId, lag) {
  const deadline = Date.now() + START_MS + 4 * lag;
  clearInterval(quick.startWatch);
  const watch = setInterval(() => {
    const st = app.state;
    const p = st && st.peer;
    if (!st || st.gameId !== gameId || !p || p.heard || p.status === 'over') {
      clearInterval(watch);
      return;
    }
    if (Date.now() < deadline) return;
    clearInterval(watch);
    const back = quick.back || {};
    lookAgain(gameId, back.variant, back.clockValue, 'The opponent left before the game started. Looking again…', back.gameId);
  }, 1000);
  quick.startWatch = watch;
}

/** Drop the quick-play game `gameId`, in which nothing was played (nobody else can use it): the
 * page goes back to the game `backId` it showed before quick play (by default the one this page's
 * last quick play set aside; else a new one), deletes `gameId`, and looks for an opponent again
 * for `variant` and `clockValue`, saying `note`. (QA: after an aborted game's "Look for another
 * opponent", Cancel showed a new empty game instead of the game in progress before.) */
export function lookAgain(gameId, variant, clockValue, note, backId = quick.back && quick.back.gameId) {
  let left = backId && backId !== gameId ? call('open_game', { id: backId }, { quiet: true }) : null;
  if (!left || left.error || left.gameId !== backId) left = call('new_game', {}, { quiet: true });
  if (left && !left.error && left.gameId !== gameId) call('delete_game', { id: gameId }, { quiet: true });
  // (a stranger who let its game be aborted, or left it, caught this player again the moment it
  // looked again, with the same key: a red team, 2026-12-07)
  startQuick(variant, clockValue, note, opponents.get(gameId));
}

function paired(qp, pair, variant, clock, relays) {
  if (qp !== quick.qp) return;
  quick.note = 'Opponent found: connecting…';
  // The room's device tokens: the first half of each lobby key (the room secret is the pair's own).
  const token = qp.id.slice(0, 32);
  const expect = pair.opponent.slice(0, 32);
  const link = new RoomLink({ secret: pair.secret, role: pair.role, token, expect, relays, iceServers: HCPeer.iceServers() });
  quick.link = link;
  renderQuick(); // (the card and the header say so together)
  const info = { s: pair.secret, r: pair.role, t: token, a: expect };
  const fail = why => {
    if (quick.link !== link) return;
    if (link.iceFailed) why = ICE_MESSAGE;
    clearInterval(quick.pairTimer);
    link.leave();
    quick.link = null;
    quick.note = `${why} Looking again…`;
    qp.requeue();
    renderQuick();
  };
  const lag = lagOf(qp.lobby.lag);
  const started = Date.now();
  quick.pairTimer = setInterval(() => {
    const waited = Date.now() - started;
    if (link.state === 'open' || link.answered) {
      // (in the room, its game not begun: the host never sent its game, or the connection failed)
      if (waited >= CONNECT_MS + 4 * lag) fail(link.state === 'open' ? 'The opponent did not start the game.' : 'The opponent could not be reached.');
    } else if (waited >= ARRIVE_MS + 4 * lag) {
      fail('The opponent did not come.');
    }
  }, 250);
  const done = gameId => {
    clearInterval(quick.pairTimer);
    clearInterval(quick.timer);
    qp.cancel();
    Object.assign(quick, { qp: null, link: null, note: '', timer: null, pairTimer: null });
    renderQuick();
    if (!gameId) return;
    opponents.set(gameId, pair.opponent);
    watchStart(gameId, lag);
  };
  let made = false;
  link.onchange = () => {
    if (link.state !== 'open' || pair.role !== 'host' || made || quick.link !== link) return;
    made = true;
    adoptLink(link, info);
    const st = call('new_game', { mode: 'friend', variant, clock: clock.pair, color: pair.white ? 'white' : 'black', stranger: true }, { quiet: true });
    if (!st || st.error || !st.peer) {
      fail(`The game could not be made (${(st && st.error) || 'no state'}).`);
      return;
    }
    link.control({ k: 'invite', invite: st.peer.invite });
    done(st.gameId);
  };
  link.oncontrol = m => {
    if (m.k !== 'invite' || pair.role !== 'guest' || made || quick.link !== link) return;
    const inv = m.invite;
    const ok = inv && typeof inv === 'object' && inv.v === variant && JSON.stringify(inv.c) === JSON.stringify(clock.pair) &&
      inv.h === (pair.white ? 'black' : 'white');
    // (nor the id of a game this device has: its room, kept per game id, would be the stranger's)
    if (!ok || loadRoom(inv.g)) {
      fail(`The opponent's game does not match the pairing (${ok ? 'a game id this device has already' : 'variant, clock or colours'}).`);
      return;
    }
    made = true;
    adoptLink(link, info);
    const st = call('join', { invite: inv, stranger: true }, { quiet: true });
    if (!st || st.error || !st.peer) {
      fail(`The game could not be joined (${(st && st.error) || 'no state'}).`);
      return;
    }
    done(st.gameId);
  };
}

// ---- the new-game dialog: "Quick play" next to "Invite a friend"

function form() {
  return $('form-new');
}

const quickNote = { text: '' }; // the choice's own note, while online

function syncQuick() {
  const f = form();
  const input = f && f.querySelector('input[name=mode][value=quick]');
  if (!input) return;
  const variant = (f.querySelector('input[name=variant]:checked') || {}).value;
  const supported = (app.state && app.state.friendVariants) || [];
  const online = navigator.onLine !== false;
  const ok = (!variant || supported.length === 0 || supported.includes(variant)) && online;
  input.disabled = !ok;
  $('choice-quick').classList.toggle('is-disabled', !ok);
  if (!quickNote.text) quickNote.text = $('quick-note').textContent;
  $('quick-note').textContent = online ? quickNote.text : OFFLINE_NOTE;
  if (input.checked) $('new-start').textContent = 'Find an opponent';
}

/** Wire the dialog's Quick play choice and the waiting card. */
export function startQuickUi() {
  const f = form();
  if (!f) return;
  card();
  f.addEventListener('change', e => {
    const t = e.target;
    if (t && t.name === 'mode' && t.value === 'quick') {
      // Quick play's defaults: Secret Pawn (what the site is about), 5+3.
      const sp = f.querySelector('input[name=variant][value=secret-pawn]');
      if (sp && !sp.disabled) sp.checked = true;
      const blitz = f.querySelector("input[name=clock][value='5+3']");
      if (blitz && f.querySelector('input[name=clock][value=none]').checked) blitz.checked = true;
      f.dispatchEvent(new Event('change'));
    }
    syncQuick();
  });
  f.addEventListener('hc:opened', syncQuick);
  // Before dialogs.js's own submit handler: quick play starts no game by itself.
  document.addEventListener('submit', e => {
    if (e.target !== f) return;
    const data = new FormData(f);
    if (data.get('mode') !== 'quick') return;
    e.preventDefault();
    e.stopImmediatePropagation();
    let clock = data.get('clock');
    try {
      if (clock === 'custom') clock = customClock();
      clockChoice(clock);
    } catch (err) {
      $('new-error').textContent = err.message;
      $('new-error').hidden = false;
      return;
    }
    $('dlg-new').close();
    startQuick(data.get('variant'), clock);
  }, true);
  window.hcQuick = {
    // maxOthers: the most others this page saw waiting since its last quick play started; lag:
    // the round trip of its latest seek that came back (ms), echoes: how many came back.
    info: () => ({
      state: quick.qp ? quick.qp.lobby && quick.qp.lobby.state : null, others: quick.qp ? quick.qp.others() : 0,
      maxOthers: quick.maxOthers || 0, note: quick.note, id: quick.qp ? quick.qp.id : null,
      lag: quick.qp && quick.qp.lobby ? quick.qp.lobby.lag : null, echoes: quick.qp ? quick.qp.echoes : 0,
    }),
  };
}
