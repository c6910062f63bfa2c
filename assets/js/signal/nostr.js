// Hidden Chess -- a small Nostr client for the quick-play lobby (issues #13, #24): publishes signed
// ephemeral events (kind EVENT_KIND, in the 20000-29999 range that relays pass on and never store)
// tagged with a topic ["x", topic], optionally with a NIP-13 proof of work (peer/pow.js), and
// subscribes to topics on every relay of the list. Runs in the page and in Node
// (bench/matchmaking.mjs): the WebSocket class can be given.
// Incoming frames are bounded (length before JSON.parse, depth, numbers), an event whose id is not
// the hash of its content is dropped, and events are de-duplicated across relays. The receiver
// decides which events deserve a signature check (verify(ev): a schnorr check costs about a
// millisecond, so a flood of events nobody asked for is dropped before it). The signatures use
// @noble/secp256k1 (vendored with Trystero).
// Relays come back: a closed socket is retried for ever, with a capped, jittered back-off
// (RETRY_MS), and at once when the browser goes back online or the page becomes visible.
// A socket the network dropped silently (no reset: a tunnel) is noticed, closed and retried the
// same way (alive.js: its EVENT or REQ unanswered for 8 s, or still connecting after 10 s),
// checked every ALIVE_MS while the pool has subscriptions. Nothing is sent to find out.

import { onRelayBack, relayBack } from './back.js';
import { dropIfDead, seenDropped } from './alive.js';
import { checkText } from '../peer/safejson.js';
import { eventId, mine } from '../peer/pow.js';
import { sha256 } from '../peer/bytes.js';
import { VENDOR } from '../vendor.js';

export const EVENT_KIND = 22913;
const NOBLE_URL = new URL('noble/secp256k1.js', VENDOR).href;
const MAX_FRAME_CHARS = 16 * 1024;
export const RETRY_MS = [500, 1000, 2000, 4000, 8000, 10000]; // then 10 s for ever (with jitter)
const SEEN_MAX = 4000;
const MAX_PENDING = 20; // events kept for a relay that is not connected (yet)
const ALIVE_MS = 500; // how often the sockets are checked for a silent death (alive.js)
const ID = /^[0-9a-f]{64}$/;
const SIG = /^[0-9a-f]{128}$/;

const hexOf = bytes => Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
const bytesOf = h => Uint8Array.from(h.match(/../g), b => parseInt(b, 16));

/** The retry delay after `retries` failures: capped, with up to 25 % jitter (never above the cap). */
export function retryDelay(retries, random = Math.random) {
  const ms = RETRY_MS[Math.min(retries, RETRY_MS.length - 1)];
  return Math.round(ms * (0.75 + 0.25 * random()));
}

/** The vendored schnorr signatures (noble), loaded once. */
async function loadSchnorr() {
  const noble = await import(NOBLE_URL);
  // The synchronous schnorr functions need a sha-256: ours (no promise per hash).
  if (!noble.hashes.sha256) noble.hashes.sha256 = sha256;
  return noble.schnorr;
}

/** The Nostr public key (hex) of a secret key (bytes). */
export async function publicKeyOf(secretKey) {
  return hexOf((await loadSchnorr()).getPublicKey(secretKey));
}

/** Add `key` to a set kept to SEEN_MAX entries (the oldest goes first). */
function remember(set, key) {
  set.add(key);
  if (set.size > SEEN_MAX) set.delete(set.values().next().value);
}

