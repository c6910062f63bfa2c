// Hidden Chess -- friend play (issues #7, #13), what the player sees: the invite / join / reconnect
// card over the board, the bar (connection pill, who plays what, claims, rematch), the refused
// messages and the audit. The connection itself is friend.js.

import { $, COLOR_NAMES, COLORS, foeWords, isOver, playerEl } from './dom.js';
import { app } from './state.js';
import { afterCall, call, peek, render } from './bridge.js';
import { hideBoardToast, showBoardToast } from './toast.js';
import { any, first } from './panels/index.js';
import { mountSettings } from './signal/form.js';
import { storeReaches } from './signal/store.js';
import { lookAgain, startQuickUi } from './quick-ui.js';
import { gameOverKey } from './status.js';
import {
  carryRoom, friend, friendAfterCall, friendGame, friendOffer, friendOpenLink, friendPaste, friendReset, friendSignal, friendStore,
  inbox, isCutOff, isLive, storeInfo, view,
} from './friend.js';

const FRIEND_CONN_TEXT = {
  connected: 'Connected directly',
  reconnecting: 'Reconnecting…',
  offline: 'No connection: reconnecting…',
  waiting: 'Waiting for your friend',
  lost: 'Connection lost',
  taken: 'Not connected: the game is taken',
  relayed: 'Through the relays',
  ended: 'Not connected: the game is over',
};

// The statuses of a game that goes on through the relays' store while the friend is away.
const GOING = new Set(['setup', 'playing', 'waiting', 'over']);
// (only while the store reaches a relay: without one, the codes are the way, as before)
function byRelays(p) {
  if (!p.relayed || !GOING.has(p.status) || isLive(friend.peer)) return false;
  // (a page that just opened reaches its relays first: no reconnect card meanwhile, unless every
  // relay has refused already)
  return storeReaches(storeInfo());
}

/** `text` as this game's player reads it: a stranger met through quick play is "your opponent". */
export const said = (p, text) => foeWords(!!(p && p.stranger), text);

/** What the relays' store is doing for this game, in words (empty when it says nothing new). */
export const storeNote = (p, st) => said(p, storeWords(p, st));

function storeWords(p, st) {
  const info = storeInfo();
  if (!info || !byRelays(p)) return '';
  if (info.unconfirmed > 0) return 'Sending to the relays…';
  if (info.state !== 'ready') return 'Fetching your friend\'s moves from the relays…';
  if (p.status === 'over') {
    return p.audit && p.audit.status === 'pending' ? 'Your friend\'s page checks the game when your friend opens it.' : '';
  }
  // (the friend's draw offer waits for this player's answer: nothing of theirs was "sent" -- QA)
  if (p.status === 'waiting' && st && st.drawOffer && st.drawOffer !== p.seat) {
    return 'Your friend is away: accept or decline their draw offer, they get your answer when they open the game.';
  }
  if (p.status === 'waiting' || (p.status === 'setup' && p.waiting_for)) {
    return 'Sent: your friend gets it when they open the game. You may close this page.';
  }
  if (p.status === 'setup') return 'Your friend is away: make your choice, they get it when they open the game.';
  return 'Your friend is away: play your move, they get it when they open the game.';
}

const CUT_STEP = 'This device reaches neither your friend nor any relay: if it is offline, the game reconnects by itself once it is back.';

