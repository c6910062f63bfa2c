// Hidden Chess -- peer.js: the thin WebRTC adapter of "Invite a friend" (issues #7, #13).
//
// It moves strings between two browsers and knows nothing of chess: the protocol (commitments,
// the hash-chained log, the audit) is Python (py/hiddenchess/peer/). What lives here:
//
//   * one RTCPeerConnection with one ordered RTCDataChannel ("hc");
//   * the compact offer / answer codes: instead of a raw SDP (~1 kB), only what the other side
//     needs to rebuild one -- ICE ufrag/pwd, the DTLS sha-256 fingerprint, the setup role and
//     the candidates -- packed in binary with a game tag and a checksum, then base64url
//     (about 100-200 characters). The SDP is rebuilt from a fixed data-channel template.
//   * a heartbeat: "hc:ping" every 2 s, answered "hc:pong" (never delivered as a message);
//     the connection is "lost" after 6 s of silence, when the connection state becomes
//     "failed", stays "disconnected" for 3 s (it often heals by itself), or the channel closes.
//   * the ICE servers setting: localStorage "hiddenchess:ice" (a JSON array of RTCIceServer,
//     e.g. [{"urls":"stun:stun.example.org:3478"}], or [] for LAN play only); default: one
//     public STUN server, needed only for play across the internet.
//
// API (window.HCPeer):
//
//   const peer = new HCPeer.Peer({gameId});         // options: iceServers, heartbeatMs, lostMs
//   peer.onopen = () => ...;                        // the channel is open
//   peer.onmessage = text => ...;                   // a message from the other side
//   peer.onclose = reason => ...;                   // "closed" | "lost" (once, then peer is dead)
//   peer.onstatus = status => ...;                  // see STATUSES
//   host:   const {code} = await peer.host();       // compact offer; send it in the invite link
//           await peer.accept(answerCode);          // the friend's answer; then onopen
//   guest:  const {code} = await peer.join(offer);  // compact answer; the friend pastes it; onopen
//   peer.send(text); peer.close();
//   peer.attach(channel)                            // any other transport (the relay room, signal/room.js):
//           an object with send(text) whose onmessage / onclose / onopen properties peer.js sets
//           (onmessage receives a string or an event with .data); readyState === 'open' or
//           open === true when it is open already. Heartbeat and statuses work the same.
//
//   HCPeer.inviteLink(base, invite, offerCode) / HCPeer.parseLink(text) -> {invite, offer}
//   HCPeer.decode(code) -> the code's fields (throws HCPeer.CodeError with .kind and a message)
//   HCPeer.iceServers() / HCPeer.setIceServers(list|null)
//
// Code errors (CodeError.kind): "mangled" (damaged: checksum or format), "another-invite" (made
// for another game), "stale" (an answer to an invite this page no longer has open: the page was
// reloaded or a newer link was made), "used" (the invite is taken: an answer was already
// accepted), "wrong-kind" (an answer where an invite is expected or the reverse).
//
// The codes and links themselves are js/peer/codes.js (bytes.js: sha-256, base64url).

import { CodeError, MESSAGES } from './js/peer/errors.js';
import { MessageError, checkText } from './js/peer/safejson.js';
import { hex, sha256, utf8 } from './js/peer/bytes.js';
import {
  KIND_ANSWER, KIND_OFFER, MAX_CODE_BYTES, buildSdp, decode, encode, gameTag, inviteLink, offerTag, parseLink,
  parseSdp, sameBytes,
} from './js/peer/codes.js';

const ICE_KEY = 'hiddenchess:ice';
const DEFAULT_ICE = [{ urls: 'stun:stun.l.google.com:19302' }];
const PING = 'hc:ping';
const DISCONNECTED_GRACE_MS = 3000;
const PONG = 'hc:pong';

const STATUSES = {
  idle: 'nothing started',
  inviting: 'offer made, waiting for the answer',
  joining: 'answer made, waiting for the host to enter it',
  connecting: 'answer entered, connecting',
  open: 'connected',
  weak: 'connected, but the other side has been silent for a few seconds',
  lost: 'connection lost',
  closed: 'closed',
};