export class RelayPool {
  /** urls: relay addresses; onevent(topic, ev, url) for each new well-formed event of a subscribed
   * topic (its signature NOT checked yet: await pool.verify(ev); it returns false, not a promise, if
   * it did not take the event from that relay). The correspondence store
   * (store.js) also gives: kind (stored events), sinceS (null: no `since`), limit, secretKey (its
   * own, derived), maxFrameChars, onrelay(url, ev) for every well-formed event of a relay (also the
   * ones another relay gave already), oneose(url) and onok(url, id, ok, message). */
  constructor(urls, {
    WebSocketImpl = globalThis.WebSocket, onevent = null, onstate = null, kind = EVENT_KIND, sinceS = 5, limit = 0,
    secretKey = null, maxFrameChars = MAX_FRAME_CHARS, onrelay = null, oneose = null, onok = null, maxPending = MAX_PENDING,
  } = {}) {
    Object.assign(this, { kind, sinceS, limit, givenKey: secretKey, maxFrameChars, onrelay, oneose, onok, maxPending });
    this.urls = [...urls];
    this.WS = WebSocketImpl;
    this.onevent = onevent;
    this.onstate = onstate;
    this.sockets = new Map(); // url -> {ws, retries, timer, pending, silent}
    this.refused = new Set(); // relays whose socket closed (refused or dropped) since the start
    this.topics = new Set();
    this.subId = hexOf(crypto.getRandomValues(new Uint8Array(8)));
    // Events already passed on. By id once a signature is found right (`verify`), and by id and
    // signature until then: a hostile relay that passes a copy of an honest event with a broken
    // signature first must not make the page drop the honest copy when another relay brings it.
    this.seen = new Set();
    this.copies = new Set();
    this.sent = 0; // frames sent to relays
    this.received = 0; // frames received from relays
    this.verified = 0; // signatures checked
    this.signed = 0; // events signed
    this.checked = new Map(); // id + sig -> whether the signature is right
    this.closed = false;
    this.started = Date.now();
    this._wake = () => this.retryNow();
    this._visible = () => {
      if (typeof document === 'undefined' || document.visibilityState === 'visible') this.retryNow();
    };
  }

  async start() {
    this.schnorr = await loadSchnorr();
    const { secretKey, publicKey } = this.givenKey
      ? { secretKey: this.givenKey, publicKey: this.schnorr.getPublicKey(this.givenKey) }
      : this.schnorr.keygen();
    this.secretKey = secretKey;
    this.pubkey = hexOf(publicKey);
    if (typeof addEventListener === 'function') {
      addEventListener('online', this._wake);
      if (typeof document !== 'undefined') document.addEventListener('visibilitychange', this._visible);
    }
    this._offBack = onRelayBack(this._wake);
    for (const url of this.urls) this._open(url);
  }

  /** How many relays refused or dropped a connection since this pool started. */
  refusedCount() {
    return this.refused.size;
  }

  openCount() {
    let n = 0;
    for (const s of this.sockets.values()) if (s.ws && s.ws.readyState === 1) n++;
    return n;
  }

  _open(url) {
    if (this.closed) return;
    // (silent: the sockets in a row dropped as dead with nothing heard from the relay since)
    const slot = this.sockets.get(url) || { ws: null, retries: 0, timer: null, pending: [], silent: 0 };
    this.sockets.set(url, slot);
    clearTimeout(slot.timer);
    slot.timer = null;
    let ws;
    try {
      ws = new this.WS(url);
    } catch (e) {
      this.refused.add(url);
      if (this.onstate) this.onstate(this);
      this._retry(url, slot);
      return;
    }
    slot.ws = ws;
    dropIfDead(ws); // (new: never dead, but watched from its first frame on)
    ws.onopen = () => {
      // (open after a refusal or a drop: the relay is back, the page's other sockets try now)
      const back = slot.retries > 0;
      slot.retries = 0;
      if (back) relayBack(url);
      this._req(ws);
      // Events published before the socket opened (the first seek) go now.
      for (const frame of slot.pending.splice(0)) this._send(ws, frame);
      if (this.onstate) this.onstate(this);
    };
    ws.onmessage = e => this._frame(String(e.data), url);
    ws.onclose = () => {
      if (slot.ws !== ws) return;
      slot.ws = null;
      if (seenDropped(ws)) {
        // (gone silent, not refused: a relay that takes connections but never answers is retried
        // further apart each time, until it is heard again)
        slot.retries = Math.max(slot.retries, slot.silent);
        slot.silent += 1;
      }
      this.refused.add(url);
      if (this.onstate) this.onstate(this);
      this._retry(url, slot);
    };
    ws.onerror = () => {};
  }