const FRIEND_CARDS = {
  invite: {
    title: 'Invite a friend',
    steps: [
      'Send this link to your friend (by message or mail).',
      'Your friend opens it: the two devices find each other through public relays and the game starts.',
      'Without relays (offline, or none reachable) your friend gets an answer code instead: paste it below.',
    ],
    mine: 'Your invite link',
    paste: "Your friend's answer code (only needed without relays)",
    wait: null,
  },
  join: {
    title: "Join your friend's game",
    steps: [
      'Connecting to your friend through the relays…',
      'If an answer code appears below, send it back to your friend, who pastes it and presses Connect.',
    ],
    mine: 'Your answer code',
    paste: null,
    wait: 'Waiting for your friend to enter your answer…',
  },
  answer: {
    title: 'Reconnect',
    steps: ['Send this answer code back to your friend, who pastes it and presses Connect.'],
    mine: 'Your answer code',
    paste: null,
    wait: 'Waiting for your friend to enter your answer…',
  },
  taken: {
    title: 'This game is already taken',
    steps: ['Another player joined this invite first: this game will not start. Ask your friend for a new invite, or press New game to start something else.'],
    mine: '',
    paste: null,
    wait: null,
  },
  relink: {
    title: "Join your friend's game",
    steps: ['Ask your friend for the invite link again (or a new one) and paste it below.'],
    mine: '',
    paste: "Your friend's invite link",
    wait: null,
  },
  reconnect: {
    title: 'Reconnect to your friend',
    // (instead of the first step, while this device reaches neither its friend nor any relay)
    cut: CUT_STEP,
    steps: [
      'When your friend is back, the relays reconnect the two devices by themselves.',
      'Without relays: send your friend this new link and paste the answer it gives,',
      'or, if your friend sent you a link first, paste that link instead.',
    ],
    mine: 'Your new link',
    paste: "Your friend's answer or link",
    wait: null,
  },
  // (quick play: a stranger can be reached through the relays alone -- no link to send)
  reconnectStranger: {
    title: 'Reconnect to your friend',
    steps: ['When your friend is back, the relays reconnect the two devices by themselves.'],
    cut: CUT_STEP,
    // (before the first move, a stranger who left may never come back: the way out, below)
    left: 'If your friend left before the first move, look for another opponent: this game is then dropped.',
    mine: '',
    paste: null,
    wait: null,
  },
};

const STORE_STEP = 'No clock: you need not wait here. Close the page if you like: the moves wait on the relays until the other side opens the game.';

// Over, with nothing left to exchange: checked, or aborted with the friend knowing of it
// (state.peer.settled: an aborted game has no check, which says so of a finished one).
const settled = p => p.status === 'over' && (!!p.settled || (!!p.audit && p.audit.status !== 'pending'));

/** This game's room while it can reconnect the two pages by itself (else null). */
const healing = () => (friend.link && !friend.link.left && friend.link.state !== 'failed' ? friend.link : null);

// What the connection looks like: connected / reconnecting / waiting / offline / lost.
function friendConn(p) {
  if (friend.taken) return 'lost';
  if (byRelays(p)) return 'relayed';
  // (open but not heard from yet: the room's channel may still think a closed tab is there)
  const s = !friend.peer ? 'lost' : friend.peer.status === 'open' && friend.peer.heard === false ? 'connecting' : friend.peer.status;
  if (s === 'open') return 'connected';
  // (a finished game whose check is done needs no connection: no red alarm for good, QA)
  if (s !== 'weak' && settled(p)) return 'ended';
  if (s === 'weak') return 'reconnecting';
  const first = p.status === 'inviting' || p.status === 'connecting';
  if (first) return 'waiting';
  // After a drop: "reconnecting" once the two sides are exchanging codes.
  if (s === 'joining' || s === 'connecting') return 'reconnecting';
  // A room reconnects by itself: "reconnecting" a moment, then the friend is away -- or this device
  // is, cut off (it went back and forth between "Reconnecting…" and "Connection lost", QA).
  const link = healing();
  if (isCutOff(link)) return 'offline';
  if (!link || link.noRelay()) return 'lost'; // (no relay: the codes are the way back)
  const away = cardDueIn(RECONNECT_CARD_MS);
  if (away <= 0 && !link.doubtful()) return 'waiting';
  renderIn(away > 0 ? away : 1000);
  return 'reconnecting';
}

/** Render again in `ms` (what the page shows changes with time alone), once. */
function renderIn(ms) {
  if (!cardTimer) cardTimer = setTimeout(() => { cardTimer = null; if (app.state) render(app.state); }, ms + 50);
}

