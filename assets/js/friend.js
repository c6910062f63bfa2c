// Hidden Chess -- friend play (issues #7, #13), the connection. The Session's friend mode
// (py/hiddenchess/peer/) plays the protocol; this module only carries its messages over
// assets/peer.js (HCPeer), either over a data channel opened by exchanging two codes, or over one
// found through public Nostr relays (signal/room.js, Trystero): whichever opens first carries the game.
//   * every state may carry state.peer.outbox: sent in order right after the call that made it
//     (friendAfterCall); messages made while disconnected are re-sent by the resync (hello);
//   * HCPeer events -> actions: open -> peer_open, message -> peer_receive {data},
//     close / lost -> peer_closed;
//   * the host's link is <page>#join=<invite>.<offer>&room=<secret>[&hk=<its store key>, without
//     a clock]: opening it calls
//     join {invite} and connects through the relays (the room of that secret); when no relay
//     can be reached it falls back to the answer code for the offer. Each page remembers its
//     room per game (room.js saveRoom), so after a reload both sides find each other again by
//     themselves; the codes stay available as the fallback.
// What the player sees of it (the card over the board, the bar, the audit) is friend-ui.js.

import HCPeer from '../peer.js';
import { ICE_MESSAGE, RoomLink, TAKEN_MESSAGE, isSecret, loadRoom, newSecret, newToken, saveRoom } from './signal/room.js';
import { relayWords } from './signal/relays.js';
import { StoreLink, YOUNG_MS, storeKeyOf, trace } from './signal/store.js';
import { $, isOver } from './dom.js';
import { app } from './state.js';
import { call, whenReady } from './bridge.js';
import { mayLeave } from './dialogs.js';
import { showToast } from './toast.js';
import { Inbox } from './peer/inbox.js';

export const friend = {
  peer: null, // the HCPeer.Peer of the current connection (attempt)
  gameId: null, // the friend game these fields belong to
  card: null, // null | 'invite' | 'join' | 'answer' | 'reconnect' | ...: what the card over the board shows
  code: '', // the link or answer code this side has to send
  making: false, // a code is being prepared (ICE gathering)
  error: '', // the last problem with a pasted code / link
  hidden: false, // the player closed the card to look at the board
  overCard: null, // the ended game whose reconnect card started hidden (its result stays in view)
  waitingSince: 0, // when this side started to wait for the other (join / answer)
  noticeShown: null, // the protocol notice already shown
  alt: null, // a second Peer over the relay room's channel (signal/room.js), if any
  link: null, // the RoomLink of this game (relays), if it has a room
  signalNote: '', // what the relays are doing ("Connecting through 3 of 5 relays…")
  fallback: null, // guest: {offer, card} of the link, answered only when no relay is reachable
  taken: false, // the host said another device took this invite
  adopted: null, // quick play: {link, info} of the room the next friend game is played over
  store: null, // the StoreLink of this game (correspondence through the relays, signal/store.js), if any
};

// The other device's messages, opens and closes, handled in order and paced (a flood of messages
// froze the page: peer/inbox.js).
// (before the Session is up, they wait there too: within its limit, unlike whenReady's queue)
export const inbox = new Inbox({ ready: () => app.ready });
const later = (fn, message = false) => inbox.push(fn, message);

// How friend-ui.js redraws: render(state) the whole friend UI, card(name) the card only.
export const view = { render: () => {}, card: () => {} };
const redraw = (st = app.state) => {
  if (st) view.render(st);
};

// The Connect button: the pasted text is the friend's answer, or (to reconnect) the friend's link.
export const OWN_LINK = 'This is your own link: send it to your friend, and paste the answer your friend sends back.';

export function friendGame(st) {
  return st && st.peer ? st.peer : null;
}

export const isLive = peer => !!peer && (peer.status === 'open' || peer.status === 'weak');

const clearHash = () => history.replaceState(null, '', location.pathname + location.search);

// After every Session call: send what the protocol queued.
export function friendAfterCall(st) {
  const p = friendGame(st);
  if (p && (p.publish && p.publish.length || p.unacked && p.unacked.length)) {
    friendStore(p);
    const store = friend.store;
    if (store && store.gameId === p.game_id) {
      store.publish(p.publish || []);
      store.republish(p.unacked || []);
    }
  }
  if (!p || !p.outbox || !p.outbox.length) return;
  const peer = friend.peer;
  if (!isLive(peer)) return; // the resync re-sends them
  for (const text of p.outbox) {
    try {
      peer.send(text);
    } catch (e) {
      break; // the connection just dropped: onclose follows, then the resync
    }
  }
}