// ------------------------------------------------------------------------------ settings

/** The ICE servers to use: localStorage "hiddenchess:ice" (JSON array) or the public STUN default. */
function iceServers() {
  let raw = null;
  try {
    raw = localStorage.getItem(ICE_KEY);
  } catch (e) {
    return DEFAULT_ICE;
  }
  if (raw === null) return DEFAULT_ICE;
  try {
    const list = JSON.parse(raw);
    if (Array.isArray(list) && list.every(validIceServer)) return list;
  } catch (e) {
    // fall through
  }
  console.warn(`Hidden Chess: ignoring the setting ${ICE_KEY} (not a JSON array of {urls: ...}); using the default.`);
  return DEFAULT_ICE;
}

function validIceServer(s) {
  if (!s || typeof s !== 'object') return false;
  const urls = Array.isArray(s.urls) ? s.urls : [s.urls];
  return urls.length > 0 && urls.every(u => typeof u === 'string' && /^(stun|stuns|turn|turns):/.test(u));
}

/** Store the ICE servers (an array) or forget the setting (null); throws on a bad list. */
function setIceServers(list) {
  if (list === null) {
    localStorage.removeItem(ICE_KEY);
    return;
  }
  if (!Array.isArray(list) || !list.every(validIceServer)) {
    throw new Error('ICE servers must be a list of {urls: "stun:host:port" | "turn:..." , username?, credential?}');
  }
  localStorage.setItem(ICE_KEY, JSON.stringify(list));
}

// ------------------------------------------------------------------------------ the peer

// How long a code waits for ICE candidates: until gathering completes, but never more than
// GATHER_AFTER_FIRST_MS after the first candidate (an unreachable STUN server would otherwise hold
// the invite for seconds), SETTLE_MS after a server-reflexive or relay candidate (what a STUN or
// TURN server gives), and `timeoutMs` in all.
const GATHER_AFTER_FIRST_MS = 1000;
const SETTLE_MS = 150;

function waitForGathering(pc, timeoutMs) {
  return new Promise(resolve => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const timers = [setTimeout(done, timeoutMs)];
    let first = true;
    function done() {
      timers.forEach(clearTimeout);
      pc.removeEventListener('icegatheringstatechange', check);
      pc.removeEventListener('icecandidate', candidate);
      resolve();
    }
    function check() {
      if (pc.iceGatheringState === 'complete') done();
    }
    function candidate(e) {
      const c = e.candidate && e.candidate.candidate;
      if (!c) return;
      if (first) {
        first = false;
        timers.push(setTimeout(done, GATHER_AFTER_FIRST_MS));
      }
      if (/ typ (srflx|relay)/.test(c)) timers.push(setTimeout(done, SETTLE_MS));
    }
    pc.addEventListener('icegatheringstatechange', check);
    pc.addEventListener('icecandidate', candidate);
  });
}

class Peer {
  /**
   * @param {object} opts gameId (required for codes), iceServers (default: the setting),
   *   heartbeatMs (2000), lostMs (6000), gatherMs (longest wait for ICE candidates, 5000)
   */
  constructor(opts = {}) {
    this.gameId = opts.gameId == null ? null : String(opts.gameId);
    this.iceServers = opts.iceServers || iceServers();
    this.heartbeatMs = opts.heartbeatMs || 2000;
    this.lostMs = opts.lostMs || 6000;
    this.gatherMs = opts.gatherMs || 5000;
    this.status = 'idle';
    this.pc = null;
    this.channel = null;
    this.myOfferTag = null; // host: the tag of the offer this page has open
    this.accepted = false; // host: an answer was accepted (the invite is taken)
    this.lastHeard = 0;
    this.timer = 0;
    this.ended = false;
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onstatus = null;
  }