// With relays, a reload or a short drop reconnects by itself within a few seconds: the card that
// covers the board comes only once the friend has been away this long. (Without relays the codes
// on the card are the only way back: it comes at once.) A device that reaches no relay any more
// (a tunnel, a lift) reconnects by itself once its network is back: its board stays in view for
// longer, and the card that comes then says so first.
const RECONNECT_CARD_MS = 6000;
const CUT_CARD_MS = 60000;
const BACK_CARD_MS = 30000; // (the network back, the pages met after 10 s on a loaded machine)
let liveAt = Date.now(); // when the friend was last connected (or the page opened)
let backAt = 0; // when this device was last seen to have its relays back after a cut
let wasLive = false;
let wasCut = false;
let cardTimer = null;
// (ms until the reconnect card is due: `ms` after the friend was last live, BACK_CARD_MS after a return)
const cardDueIn = ms => Math.max(liveAt + ms, backAt + BACK_CARD_MS) - Date.now();

function friendCardFor(p) {
  if (friend.taken) return 'taken';
  if (isLive(friend.peer) || p.connected || byRelays(p)) {
    liveAt = Date.now();
    wasLive = true;
    return null;
  }
  if (wasLive) liveAt = Date.now(); // (the first render after a drop: renders are few meanwhile)
  wasLive = false;
  const busy = !!friend.peer || friend.making || !!friend.alt;
  if ((friend.card === 'join' || friend.card === 'answer') && busy) return friend.card;
  if (p.status === 'inviting') return 'invite';
  // A guest whose invite could not be used (damaged link, reload before the host connected).
  if (p.status === 'connecting' && !busy) return 'relink';
  if (settled(p)) return null; // nothing left to exchange
  if (p.canClaim) return null; // (the claim first: on a phone the card would cover its button)
  const link = healing();
  const cut = isCutOff(link);
  if (wasCut && !cut) backAt = Date.now(); // (the network back: the pages need a moment to meet)
  wasCut = cut;
  const wait = cardDueIn(cut ? CUT_CARD_MS : RECONNECT_CARD_MS);
  if (link && (cut || !link.noRelay()) && wait > 0 && friend.card !== 'reconnect') {
    renderIn(wait);
    return null;
  }
  // (no relay answers: the network may have gone, and this device will know in a few seconds)
  if (link && !cut && link.doubtful() && friend.card !== 'reconnect') {
    renderIn(1000);
    return null;
  }
  return 'reconnect';
}

