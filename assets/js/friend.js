// Hidden Chess -- friend play (issue #7), the connection. The Session's friend mode
// (py/hiddenchess/peer/) plays the protocol; this module only carries its messages over
// assets/peer.js (HCPeer) and, when a signaling server is set, assets/signal.js (HCSignal):
//   * every state may carry state.peer.outbox: sent in order right after the call that made it
//     (friendAfterCall); messages made while disconnected are re-sent by the resync (hello);
//   * HCPeer events -> actions: open -> peer_open, message -> peer_receive {data},
//     close / lost -> peer_closed;
//   * the host's link is <page>#join=<invite>.<offer>; opening it calls join {invite} and shows
//     the answer code; a reload on either side restores the game "disconnected" and both sides
//     offer a new link (either one may be used; the other side pastes it and sends its answer).
// What the player sees of it (the card over the board, the bar, the audit) is friend-ui.js.

import HCPeer from '../peer.js';
import HCSignal from '../signal.js';
import { $, isOver } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { confirmDialog } from './dialogs.js';
import { showToast } from './toast.js';

export const friend = {
  peer: null, // the HCPeer.Peer of the current connection (attempt)
  gameId: null, // the friend game these fields belong to
  card: null, // null | 'invite' | 'join' | 'answer' | 'reconnect' | ...: what the card over the board shows
  code: '', // the link or answer code this side has to send
  making: false, // a code is being prepared (ICE gathering)
  error: '', // the last problem with a pasted code / link
  hidden: false, // the player closed the card to look at the board
  waitingSince: 0, // when this side started to wait for the other (join / answer)
  noticeShown: null, // the protocol notice already shown
  alt: null, // a second Peer over a one-click signaling channel (assets/signal.js), if any
  signalNote: '', // what the one-click channel is doing (or why it cannot)
  taken: false, // the one-click host said another friend took this invite
};

// How friend-ui.js redraws: render(state) the whole friend UI, card(name) the card only.
export const view = { render: () => {}, card: () => {} };
const redraw = (st = app.state) => {
  if (st) view.render(st);
};

// The Connect button: the pasted text is the friend's answer, or (to reconnect) the friend's link.
export const OWN_LINK = 'This is your own link: send it to your friend, and paste the answer your friend sends back.';
const SIGNAL_LINK_KEY = 'hiddenchess:signal:link'; // the last link's {g, peerId, settings} (guest)

export function friendGame(st) {
  return st && st.peer ? st.peer : null;
}

export const isLive = peer => !!peer && (peer.status === 'open' || peer.status === 'weak');

const clearHash = () => history.replaceState(null, '', location.pathname + location.search);

// After every Session call: send what the protocol queued.
export function friendAfterCall(st) {
  const p = friendGame(st);
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
  friendDrop();
  friendDropAlt();
  Object.assign(friend, { peer: null, gameId, card: null, code: '', making: false, error: '', hidden: false, waitingSince: 0, signalNote: '', taken: false });
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
    Object.assign(friend, { card: null, code: '', error: '', hidden: false, signalNote: '' });
    if (/^#join=/.test(location.hash)) clearHash();
    call('peer_open');
  };
  peer.onmessage = data => {
    if (peer === friend.peer) call('peer_receive', { data }, { quiet: true });
  };
  peer.onclose = () => {
    if (peer === friend.alt) friend.alt = null;
    if (peer !== friend.peer) return;
    friend.peer = null;
    friend.hidden = false;
    call('peer_closed');
  };
}

// ---- one-click invites (assets/signal.js, optional): when a signaling server is configured
// (the host's setting; the guest takes it from the link), a second Peer is attached to the
// signaling channel next to the manual codes, and whichever opens first carries the game.

function friendDropAlt() {
  const old = friend.alt;
  friend.alt = null;
  if (old) {
    old.onstatus = old.onopen = old.onmessage = old.onclose = null;
    old.close();
  }
}

// Remember the one-click part of a link this page joined with (for reconnects after a reload).
function friendRememberSignal(gameId, hash) {
  const j = HCSignal.fromHash(hash);
  if (!j) return;
  if (j.error) {
    friend.signalNote = j.error;
    return;
  }
  try {
    localStorage.setItem(SIGNAL_LINK_KEY, JSON.stringify({ g: gameId, peerId: j.peerId, settings: j.settings }));
  } catch (e) {
    // storage full or off: one-click reconnects just do not happen
  }
}

// Start the one-click attempt for this side, if there is one; returns the channel or null.
function friendSignal(role) {
  friendDropAlt();
  let ch;
  try {
    if (role === 'host') {
      if (!HCSignal.enabled()) return null;
      ch = HCSignal.host(friend.gameId);
    } else {
      const saved = JSON.parse(localStorage.getItem(SIGNAL_LINK_KEY) || 'null');
      if (!saved || saved.g !== friend.gameId) return null;
      ch = HCSignal.join(saved.peerId, saved.settings);
    }
  } catch (e) {
    friend.signalNote = `One-click connection unavailable (${e.message || e}); the codes work as usual.`;
    return null;
  }
  const peer = new HCPeer.Peer({ gameId: friend.gameId });
  friend.alt = peer;
  friendWire(peer);
  ch.onstatus = text => {
    if (peer !== friend.alt) return;
    friend.signalNote = text;
    if (app.state && friend.card) view.card(friend.card);
  };
  ch.onerror = err => {
    if (peer !== friend.alt || !err) return;
    if (err.kind === 'taken') {
      // Final: the host already has its friend. The answer code is no use either.
      friendDrop();
      friendDropAlt();
      Object.assign(friend, { taken: true, code: '', making: false, signalNote: '', error: err.message });
    } else {
      friend.signalNote = err.message || String(err);
    }
    redraw();
  };
  peer.attach(ch);
  return ch;
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
    const ch = friendSignal(p.role === 'host' ? 'host' : 'guest');
    if (ch && p.role === 'host') link += `&${HCSignal.linkParams(ch.peerId)}`;
    friend.code = link;
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
    friendRememberSignal(link.invite.g, location.hash);
    friendSignal('guest');
    await friendAnswer(link.offer, p.status === 'connecting' ? 'join' : 'answer');
    return;
  }
  const inProgress = st && !isOver(st) && (st.moves || []).length > 0;
  if (inProgress) {
    const ok = await confirmDialog("Join your friend's game?", 'This ends the game in progress on this device (only one game is kept).', 'Join');
    if (!ok) {
      clearHash();
      return;
    }
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
  friendRememberSignal(link.invite.g, location.hash);
  friendSignal('guest');
  await friendAnswer(link.offer, 'join');
}