  _setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    if (this.onstatus) this.onstatus(status);
  }

  _needGame() {
    if (!this.gameId) throw new Error('HCPeer: the Peer needs a gameId to make or read codes');
  }

  _newConnection() {
    if (this.pc || this.channel) throw new Error('HCPeer: this Peer is already in use; make a new one');
    const pc = new RTCPeerConnection({ iceServers: this.iceServers });
    this.pc = pc;
    pc.addEventListener('connectionstatechange', () => {
      const s = pc.connectionState;
      // Failed before the channel ever opened: no direct path between the two networks.
      if (s === 'failed' && !this.opened) this.failure = 'ice';
      if (s === 'failed' || s === 'closed') return this._lose('lost');
      // "disconnected" often heals by itself within a second or two (ICE consent checks); it is
      // lost if it has not within DISCONNECTED_GRACE_MS (the heartbeat may decide sooner).
      clearTimeout(this._graceTimer);
      if (s === 'disconnected') {
        if (this.status === 'open') this._setStatus('weak');
        this._graceTimer = setTimeout(() => {
          if (pc.connectionState === 'disconnected') this._lose('lost');
        }, DISCONNECTED_GRACE_MS);
      }
    });
    return pc;
  }

  async _localInfo(pc, description) {
    await pc.setLocalDescription(description);
    await waitForGathering(pc, this.gatherMs);
    return parseSdp(pc.localDescription.sdp);
  }

  /** Host: make the offer. Returns {code}; then wait for accept(answer). */
  async host() {
    this._needGame();
    const pc = this._newConnection();
    this._wire(pc.createDataChannel('hc', { ordered: true }));
    const info = await this._localInfo(pc, await pc.createOffer());
    this.myOfferTag = offerTag(info);
    this._setStatus('inviting');
    return { code: encode({ kind: KIND_OFFER, gameId: this.gameId, info }) };
  }

  /** Guest: answer an offer code. Returns {code} (the answer for the host); then onopen. */
  async join(offerCode) {
    this._needGame();
    const offer = decode(offerCode);
    if (offer.kind !== KIND_OFFER) throw new CodeError('wrong-kind', MESSAGES.answerNotOffer);
    if (!sameBytes(offer.gameTag, gameTag(this.gameId))) throw new CodeError('another-invite', MESSAGES.another);
    const pc = this._newConnection();
    pc.addEventListener('datachannel', e => this._wire(e.channel));
    await pc.setRemoteDescription({ type: 'offer', sdp: buildSdp(offer.info) });
    const info = await this._localInfo(pc, await pc.createAnswer());
    this._setStatus('joining');
    return { code: encode({ kind: KIND_ANSWER, gameId: this.gameId, info, forOffer: offerTag(offer.info) }) };
  }

  /** Host: enter the friend's answer code (throws CodeError: mangled/another-invite/stale/used). */
  async accept(answerCode) {
    this._needGame();
    const answer = decode(answerCode);
    if (answer.kind !== KIND_ANSWER) throw new CodeError('wrong-kind', MESSAGES.offerNotAnswer);
    if (!sameBytes(answer.gameTag, gameTag(this.gameId))) throw new CodeError('another-invite', MESSAGES.another);
    if (!this.myOfferTag || !sameBytes(answer.offerTag, this.myOfferTag)) throw new CodeError('stale', MESSAGES.stale);
    if (this.accepted) throw new CodeError('used', MESSAGES.used);
    if (this.ended) throw new CodeError('stale', MESSAGES.stale);
    this.accepted = true;
    this._setStatus('connecting');
    try {
      await this.pc.setRemoteDescription({ type: 'answer', sdp: buildSdp(answer.info) });
    } catch (e) {
      this.accepted = false;
      throw new CodeError('mangled', `This answer cannot be used (${e.message || e}). Ask your friend to copy it again.`);
    }
  }

  /** Use another transport (see the header): send(text) + onmessage/onclose/onopen properties. */
  attach(channel) {
    if (this.pc || this.channel) throw new Error('HCPeer: this Peer is already in use; make a new one');
    if (!channel || typeof channel.send !== 'function') throw new Error('HCPeer.attach: the channel needs a send(text) method');
    this._setStatus('connecting');
    this._wire(channel);
  }

  _wire(channel) {
    this.channel = channel;
    channel.onopen = () => this._opened();
    channel.onmessage = e => this._received(typeof e === 'string' ? e : e && e.data);
    channel.onclose = () => this._lose('closed');
    if (channel.readyState === 'open' || channel.open === true) this._opened();
  }

  _opened() {
    if (this.ended || this.status === 'open' || this.status === 'weak') return;
    this.lastHeard = Date.now();
    this.opened = true;
    // An attached channel (the relays' room) may report open while the friend's page is already
    // gone: the room learns of a closed tab seconds later. Its first answer says it is there
    // (`heard`); a data channel of our own opened only once the two pages shook hands.
    this.heard = !!this.pc;
    this._setStatus('open');
    this._lastPing = 0;
    this._lastBeat = 0;
    this.timer = setInterval(() => this._beat(), Math.min(this.heartbeatMs, 1000));
    if (this.onopen) this.onopen();
  }

  _beat() {
    const now = Date.now();
    // A tick far behind its time means this page was frozen (a long computation, a background
    // tab): messages that arrived meanwhile are still queued behind this timer, so judge later.
    const frozen = this._lastBeat && now - this._lastBeat > 1500;
    this._lastBeat = now;
    if (frozen) {
      this._raw(PING);
      return;
    }
    const silent = now - this.lastHeard;
    if (silent >= this.lostMs) return this._lose('lost');
    this._setStatus(silent >= this.heartbeatMs * 1.5 + 500 ? 'weak' : 'open');
    if (now - this._lastPing >= this.heartbeatMs) {
      this._lastPing = now;
      this._raw(PING);
    }
  }

  _received(data) {
    if (this.ended || typeof data !== 'string') return;
    this.lastHeard = Date.now();
    if (this.status === 'weak') this._setStatus('open');
    if (!this.heard) {
      this.heard = true;
      if (this.onstatus) this.onstatus(this.status);
    }
    if (data === PING) return this._raw(PONG);
    if (data === PONG) return;
    // Hostile peers are assumed: a message too long, too deeply nested or with absurd numbers is
    // refused here, before anything parses it (the protocol's own checks come after).
    try {
      checkText(data);
    } catch (e) {
      if (!(e instanceof MessageError)) throw e;
      this.refused = (this.refused || 0) + 1;
      console.warn(`Hidden Chess: a message from the other device was refused: ${e.message}`);
      return;
    }
    if (this.onmessage) this.onmessage(data);
  }

  _raw(text) {
    try {
      this.channel.send(text);
    } catch (e) {
      this._lose('lost');
    }
  }

  /** Send one message (a string); throws when the channel is not open. */
  send(text) {
    if (typeof text !== 'string') throw new TypeError('HCPeer.send: messages are strings');
    if (this.ended || !this.channel || !(this.status === 'open' || this.status === 'weak')) {
      throw new Error('HCPeer.send: not connected');
    }
    this._raw(text);
  }

  _lose(reason) {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    clearTimeout(this._graceTimer);
    this._shutdown();
    this._setStatus(reason === 'closed' ? 'closed' : 'lost');
    if (this.onclose) this.onclose(reason);
  }

  _shutdown() {
    const { channel, pc } = this;
    for (const f of ['onopen', 'onmessage', 'onclose']) if (channel) channel[f] = null;
    try {
      if (channel && channel.close) channel.close();
    } catch (e) {
      // already closed
    }
    try {
      if (pc) pc.close();
    } catch (e) {
      // already closed
    }
  }

  /** End the connection on purpose (no onclose callback). */
  close() {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    clearTimeout(this._graceTimer);
    this._shutdown();
    this._setStatus('closed');
  }
}

const HCPeer = {
  Peer,
  ICE_FAILED: MESSAGES.iceFailed,
  CodeError,
  STATUSES,
  DEFAULT_ICE,
  ICE_KEY,
  MAX_CODE_CHARS: Math.ceil((MAX_CODE_BYTES * 4) / 3),
  encode,
  decode,
  inviteLink,
  parseLink,
  iceServers,
  setIceServers,
  gameTag,
  sha256hex: text => hex(sha256(utf8(text))),
  _buildSdp: buildSdp,
  _parseSdp: parseSdp,
};

window.HCPeer = HCPeer;
export default HCPeer;