export function renderFriend(st) {
  const p = friendGame(st);
  const bar = $('friend-bar');
  if (!p) {
    document.body.classList.remove('is-taken');
    if (friend.gameId !== null) friendReset(null);
    bar.hidden = true;
    $('friend-card').hidden = true;
    $('friend-audit').hidden = true;
    $('friend-rejected').hidden = true;
    $('banner-audit').hidden = true;
    return;
  }
  if (p.game_id !== friend.gameId) {
    if (isLive(friend.peer) && p.connected && friend.gameId !== null) {
      // A rematch: the new game goes on over the same channel (and the same relay room).
      carryRoom(friend.gameId, p.game_id);
      friend.gameId = friend.peer.gameId = p.game_id;
      Object.assign(friend, { card: null, code: '', error: '', hidden: false, noticeShown: null });
    } else {
      friendReset(p.game_id);
    }
  }

  // A taken invite (said by the host, or remembered from before a reload): only "taken".
  if (!friend.taken && p.role !== 'host' && (p.status === 'connecting' || p.status === 'inviting')) friendSignal();
  document.body.classList.toggle('is-taken', friend.taken);
  // The card: make this side's code when the card needs one and none is being made.
  const card = friendCardFor(p);
  friend.card = card;
  // An ended game whose check waits for the friend keeps its result in view: the card is a tap
  // away (the bar's Reconnect), not over the board (QA: it covered the result of a claimed win).
  if (card === 'reconnect' && isOver(st) && friend.overCard !== p.game_id) {
    friend.overCard = p.game_id;
    friend.hidden = true;
  }
  const peerBusy = friend.peer && ['inviting', 'joining', 'connecting'].includes(friend.peer.status);
  if ((card === 'invite' || card === 'reconnect') && !friend.making && !peerBusy && !friend.peer) {
    friendOffer(st);
  }
  // The relays (when this game has a room) listen whenever the friend is not connected.
  if (!isLive(friend.peer) && !friend.taken && !(p.status === 'over' && !card)) friendSignal();
  // A game without a clock also goes through the relays' store (the friend may be away for days).
  friendStore(p);
  renderFriendCard(card);
  // While this side sets up (secret pawns to seal, pieces to place), the card leaves the player's
  // own ranks (the bottom of the board) free to click.
  $('friend-card').classList.toggle('is-compact', st.phase === 'setup' && !!first('setup', st));

  // The bar: connection pill, who plays what.
  const conn = friendConn(p);
  bar.hidden = false;
  const pill = $('friend-pill');
  pill.dataset.conn = conn;
  pill.textContent = said(p, friend.taken ? FRIEND_CONN_TEXT.taken : FRIEND_CONN_TEXT[conn]);
  const seat = p.seat || (st.options && st.options.color);
  $('friend-who').textContent = seat && COLOR_NAMES[seat] ? `You play ${COLOR_NAMES[seat]}` : '';
  const show = $('friend-show');
  show.hidden = !card || !friend.hidden;
  show.textContent = card === 'reconnect' ? 'Reconnect' : 'Show the invite';

  // Player names and the buttons of the seat this device does not play.
  for (const color of COLORS) {
    const el = playerEl(color);
    if (!el || !seat) continue;
    // (as against the computer: the dot and "You play Black" say the colours; "You · Black" beside
    // the draw and resign buttons and a clock was cut short in the side panel)
    const name = el.querySelector('.player-name');
    name.textContent = name.title = color === seat ? 'You' : said(p, 'Your friend');
    el.querySelector('.player-actions').hidden = color !== seat;
  }
  if (st.drawOffer && seat && st.drawOffer === seat) $('offer').hidden = true; // my own offer: nothing to answer
  else if (st.drawOffer && seat) $('offer-text').textContent = said(p, 'Your friend offers a draw.');
  const over = isOver(st);
  // A notice of the game as it was ("Draw offered…", "Your friend offers a rematch.") goes when it
  // ends or the next one starts (QA: they stayed over the result and the rematch).
  const phase = `${p.game_id}|${over}`;
  if (friend.phase && phase !== friend.phase) hideBoardToast();
  friend.phase = phase;
  if (p.waiting_for && !over) $('status-line').textContent = `Waiting for ${p.waiting_for}…`;
  let note = storeNote(p, st);
  // (the card waits a minute for a device cut off: meanwhile the bar says why nothing comes)
  if (!note && conn === 'offline' && !card) note = said(p, CUT_STEP);
  // (no direct path: the game goes on through the relays all the same, a little slower)
  if (note && friend.link && friend.link.iceFailed) note = `${friend.signalNote} Meanwhile the moves go through the relays.`;
  $('friend-store').hidden = !note;
  $('friend-store').textContent = note;
  // (what the relays do, also while the card is away: the card shows it when it is back)
  if (!card) $('friend-signal').textContent = friend.signalNote;
  // A message the friend owes runs its clock and has a deadline: say how long it has had.
  if (p.owed && p.owed.text) {
    if (!over) $('status-line').textContent = p.owed.text;
    else $('friend-who').textContent = p.owed.text;
  }
  // A taken invite: a game that will never start waits for no one and has no colour (QA: "Waiting
  // for your friend…" and "You play Black" under "this game will not start").
  if (friend.taken) {
    $('status-line').textContent = 'This game will not start.';
    $('friend-who').textContent = '';
  }

  // Claims (the friend's flag fell, or a draw opening is overdue) and the rematch.
  const claim = $('friend-claim');
  // (also once over: a withheld end-of-game message is claimed then)
  const newClaim = !!p.canClaim && claim.hidden;
  claim.hidden = !p.canClaim;
  if (newClaim) {
    claim.scrollIntoView({ block: 'nearest' });
    showBoardToast(said(p, p.canClaim === 'stalled' ? 'Your friend has not answered in time: you may claim the win.'
      : "Your friend's time is up: you may claim the win."));
  }
  claim.textContent = said(p, p.canClaim === 'stalled' ? 'Claim the win (your friend stalls)' : 'Claim the win on time');
  // Before both have moved the game may be called off (no result), as on lichess; quick play's
  // count says how long a stranger has to start it before it is (state.peer.start).
  $('friend-abort').hidden = !p.canAbort || over || friend.taken;
  renderStart(p, over);
  $('friend-again').hidden = !(over && p.aborted && p.stranger);
  const rematch = $('friend-rematch');
  const rm = p.rematch;
  // (a stranger who did not start the game is not asked again: another opponent is)
  rematch.hidden = !over || (rm && rm.by === 'me') || !p.connected || (p.aborted && p.stranger);
  rematch.textContent = rm && rm.by === 'friend' ? 'Accept the rematch' : 'Rematch';
  const rematchKey = rm && rm.by === 'friend' ? `${p.game_id}|rematch` : null;
  // (the result banner, when up, says it on its own button: the toast lay over it on a phone, QA)
  const bannerUp = over && gameOverKey(st) !== app.bannerDismissedFor;
  if (rematchKey && rematchKey !== friend.rematchShown && !bannerUp) showBoardToast(said(p, 'Your friend offers a rematch.'));
  friend.rematchShown = rematchKey;
  if (over && rm && rm.by === 'me') $('friend-who').textContent = said(p, 'Rematch offered: waiting for your friend…');
  // A try the friend's hidden pieces refused (e.g. "a secret pawn attacks that square").
  const noteKey = p.notice ? `${p.game_id}|${(st.moves || []).length}|${p.notice}` : null;
  if (noteKey && noteKey !== friend.noticeShown) showBoardToast(p.notice);
  friend.noticeShown = noteKey;

  // Messages the protocol refused, and the audit.
  const rej = $('friend-rejected');
  // (p.fork: the two copies of the game are being brought together -- never a dead end; on a page
  // told the invite was taken, "taken" says it all: what the store path handed over before, the
  // host's messages to its real guest, was refused, and that is no news)
  rej.hidden = friend.taken || (!p.rejected && !p.fork);
  rej.textContent = p.fork
    ? `Bringing the two copies of this game together: ${p.fork}.`
    : p.rejected ? said(p, `A message from your friend's device was refused: ${p.rejected}`) : '';
  renderFriendAudit(p.audit, p.provisional);
}