  _retry(url, slot) {
    if (this.closed) return;
    const ms = retryDelay(slot.retries);
    slot.retries += 1;
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this._open(url), ms);
  }

  /** Drop and retry each socket the network dropped silently (alive.js). A relay that takes
   * connections but never answers is retried on the back-off (`silent`), not at once each time. */
  _checkAlive() {
    for (const slot of this.sockets.values()) dropIfDead(slot.ws); // (its onclose retries)
  }

  /** Try every relay that is not connected now (back online, page visible again). */
  retryNow() {
    if (this.closed) return;
    for (const [url, slot] of this.sockets) {
      if (slot.ws) continue; // connected or connecting
      slot.retries = 0;
      this._open(url);
    }
  }

  _send(ws, frame) {
    if (ws && ws.readyState === 1) {
      ws.send(frame);
      this.sent += 1;
    }
  }

  _req(ws) {
    if (!this.topics.size) return;
    const filter = { kinds: [this.kind], '#x': [...this.topics] };
    if (this.sinceS !== null) filter.since = Math.floor(Date.now() / 1000) - this.sinceS;
    if (this.limit) filter.limit = this.limit;
    this._send(ws, JSON.stringify(['REQ', this.subId, filter]));
  }

  subscribe(topic) {
    this.topics.add(topic);
    if (!this.aliveTimer && !this.closed) this.aliveTimer = setInterval(() => this._checkAlive(), ALIVE_MS);
    for (const s of this.sockets.values()) this._req(s.ws);
  }

  _frame(text, url) {
    this.received += 1;
    const slot = this.sockets.get(url);
    if (slot) slot.silent = 0;
    let msg;
    try {
      checkText(text, { maxChars: this.maxFrameChars, maxDepth: 6 });
      msg = JSON.parse(text);
    } catch (e) {
      return; // too big, too deep or not JSON: ignored
    }
    if (!Array.isArray(msg)) return;
    if ((msg[0] === 'EOSE' || msg[0] === 'CLOSED') && msg[1] === this.subId) {
      if (this.oneose) this.oneose(url);
      return;
    }
    if (msg[0] === 'OK' && typeof msg[1] === 'string') {
      if (this.onok) this.onok(url, msg[1], msg[2] === true, typeof msg[3] === 'string' ? msg[3].slice(0, 200) : '');
      return;
    }
    if (msg[0] !== 'EVENT' || msg[1] !== this.subId) return;
    const ev = wellFormed(msg[2]);
    if (!ev) return;
    // (an event may carry several topics: a batch of the lobby's, one per addressee)
    const tag = ev.tags.find(t => t[0] === 'x' && this.topics.has(t[1]));
    if (!tag || ev.kind !== this.kind) return;
    const copy = ev.id + ev.sig;
    if (this.seen.has(ev.id) || this.copies.has(copy)) {
      if (this.onrelay) this.onrelay(url, ev);
      return;
    }
    if (eventId(ev) !== ev.id) return; // the id must be the hash of what it carries
    remember(this.copies, copy);
    if (this.onrelay) this.onrelay(url, ev);
    // (onevent returns false when it did not take the event from this relay, e.g. over that
    // relay's share: another relay's copy is then passed on)
    if (this.onevent && this.onevent(tag[1], ev, url) === false) this.copies.delete(copy);
  }

  /** Whether `ev` (well formed, its id checked) is signed by its pubkey. Checked once per event
   * (the answer is kept by id and signature). */
  async verify(ev) {
    const known = this.checked.get(ev.id + ev.sig);
    if (known !== undefined) return known;
    this.verified += 1;
    let ok;
    try {
      ok = this.schnorr.verify(bytesOf(ev.sig), bytesOf(ev.id), bytesOf(ev.pubkey));
    } catch (e) {
      ok = false;
    }
    this.checked.set(ev.id + ev.sig, ok);
    if (this.checked.size > SEEN_MAX) this.checked.delete(this.checked.keys().next().value);
    if (ok) remember(this.seen, ev.id); // (another copy, even signed again by its key, is not new)
    return ok;
  }

  _sign(ev) {
    this.signed += 1;
    ev.sig = hexOf(this.schnorr.sign(bytesOf(ev.id), this.secretKey));
    return ev;
  }

  /** Sign and send an event with `content` (a string) on `topic` (or on each of several topics:
   * an array) to every relay (kept for one that is not connected yet); `pow`: the proof of work
   * in bits (NIP-13). Returns the signed event. */
  async publish(topic, content, { pow = 0 } = {}) {
    if (this.closed) return null;
    const tags = (Array.isArray(topic) ? topic : [topic]).map(t => ['x', t]);
    let ev = { pubkey: this.pubkey, created_at: Math.floor(Date.now() / 1000), kind: this.kind, tags, content };
    if (pow > 0) ev = await mine(ev, pow);
    else ev.id = eventId(ev);
    if (this.closed) return null;
    this.sendEvent(this._sign(ev));
    return ev;
  }

  /** Sign an event of this pool's kind with `content` on `topic`, without sending it. */
  sign(topic, content) {
    const ev = { pubkey: this.pubkey, created_at: Math.floor(Date.now() / 1000), kind: this.kind, tags: [['x', topic]], content };
    ev.id = eventId(ev);
    return this._sign(ev);
  }

  /** Send a signed event as it is (again); `urls`: only to these relays (default: all). Returns
   * the relays it went to now (the others keep it until they connect). */
  sendEvent(ev, urls = null) {
    const frame = JSON.stringify(['EVENT', ev]);
    const now = [];
    for (const [url, s] of this.sockets) {
      if (urls && !urls.includes(url)) continue;
      if (s.ws && s.ws.readyState === 1) {
        this._send(s.ws, frame);
        now.push(url);
      } else if (this.maxPending > 0) {
        // (the newest are kept: after a long cut, the seek made last matters, not the first)
        s.pending.push(frame);
        if (s.pending.length > this.maxPending) s.pending.splice(0, s.pending.length - this.maxPending);
      }
    }
    return now;
  }

  /** Whether the relay `url` is connected now. */
  isOpen(url) {
    const s = this.sockets.get(url);
    return !!(s && s.ws && s.ws.readyState === 1);
  }

  close() {
    this.closed = true;
    clearInterval(this.aliveTimer);
    if (this._offBack) this._offBack();
    if (typeof removeEventListener === 'function') {
      removeEventListener('online', this._wake);
      if (typeof document !== 'undefined') document.removeEventListener('visibilitychange', this._visible);
    }
    for (const s of this.sockets.values()) {
      clearTimeout(s.timer);
      if (s.ws) {
        s.ws.onclose = null;
        try {
          s.ws.close();
        } catch (e) {
          // closed already
        }
      }
    }
    this.sockets.clear();
  }
}

/** The event if it has the NIP-01 shape (hex id, pubkey and sig, integer time, string tags and
 * content), else null. */
export function wellFormed(ev) {
  if (!ev || typeof ev !== 'object' || Array.isArray(ev)) return null;
  if (!ID.test(ev.id) || !ID.test(ev.pubkey) || !SIG.test(ev.sig) || !Number.isInteger(ev.created_at) ||
      !Number.isInteger(ev.kind) || typeof ev.content !== 'string' || !Array.isArray(ev.tags)) return null;
  if (!ev.tags.every(t => Array.isArray(t) && t.length <= 4 && t.every(x => typeof x === 'string'))) return null;
  return ev;
}