// Forget the current peer without hearing from it again.
function friendDrop() {
  const old = friend.peer;
  friend.peer = null;
  if (old) {
    old.onstatus = old.onopen = old.onmessage = old.onclose = null;
    old.close();
  }
}

export function friendReset(gameId) {
  inbox.clear(); // (what the last game's friend sent, not handled yet)
  friendDrop();
  friendDropAlt();
  stopStore();
  const adopted = friend.adopted;
  if (friend.link && (!adopted || adopted.link !== friend.link)) friend.link.leave();
  Object.assign(friend, {
    peer: null, gameId, card: null, code: '', making: false, error: '', hidden: false, waitingSince: 0, signalNote: '',
    taken: false, link: null, fallback: null, adopted: gameId ? null : adopted,
  });
  if (adopted && gameId) {
    // Quick play's pairing: the next game is played over the room it already connected.
    saveRoom(gameId, adopted.info);
    adopted.link.gameId = gameId;
    adopted.link.onchange = () => onLinkChange(adopted.link);
    friend.link = adopted.link;
  }
}

function friendNewPeer() {
  friendDrop();
  const peer = new HCPeer.Peer({ gameId: friend.gameId });
  friend.peer = peer;
  friendWire(peer);
  return peer;
}

function friendWire(peer) {
  peer.onstatus = () => {
    if (peer === friend.peer || peer === friend.alt) redraw();
  };
  peer.onopen = () => {
    if (peer === friend.alt) {
      // The one-click channel opened first: the manual codes are not needed any more.
      friendDrop();
      friend.alt = null;
      friend.peer = peer;
    }
    if (peer !== friend.peer) return;
    friendDropAlt();
    // (a code still being prepared for the dropped Peer is not: its own end leaves `making` alone)
    Object.assign(friend, { card: null, code: '', error: '', hidden: false, signalNote: '', fallback: null, making: false });
    if (/^#join=/.test(location.hash)) clearHash();
    later(() => call('peer_open')); // (a channel may open before Python is up)
  };
  peer.onmessage = data => {
    if (peer !== friend.peer || later(() => call('peer_receive', { data }, { quiet: true }), true)) return;
    if (inbox.dropped === 1) console.warn('Hidden Chess: the other device floods this page with messages: the excess is dropped.');
  };
  peer.onclose = () => {
    if (peer === friend.alt) friend.alt = null;
    if (peer !== friend.peer) return;
    if (peer.failure === 'ice') friend.error = ICE_MESSAGE;
    friend.peer = null;
    friend.hidden = false;
    // (heard: when the friend's page last answered -- after a message, it had that message)
    const heard = peer.lastHeard || null;
    later(() => call('peer_closed', { heard }));
  };
}

// ---- one-click connections through the relays (signal/room.js): a second Peer is attached to
// the room's channel next to the manual codes, and whichever opens first carries the game.

function friendDropAlt() {
  const old = friend.alt;
  friend.alt = null;
  if (old) {
    old.onstatus = old.onopen = old.onmessage = old.onclose = null;
    old.close();
  }
}

/** True when this device seems cut off: the link reached a relay and reaches none any more, or
 * the browser says it is offline (a phone in a tunnel: the friend cannot be reached either, and
 * the room reconnects by itself once the network is back). */
export function isCutOff(link) {
  if (!link || link.left || link.state === 'failed' || link.state === 'open') return false;
  return link.cutOff() || (globalThis.navigator && navigator.onLine === false && link.noRelay());
}

/** The words for what the relays are doing (shown on the card). */
export function relayNote(link) {
  if (!link) return '';
  if (link.state === 'failed') return `The relays cannot be used (${link.error}); use the codes below.`;
  if (link.state === 'open') return 'Connected directly.';
  if (link.iceFailed) return ICE_MESSAGE;
  const { open, total } = link.relayState();
  if (open > 0) return `Connecting through ${relayWords(open, total)}…`;
  if (isCutOff(link)) return `No relay can be reached any more (${total} tried): if this device is offline, the game reconnects by itself once it is back.`;
  if (link.noRelay()) return `No relay could be reached (${total} tried): the link cannot connect by itself. Exchange the codes instead.`;
  return `Reaching the relays (${total})…`;
}

function onLinkChange(link) {
  if (link !== friend.link) return;
  if (link.state === 'taken') {
    // Final: the host already has its friend. No answer code is any use either; remembered, so
    // that a reload shows "taken" at once instead of a game that will never start.
    const info = loadRoom(link.gameId);
    if (info) saveRoom(link.gameId, Object.assign({}, info, { x: 1 }));
    friendDrop();
    friendDropAlt();
    stopStore();
    Object.assign(friend, { taken: true, code: '', making: false, signalNote: '', error: TAKEN_MESSAGE, fallback: null });
    redraw();
    return;
  }
  const before = friend.signalNote;
  friend.signalNote = relayNote(link);
  // The guest of a link: no relay reachable within a few seconds -> the answer code.
  if (friend.fallback && (link.noRelay() || link.state === 'failed') && !friend.peer && !friend.making) {
    const { offer, card } = friend.fallback;
    friend.fallback = null;
    friendAnswer(offer, card);
    return;
  }
  if (app.state && friend.card) view.card(friend.card);
  // (the bar's note, by the relays; the pill, of a friend away)
  else if (app.state && (friend.store || !isLive(friend.peer)) && friend.signalNote !== before) redraw();
}

/** The RoomLink of this game (made from what the page remembers), or null when it has none. */
function friendLink() {
  if (friend.link && friend.link.gameId === friend.gameId && !friend.link.left) return friend.link;
  if (friend.link && friend.link.state === 'taken') return null;
  const info = friend.gameId && loadRoom(friend.gameId);
  if (!info) return null;
  if (info.x) {
    // This invite was taken by someone else (found before a reload).
    Object.assign(friend, { taken: true, error: TAKEN_MESSAGE, fallback: null });
    return null;
  }
  const gameId = friend.gameId;
  let link;
  try {
    link = new RoomLink({
      secret: info.s, role: info.r, token: info.t, expect: info.a || null, confirmed: info.c !== false,
      iceServers: HCPeer.iceServers(),
      // (c: the guest has proved itself; rooms saved before there was a proof lack it: confirmed)
      onaccept: token => {
        saveRoom(gameId, Object.assign({}, loadRoom(gameId) || info, { a: token, c: false }));
        // (the store now knows its friend's key: see StoreLink.knowFriend)
        if (friend.store && friend.store.gameId === gameId) friend.store.knowFriend(token);
      },
      onconfirm: () => saveRoom(gameId, Object.assign({}, loadRoom(gameId) || info, { c: true })),
    });
  } catch (e) {
    friend.signalNote = `The relays cannot be used: ${e.message}`;
    return null;
  }
  link.gameId = gameId;
  link.onchange = () => onLinkChange(link);
  friend.link = link;
  return link;
}

/** Make sure a Peer listens on the room's channel (when this game has a room). */
export function friendSignal() {
  if (friend.taken || friend.alt || isLive(friend.peer)) return;
  const link = friendLink();
  if (!link || link.left) return;
  const peer = new HCPeer.Peer({ gameId: friend.gameId });
  friend.alt = peer;
  friendWire(peer);
  peer.attach(link.channel());
  friend.signalNote = relayNote(link);
}

// ---- correspondence through the relays (signal/store.js): a game without a clock also goes
// through stored events, so that it goes on while the friend's page is closed.

function stopStore() {
  const old = friend.store;
  friend.store = null;
  if (old) old.leave();
}

/** What the store is doing, for the page (StoreLink.info(): state, relays open / refused,
 * unconfirmed events, young). */
export function storeInfo() {
  return friend.store ? friend.store.info() : null;
}

/** Make sure the store path runs for this game (no clock, a room, not taken). */
export function friendStore(p) {
  if (!p || (p.invite && p.invite.c) || friend.taken || p.game_id !== friend.gameId) return;
  if (friend.store && friend.store.gameId === p.game_id && !friend.store.left) return;
  const info = loadRoom(p.game_id);
  if (!info || info.x) return;
  stopStore();
  const gameId = p.game_id;
  const remember = fields => saveRoom(gameId, Object.assign({}, loadRoom(gameId) || info, fields));
  let shown = '';
  const store = new StoreLink({
    secret: info.s, gameId, role: info.r, token: info.t, peerKey: info.k || null, peerToken: info.a || null, since: info.w || 0,
    // (the store may start with the preview, before the Session is up: its batches wait for it --
    // the first one, dropped, cost a whole visit: the friend's moves came only on the next one)
    onmessages: (texts, open) => whenReady(() => {
      if (store !== friend.store) return trace('handed', texts.length, 'to a store left behind: dropped');
      const st = call('peer_stored', { data: texts, open }, { quiet: true });
      const q = st && st.peer;
      trace('handed', texts.length, open ? '(first)' : '', '->', st ? `${st.error || 'ok'} ${q && q.status} ${(st.moves || []).length} moves` : 'no state');
    }),
    onbind: key => remember({ k: key }),
    onsince: s => {
      const cur = loadRoom(gameId) || info;
      if (!(cur.w >= s)) remember({ w: s });
    },
    onchange: () => {
      const i = storeInfo();
      const key = i ? `${i.state}|${i.open}|${i.failed >= i.total}|${i.unconfirmed}|${i.young}` : '';
      if (store !== friend.store || key === shown) return;
      shown = key;
      redraw();
    },
  });
  friend.store = store;
  setTimeout(() => store.onchange && store.onchange(store), YOUNG_MS + 100);
}

/** A room this page hosts for its game (made on the first invite, kept across reloads). */
function hostRoom(gameId) {
  const saved = loadRoom(gameId);
  if (saved) return saved;
  return saveRoom(gameId, { s: newSecret(), r: 'host', t: newToken(), a: null });
}

/** A rematch goes on in the same room: the new game id inherits it (not the store's friend key
 * and reading point, which are the old game's: the key is derived per game). */
export function carryRoom(oldId, newId) {
  const info = loadRoom(oldId);
  if (info) saveRoom(newId, Object.assign({}, info, { k: null, w: 0 }));
  if (friend.link && friend.link.gameId === oldId) friend.link.gameId = newId;
}

/** Quick play hands over its connected room: the next game (made or joined right after this
 * call) is played over it; `info` is what the page remembers of it ({s, r, t, a}). */
export function adoptLink(link, info) {
  friend.adopted = { link, info };
}

// This side offers: a new invite (host, before the game) or a reconnect link (after a drop).
export async function friendOffer(st) {
  const p = friendGame(st);
  friend.making = true;
  friend.code = '';
  const peer = friendNewPeer();
  try {
    const { code } = await peer.host();
    if (peer !== friend.peer) return;
    const invite = p.invite || { g: p.game_id };
    let link = HCPeer.inviteLink(location.href, invite, code);
    if (p.role === 'host' && p.status === 'inviting') {
      const room = hostRoom(p.game_id);
      link += `&room=${room.s}`;
      // Without a clock the game may go on through the relays' store: the host's store key goes
      // with the invite, so that the guest's store binds it at once (not the earliest key of the
      // host's role, which a stranger with the link could backdate).
      if (!invite.c) link += `&hk=${await storeKeyOf(room.s, p.game_id, room.t)}`;
      if (peer !== friend.peer) return;
    }
    friend.code = link;
    friendSignal();
  } catch (e) {
    if (peer === friend.peer) friend.error = `Could not prepare the connection: ${e.message || e}`;
  } finally {
    if (peer === friend.peer) friend.making = false;
    redraw();
  }
}

// This side answers an offer (the invite link, or the other side's reconnect link).
async function friendAnswer(offerCode, card) {
  friend.making = true;
  friend.code = '';
  friend.error = '';
  friend.card = card;
  friend.hidden = false;
  const peer = friendNewPeer();
  redraw();
  try {
    const { code } = await peer.join(offerCode);
    if (peer !== friend.peer) return;
    friend.code = code;
    friend.waitingSince = Date.now();
  } catch (e) {
    if (peer === friend.peer) {
      friend.error = e.message || String(e);
      friendDrop();
      friend.card = null;
    }
  } finally {
    if (peer === friend.peer || !friend.peer) friend.making = false;
    redraw();
  }
}

// Whether an offer code is the one this page is showing (its own link).
function friendOwnOffer(offer) {
  try {
    return !!friend.code && HCPeer.parseLink(friend.code).offer === offer;
  } catch (e) {
    return false;
  }
}

export async function friendPaste() {
  const text = $('friend-paste').value.trim();
  friend.error = '';
  const H = HCPeer;
  try {
    if (!text) throw new H.CodeError('mangled', 'Paste the code or link your friend sent you first.');
    if (/#join=|^join=/.test(text) || /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text)) {
      const { invite, offer } = H.parseLink(text);
      if (invite.g !== friend.gameId) throw new H.CodeError('another-invite', 'This link belongs to another game, not to this one.');
      if (friendOwnOffer(offer)) throw new H.CodeError('wrong-kind', OWN_LINK);
      // The friend's link (e.g. its page was reloaded and made a new one): answer it.
      $('friend-paste').value = '';
      await friendAnswer(offer, friend.card === 'relink' ? 'join' : 'answer');
      return;
    }
    const kind = H.decode(text).kind;
    if (kind === 0) {
      if (friendOwnOffer(text)) throw new H.CodeError('wrong-kind', OWN_LINK);
      $('friend-paste').value = '';
      await friendAnswer(text, friend.card === 'relink' ? 'join' : 'answer');
      return;
    }
    if (!friend.peer || friend.peer.status === 'lost' || friend.peer.status === 'closed') {
      throw new H.CodeError('stale', 'This answer was made for an older link: send your friend the current link and paste the answer it gives.');
    }
    await friend.peer.accept(text);
    $('friend-paste').value = '';
    friend.waitingSince = Date.now();
  } catch (e) {
    friend.error = e.message || String(e);
  }
  redraw();
}

// A page opened with #join=<invite>.<offer> (or the hash changed to one).
export async function friendOpenLink() {
  if (!/^#join=/.test(location.hash) || !app.ready) return;
  let link;
  try {
    link = HCPeer.parseLink(location.href);
    const room = /[#&]room=([^&]*)/.exec(location.hash);
    if (room && !isSecret(room[1])) {
      throw new Error('This link is damaged (its room part was changed or cut): ask your friend to copy it again.');
    }
    const hk = /[#&]hk=([^&]*)/.exec(location.hash);
    if (hk && !/^[0-9a-f]{64}$/.test(hk[1])) {
      throw new Error('This link is damaged (its key part was changed or cut): ask your friend to copy it again.');
    }
  } catch (e) {
    clearHash();
    showToast(`${e.message}`);
    return;
  }
  const st = app.state;
  const p = friendGame(st);
  if (p && p.game_id === link.invite.g) {
    // The same game: a reconnect link (or the invite opened again).
    if (isLive(friend.peer)) {
      clearHash();
      showToast('Already connected to your friend.');
      return;
    }
    if (p.role === 'host' && p.status === 'inviting') {
      clearHash();
      friend.error = OWN_LINK;
      redraw();
      return;
    }
    const card = p.status === 'connecting' ? 'join' : 'answer';
    if (guestRoom(link.invite.g)) {
      clearHash();
      await relayOrCodes(link.offer, card);
      return;
    }
    await friendAnswer(link.offer, card);
    return;
  }
  const inProgress = st && !isOver(st) && (st.moves || []).length > 0;
  if (!(await mayLeave(inProgress && ["Join your friend's game?", 'The game in progress is kept in Your games.', 'Join', { danger: false }]))) {
    clearHash();
    return;
  }
  const joined = call('join', { invite: link.invite }, { quiet: true });
  if (!joined) return;
  if (joined.error || !friendGame(joined)) {
    clearHash();
    showToast(`Cannot join this game: ${joined.error || 'the invite was not accepted'}`);
    return;
  }
  app.bannerDismissedFor = null;
  redraw(joined); // the friend fields now belong to this game
  if (guestRoom(link.invite.g)) {
    clearHash();
    await relayOrCodes(link.offer, 'join');
    return;
  }
  await friendAnswer(link.offer, 'join');
}

/** One click: the relays find the host; the answer code for `offer` only when no relay can be
 * reached (now, or later: onLinkChange). */
async function relayOrCodes(offer, card) {
  friend.card = card;
  friend.waitingSince = Date.now();
  friendSignal();
  const link = friend.link;
  if (!link || link.state === 'failed' || link.noRelay()) {
    await friendAnswer(offer, card);
    return;
  }
  friend.fallback = { offer, card };
  redraw();
}

/** The room of the link being opened (#...&room=<secret>[&hk=<the host's store key>]), remembered
 * for the game; false when none. */
function guestRoom(gameId) {
  const m = /[#&]room=([0-9a-f]{32})(?:&|$)/.exec(location.hash);
  if (!m || !isSecret(m[1])) return false;
  const saved = loadRoom(gameId);
  if (saved && saved.s === m[1]) return true;
  if (saved && saved.r === 'host') return false; // our own invite opened here: the codes explain it
  const hk = /[#&]hk=([0-9a-f]{64})(?:&|$)/.exec(location.hash);
  saveRoom(gameId, Object.assign({ s: m[1], r: 'guest', t: newToken(), a: null }, hk ? { k: hk[1] } : {}));
  return true;
}