function renderStart(p, over) {
  const el = $('friend-start');
  const text = !over && p.start ? p.start.text : '';
  el.hidden = !text;
  if (el.textContent !== text) el.textContent = text;
}

/** Quick play: drop this game, which does not count, and look for another opponent for the same
 * variant and clock, saying `note` -- when `allowed(st, p)`: after an aborted game, or an
 * opponent who left before the first move (nothing of it was played). */
function lookAgainIf(allowed, note) {
  const st = app.state;
  const p = friendGame(st);
  if (!p || !p.stranger || !allowed(st, p)) return;
  const { v, c } = p.invite || {};
  lookAgain(st.gameId, v, c ? { minutes: c[0] / 60, increment: c[1] } : 'none', note);
}
const lookAfterAbort = () => lookAgainIf((st, p) => p.aborted, 'The last game was aborted. Looking for another opponent…');
const requeue = () => lookAgainIf(st => !isOver(st) && !(st.moves || []).length,
  'Your last opponent left before the first move. Looking for another…');

/** The page's host when only this computer can reach it, else null. */
export function localPage(loc = window.location) {
  if (loc.protocol === 'file:') return 'a file on this computer';
  const host = loc.hostname.replace(/^\[|\]$/g, '');
  const local = host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '0.0.0.0';
  return local ? loc.host : null;
}

function renderFriendCard(card) {
  const el = $('friend-card');
  const wasShown = !el.hidden;
  el.hidden = !card || friend.hidden;
  // On phones the card replaces the board: let chessground measure it again when it is back.
  if (wasShown && el.hidden) requestAnimationFrame(() => app.cg.redrawAll());
  if (!card) return;
  const p = friendGame(app.state);
  const c = FRIEND_CARDS[card === 'reconnect' && p && p.stranger ? 'reconnectStranger' : card];
  $('friend-title').textContent = said(p, c.title);
  const steps = $('friend-steps');
  const more = card === 'invite' && p && p.invite && !p.invite.c ? [STORE_STEP] : [];
  const leftEarly = !!c.left && !!app.state && !isOver(app.state) && !(app.state.moves || []).length;
  if (leftEarly) more.push(c.left);
  $('friend-requeue-box').hidden = !leftEarly;
  const cut = card === 'reconnect' && isCutOff(friend.link) ? [c.cut] : c.steps.slice(0, 1);
  steps.replaceChildren(...cut.concat(c.steps.slice(1), more).map(t => Object.assign(document.createElement('li'), { textContent: said(p, t) })));
  el.dataset.card = card;
  const mine = !!friend.code && !!c.mine; // (a taken game's link or code would be sent in vain)
  $('friend-mine').hidden = !mine;
  // A link to a page on this computer only (localhost, 127.0.0.1, a file) cannot be opened elsewhere.
  const local = localPage();
  $('friend-local').hidden = !local || !mine || !/^https?:|^file:/.test(friend.code || '');
  if (!local) $('friend-local').replaceChildren();
  else if ($('friend-local').dataset.page !== local) {
    // Rebuilt only when the address changes, so that a render never swaps the link under the pointer.
    const publish = Object.assign(document.createElement('a'), { href: 'docs/DEPLOY.md', textContent: 'how to publish it', target: '_blank', rel: 'noopener' });
    $('friend-local').replaceChildren(
      `This page's address (${local}) works only on this computer: your friend's device cannot open the link. ` +
      'Open the page by an address your friend can reach, a published copy (', publish,
      ') or this computer\'s network address, then invite again.');
  }
  $('friend-local').dataset.page = local || '';
  if ($('friend-code').value !== friend.code) $('friend-code').value = friend.code;
  $('friend-code-label').textContent = c.mine;
  $('friend-making').hidden = !friend.making;
  $('friend-paste-box').hidden = !c.paste;
  if (c.paste) $('friend-paste-label').textContent = c.paste;
  const err = $('friend-error');
  const newError = !!friend.error && err.textContent !== friend.error;
  err.hidden = !friend.error || card === 'taken'; // (the card's own words say it: not twice, QA)
  err.textContent = friend.error;
  if (newError) err.scrollIntoView({ block: 'nearest' });
  $('friend-signal').hidden = !friend.signalNote;
  $('friend-signal').textContent = friend.signalNote;
  const connecting = friend.peer && friend.peer.status === 'connecting';
  const wait = connecting ? 'Connecting…' : c.wait && friend.code ? c.wait : null;
  $('friend-wait').hidden = !wait;
  if (wait) {
    const long = friend.waitingSince && Date.now() - friend.waitingSince > 60000 && !connecting;
    $('friend-wait-text').textContent = said(p, long
      ? `${wait} (Still nothing? Your friend may have reloaded the page, or the invite was already taken by someone else.)`
      : wait);
  }
}

function renderFriendAudit(audit, provisional) {
  const box = $('friend-audit');
  const banner = $('banner-audit');
  box.hidden = banner.hidden = !audit;
  if (!audit) return;
  // The Session says whether the result shown may still change (a forfeit is final at once).
  if (audit.status === 'pending' && !provisional) audit = { ...audit, status: 'closed' };
  box.dataset.audit = audit.status;
  banner.dataset.audit = audit.status;
  box.replaceChildren();
  let title;
  if (audit.status === 'verified') title = `✓ Verified: ${app.state.audited || 'every move'} of both sides checks out.`;
  else if (audit.status === 'failed') title = "✗ Not verified: your friend's device broke the rules.";
  else if (audit.status === 'closed') title = 'The result is final: the end-of-game check did not take place.';
  else title = said(friendGame(app.state), "Provisional result. Checking the game: waiting for your friend's end-of-game message…");
  const head = document.createElement('strong');
  head.textContent = title;
  box.appendChild(head);
  const problems = audit.problems || [];
  if (problems.length) {
    const ul = document.createElement('ul');
    for (const pr of problems) {
      const li = document.createElement('li');
      // ply: 1-based half-move (0 = the setup before the first move)
      const who = pr.by ? COLOR_NAMES[pr.by] || pr.by : '';
      const at = pr.ply == null ? '' : pr.ply === 0 ? 'Setup' : `Move ${Math.ceil(pr.ply / 2)}`;
      const where = at && who ? `${at} (${who})` : at || who;
      li.textContent = `${where ? `${where}: ` : ''}${pr.message || pr.kind}`;
      li.dataset.kind = pr.kind || '';
      ul.appendChild(li);
    }
    box.appendChild(ul);
  }
  banner.textContent = audit.status === 'verified' ? '✓ Verified'
    : audit.status === 'failed' ? `✗ Not verified (${problems.length} problem${problems.length === 1 ? '' : 's'})`
    : audit.status === 'closed' ? 'Final' : 'Provisional · checking…';
}

async function friendCopy() {
  const text = $('friend-code').value;
  if (!text) return;
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch (e) {
    const area = $('friend-code');
    area.focus();
    area.select();
    try {
      ok = document.execCommand('copy');
    } catch (e2) {
      ok = false;
    }
  }
  const btn = $('friend-copy');
  btn.textContent = ok ? 'Copied' : 'Select and copy';
  setTimeout(() => {
    btn.textContent = 'Copy';
  }, 2000);
}

// The friend's clock and a stalled draw opening are judged on this page's time: ask again each
// second. Only a change is rendered (a render would close an open promotion picker every second).
function friendPoll() {
  const st = app.state;
  const p = friendGame(st);
  // (while the friend owes a message its deadline runs, connected or not, over or not)
  if (!app.ready || !p) return;
  if (!p.owed && (!p.connected || isOver(st) || !(st.clock || any('ticking', st)))) return;
  let next;
  try {
    next = peek(st.clock ? 'tick' : 'state');
  } catch (e) {
    return;
  }
  const q = friendGame(next);
  const changed = !q || (q.outbox && q.outbox.length) || (q.publish && q.publish.length) || q.canClaim !== p.canClaim || q.status !== p.status ||
    JSON.stringify(q.owed) !== JSON.stringify(p.owed) ||
    JSON.stringify(next.status) !== JSON.stringify(st.status);
  if (!changed) {
    // (quick play's count to the start: its words only, not a render every second)
    if (JSON.stringify(q.start) !== JSON.stringify(p.start)) {
      p.start = q.start;
      renderStart(p, false);
    }
    return;
  }
  render(next, { quiet: true });
  afterCall(next);
}

/** Wire the friend UI: buttons, the poll, links opened later (hash changes). */
export function startFriend() {
  view.render = renderFriend;
  mountSettings($('signal-settings'));
  startQuickUi();
  view.card = renderFriendCard;
  $('friend-copy').addEventListener('click', friendCopy);
  $('friend-code').addEventListener('focus', e => e.target.select());
  $('friend-connect').addEventListener('click', friendPaste);
  $('friend-paste').addEventListener('keydown', e => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      friendPaste();
    }
  });
  $('friend-hide').addEventListener('click', () => {
    friend.hidden = true;
    if (app.state) renderFriend(app.state);
  });
  $('friend-show').addEventListener('click', () => {
    friend.hidden = false;
    if (app.state) renderFriend(app.state);
  });
  $('friend-claim').addEventListener('click', () => call('claim_win'));
  $('friend-requeue').addEventListener('click', requeue);
  $('friend-rematch').addEventListener('click', () => call('rematch'));
  $('friend-abort').addEventListener('click', () => call('abort'));
  $('friend-again').addEventListener('click', lookAfterAbort);
  window.addEventListener('hashchange', friendOpenLink);
  window.addEventListener('offline', () => app.state && renderFriend(app.state));
  setInterval(friendPoll, 1000);
  setInterval(() => {
    if (app.state && friend.card && friend.waitingSince) renderFriendCard(friend.card);
  }, 5000);

  // For tests and the console.
  window.hcFriend = {
    info: () => ({
      card: friend.card,
      code: friend.code,
      error: friend.error,
      making: friend.making,
      peerStatus: friend.peer ? friend.peer.status : null,
      gameId: friend.gameId,
      alt: friend.alt ? friend.alt.status : null,
      signalNote: friend.signalNote,
      link: friend.link ? { state: friend.link.state, role: friend.link.role, relays: friend.link.relayState(), iceFailed: !!friend.link.iceFailed } : null,
      taken: friend.taken,
      store: storeInfo(),
      inbox: { pending: inbox.pending, dropped: inbox.dropped }, // (the other device's messages waiting, dropped: peer/inbox.js)
    }),
  };
}

export { friendAfterCall, friendOpenLink };
