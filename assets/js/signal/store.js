// Hidden Chess -- correspondence through the relays (issue #26): the store-and-forward path beside
// the live one (room.js). In a friend game without a clock, each page also publishes every message
// of its chain to the game's relays as a *stored* Nostr event (kind STORE_KIND, a regular kind that
// relays keep), and a page that opens fetches the stored events of its game and hands their
// messages to the Session (action peer_stored), which checks them like any live message (hash
// chain, commitments, duplicates, resync: py/hiddenchess/peer/stored.py). See docs/PEER.md,
// "Correspondence through the relays".
//
// What a relay sees: events on an opaque tag ["x", HKDF(secret, "tag|" + game id)], signed by a key
// derived per game and device (HKDF(secret, "sign|" + game id + "|" + device token)), whose content
// is AES-GCM under HKDF(secret, "aes|" + game id), with the tag as associated data. Never the
// game id, a move or a secret. Every relay event is hostile until checked: frame size, JSON depth
// and numbers (safejson.js), the event id and signature, the tag, decryption (a failure is ignored),
// the envelope's shape, the sender (only this device's own key, or the friend's -- the key of the
// friend's token once the live link has met the friend, else the first key of the other role
// seen; remembered), and a cap on events per relay and per minute.
//
// new StoreLink({secret, gameId, role, token, peerKey, peerToken, since, relays, onmessages, onbind, onsince, onchange})
//   peerToken: the friend's device token, when known (link.knowFriend(token) when it becomes so).
//   onmessages(texts, open): the messages of a batch (open: the first one, once at least one relay
//   sent all it holds, or a few seconds after the first relay answered); later events come in
//   small batches as they arrive. onbind(pubkey): the friend's key, to remember (room info `k`).
//   onsince(s): the newest event time seen (room info `w`: the next visit asks only from a day
//   before it). onchange(link) after a change of state or of what is confirmed.
// link.publish(texts): new messages, to every relay. link.republish(texts): messages the friend
//   has not acknowledged: only to the relays that did not return them (or never answered).
// link.relayState() -> {open, total, failed (relays that refused or dropped it)};
//   link.unconfirmed() -> how many events this page sent that no relay holds yet, or that a
//   connected relay has not confirmed yet; link.info() -> all that, for the page (storeReaches());
//   link.leave().
// Rate limits: at most WINDOW events of this page unconfirmed per relay at once (the rest wait for
// the relay's OK), and a relay that answers "rate-limited" is left alone for a back-off that
// doubles from 1 s to a minute; incoming, at most IN_PER_MINUTE events per relay and minute.

import { RelayPool, publicKeyOf } from './nostr.js';
import { relayUrls } from './relays.js';
import { MessageError, checkText, parseLimited } from '../peer/safejson.js';

export const STORE_KIND = 4613; // a regular kind (1000-9999): relays store it
const MAX_FRAME_CHARS = 48 * 1024;
export const CHUNK_CHARS = 12000; // a longer message goes in parts (relays refuse large events)
const MAX_PARTS = 8; // 8 x 12000 > the 64 kB a message may have (safejson.js)
const MAX_PARTIALS = 16;
const LIMIT = 2000; // events asked of a relay at once
const MAX_EVENTS = 4000; // events kept per game and page
const IN_PER_MINUTE = 600;
const WINDOW = 8;
const BACKOFF_MS = [1000, 2000, 4000, 8000, 16000, 32000, 60000];
const OPEN_WAIT_MS = 3000; // after the first relay's "end of stored events", the others this long
const BATCH_MS = 150;
const SINCE_MARGIN_S = 24 * 3600;
const PUBKEY = /^[0-9a-f]{64}$/;
const TOKEN = /^[0-9a-f]{32}$/;

// (tests and the console: window.hcStoreTrace = [] collects what the store does, one line a step)
export const trace = (...words) => {
  if (Array.isArray(globalThis.hcStoreTrace)) globalThis.hcStoreTrace.push(`${(performance.now() / 1000).toFixed(1)} ${words.join(' ')}`);
};

const enc = new TextEncoder();
const dec = new TextDecoder();
const hexOf = bytes => Array.from(new Uint8Array(bytes), b => b.toString(16).padStart(2, '0')).join('');
const bytesOf = h => Uint8Array.from(h.match(/../g), b => parseInt(b, 16));

function b64(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unb64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The keys of a game's store from its room secret: {tag, aes, signKey} (see the header). */
export async function storeKeys(secret, gameId, token) {
  const base = await crypto.subtle.importKey('raw', bytesOf(secret), 'HKDF', false, ['deriveBits', 'deriveKey']);
  const salt = enc.encode('hiddenchess store v1');
  const bits = info => crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: enc.encode(info) }, base, 256);
  const tag = hexOf(await bits(`tag|${gameId}`));
  const aes = await crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt, info: enc.encode(`aes|${gameId}`) }, base,
    { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const signKey = new Uint8Array(await bits(`sign|${gameId}|${token}`));
  return { tag, aes, signKey };
}

/** The store key (Nostr public key) of the device whose token is `token`: a page that knows its
 * friend's token (from the live link's handshake, signal/handshake.js) knows its friend's key. */
export async function storeKeyOf(secret, gameId, token) {
  return publicKeyOf((await storeKeys(secret, gameId, token)).signKey);
}

export async function seal(aes, tag, obj) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: enc.encode(tag) }, aes,
    enc.encode(JSON.stringify(obj))));
  const out = new Uint8Array(12 + data.length);
  out.set(iv);
  out.set(data, 12);
  return b64(out);
}

/** The envelope in `content`, or null (not ours, damaged, or not decryptable: ignored). */
export async function open(aes, tag, content) {
  try {
    const raw = unb64(content);
    if (raw.length < 29) return null;
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: raw.slice(0, 12), additionalData: enc.encode(tag) }, aes, raw.slice(12));
    const env = parseLimited(dec.decode(plain), { maxChars: CHUNK_CHARS + 512, maxDepth: 3 });
    if (!env || typeof env !== 'object' || (env.r !== 'host' && env.r !== 'guest') || typeof env.m !== 'string') return null;
    if (env.p !== undefined) {
      const [cid, i, k] = Array.isArray(env.p) ? env.p : [];
      if (typeof cid !== 'string' || cid.length > 32 || !Number.isInteger(i) || !Number.isInteger(k) || k < 2 || k > MAX_PARTS || i < 0 || i >= k) return null;
    }
    return env;
  } catch (e) {
    return null;
  }
}

/** The envelopes of one message: one, or parts of CHUNK_CHARS. */
export function envelopes(role, text) {
  if (text.length <= CHUNK_CHARS) return [{ r: role, m: text }];
  const k = Math.ceil(text.length / CHUNK_CHARS);
  if (k > MAX_PARTS) throw new MessageError('a message too long for the relays');
  const cid = hexOf(crypto.getRandomValues(new Uint8Array(8)));
  return Array.from({ length: k }, (_, i) => ({ r: role, m: text.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS), p: [cid, i, k] }));
}

export const YOUNG_MS = 5000; // a store this young may still be reaching its relays

/** Whether a game may go on through the store, from its info(): a relay is open, or the store
 * has just started and not every relay has refused it yet (slow relays may still answer). When
 * every relay refused (offline, or all down) it says so at once: the page shows the codes. */
export function storeReaches(info) {
  if (!info) return false;
  if ((info.state === 'ready' || info.state === 'fetching') && info.open > 0) return true;
  return info.state !== 'failed' && info.young && !(info.open === 0 && info.failed >= info.total);
}

export class StoreLink {
  constructor({ secret, gameId, role, token, peerKey = null, peerToken = null, since = 0, relays = null, onmessages = null, onbind = null, onsince = null, onchange = null,
    maxEvents = MAX_EVENTS }) {
    Object.assign(this, { secret, gameId, role, token, onmessages, onbind, onsince, onchange, maxEvents });
    this.peerKey = typeof peerKey === 'string' && PUBKEY.test(peerKey) ? peerKey : null;
    this.peerToken = typeof peerToken === 'string' && TOKEN.test(peerToken) ? peerToken : null;
    this.since = Number.isInteger(since) && since > 0 ? since : 0;
    this.relays = relays || relayUrls();
    this.state = 'loading'; // loading | fetching | ready | failed | left
    this.error = '';
    this.left = false;
    this.opened = false; // the first batch went out
    this.eosed = new Set(); // relays that sent all they hold
    this.held = new Map(); // url -> Set of my texts that relay returned
    this.out = new Map(); // url -> {queue: [ev], inflight: Map id -> ev, backoff, until, timer, gaveUp: Set}
    this.signing = 0; // messages handed over, not signed yet
    this.waiting = new Map(); // id of an event this page sent -> the relays that have not confirmed it
    this.kept = new Set(); // ids of this page's events that at least one relay holds
    this.mine = new Map(); // id -> text of my events made by this page
    this.batch = [];
    this.early = []; // {ev, env} of the friend's role before the friend's key is known
    this.partials = new Map();
    this.count = 0;
    this.inRate = new Map(); // url -> {minute, n}
    this.started = Date.now();
    this._start();
  }

  _changed() {
    if (this.onchange) {
      try {
        this.onchange(this);
      } catch (e) {
        console.error(e);
      }
    }
  }

  async _start() {
    try {
      this.keys = await storeKeys(this.secret, this.gameId, this.token);
      if (this.peerToken) this._bindKey(await storeKeyOf(this.secret, this.gameId, this.peerToken));
      this.pool = new RelayPool(this.relays, {
        kind: STORE_KIND, sinceS: null, limit: LIMIT, secretKey: this.keys.signKey, maxFrameChars: MAX_FRAME_CHARS, maxPending: 0,
        onevent: (topic, ev, url) => this._take(ev, url),
        onrelay: (url, ev) => this._onRelay(url, ev),
        oneose: url => this._eose(url),
        onok: (url, id, ok, message) => this._ok(url, id, ok, message),
        onstate: () => this._pump(),
      });
      this.pool._req = this._req(this.pool);
      await this.pool.start();
    } catch (e) {
      this.state = 'failed';
      this.error = `the relays cannot be used: ${e.message || e}`;
      this._changed();
      return;
    }
    if (this.left) {
      this.pool.close();
      return;
    }
    this.pubkey = this.pool.pubkey;
    trace('start: me', this.pubkey.slice(0, 8), 'role', this.role, 'friend', (this.peerKey || '?').slice(0, 8), 'since', this.since);
    this.pool.subscribe(this.keys.tag);
    this.state = 'fetching';
    this._changed();
  }

  /** The subscription: from a day before the newest event of the last visit (if any). Its limit
   * varies a little, so that no relay answers it from a cache of an earlier, identical request
   * (nostr-relay caches a filter's result for a second: a page opened right after the friend's
   * would get the friend's empty store of a moment ago). */
  _req(pool) {
    return ws => {
      if (!pool.topics.size) return;
      const filter = { kinds: [STORE_KIND], '#x': [...pool.topics], limit: LIMIT + Math.floor(Math.random() * 1000) };
      if (this.since) filter.since = Math.max(0, this.since - SINCE_MARGIN_S);
      pool._send(ws, JSON.stringify(['REQ', pool.subId, filter]));
    };
  }

  relayState() {
    return { open: this.pool ? this.pool.openCount() : 0, total: this.relays.length, failed: this.pool ? this.pool.refusedCount() : 0 };
  }

  /** What the store is doing, for the page: {state, open, total, failed, unconfirmed, inbound,
   * error, young} (inbound: the friend's events received and not yet handed to the page -- being
   * checked, waiting for the friend's key or for their batch; young: started less than YOUNG_MS
   * ago, so it may still be reaching its relays). */
  info(now = Date.now()) {
    const inbound = (this.busy || 0) + this.early.length + this.batch.length;
    return { state: this.state, ...this.relayState(), unconfirmed: this.unconfirmed(), inbound, error: this.error, young: now - this.started < YOUNG_MS };
  }

  /** How many of the events this page sent are not safe yet: no relay holds one yet, or a
   * connected relay has not confirmed it (a relay that is down is not waited for once another
   * holds the event: it gets it when it is back, if the page is still open). */
  unconfirmed() {
    let n = this.signing;
    for (const [id, urls] of this.waiting) {
      if (!urls.size) this.waiting.delete(id);
      else if (!this.kept.has(id) || [...urls].some(url => this.pool.isOpen(url))) n++;
    }
    return n;
  }

  /** `url` is done with event `id`: it holds it (`held`), or refused it for good. */
  _confirmed(url, id, held = true) {
    const urls = this.waiting.get(id);
    if (urls) urls.delete(url);
    if (held) this.kept.add(id);
  }

  _rateOk(url) {
    const minute = Math.floor(Date.now() / 60000);
    const r = this.inRate.get(url) || { minute, n: 0 };
    if (r.minute !== minute) Object.assign(r, { minute, n: 0 });
    r.n += 1;
    this.inRate.set(url, r);
    return r.n <= IN_PER_MINUTE;
  }

  _onRelay(url, ev) {
    if (ev.pubkey !== this.pubkey) return;
    this._confirmed(url, ev.id);
    const text = this.mine.get(ev.id);
    if (text !== undefined) this._held(url).add(text);
    else this._pendingOwn = (this._pendingOwn || []).concat([[url, ev]]).slice(-MAX_EVENTS);
  }

  _held(url) {
    if (!this.held.has(url)) this.held.set(url, new Set());
    return this.held.get(url);
  }

  /** An event from relay `url`: false if it is not taken from that relay (left, full, or over
   * that relay's rate: the pool then passes another relay's copy on). */
  _take(ev, url) {
    if (this.left || this.count >= this.maxEvents || !this._rateOk(url)) {
      trace('in: dropped (left/count/rate)', url);
      return false;
    }
    this._event(ev, url);
    return true;
  }

  async _event(ev, url) {
    this.busy = (this.busy || 0) + 1;
    try {
      await this._check(ev, url);
    } finally {
      this.busy -= 1;
    }
  }

  async _check(ev, url) {
    const mine = ev.pubkey === this.pubkey;
    trace('in:', ev.id.slice(0, 8), mine ? 'mine' : `key ${ev.pubkey.slice(0, 8)}`, 'from', url, 'at', ev.created_at);
    if (!mine && this.peerKey && ev.pubkey !== this.peerKey) return trace('in: a third key, ignored; friend is', this.peerKey.slice(0, 8)); // a third device: ignored
    if (!(await this.pool.verify(ev))) return;
    const env = await open(this.keys.aes, this.keys.tag, ev.content);
    if (!env || this.left) return;
    // (counted once it opens: only a holder of the room secret can make such an event, so junk
    // from a relay, or a broken copy of a real event, never fills the page's share)
    this.count += 1;
    if (mine !== (env.r === this.role)) return; // (only the friend speaks for the other role)
    const text = this._whole(ev, env);
    if (text === null) return;
    try {
      checkText(text);
    } catch (e) {
      return;
    }
    if (mine) {
      this.mine.set(ev.id, text);
      this._held(url).add(text);
    }
    if (ev.created_at > (this.newest || 0)) this.newest = ev.created_at;
    if (!mine && !this.peerKey) {
      this.early.push({ ev, text });
      if (this.opened) this._bindEarly();
      return;
    }
    this._queue(text);
  }

  /** A message, or one of its parts: the message once all parts came (else null). */
  _whole(ev, env) {
    if (!env.p) return env.m;
    const [cid, i, k] = env.p;
    const key = `${ev.pubkey}|${cid}`;
    let parts = this.partials.get(key);
    if (!parts) {
      if (this.partials.size >= MAX_PARTIALS) this.partials.delete(this.partials.keys().next().value);
      parts = { k, got: new Map() };
      this.partials.set(key, parts);
    }
    if (parts.k !== k) return null;
    parts.got.set(i, env.m);
    if (parts.got.size < k) return null;
    this.partials.delete(key);
    return Array.from({ length: k }, (_, j) => parts.got.get(j)).join('');
  }

  /** The friend's token is known now (the live link met it): its key is the friend's, whatever
   * the store had taken for it (the earliest key of the other role, which a stranger with the
   * link could have backdated). Events of that key ignored before come on the next visit. */
  async knowFriend(token) {
    if (this.left || typeof token !== 'string' || !TOKEN.test(token) || token === this.peerToken) return;
    this.peerToken = token;
    const key = await storeKeyOf(this.secret, this.gameId, token);
    if (this.left || this.peerToken !== token) return;
    this._bindKey(key);
    if (this.opened) this._bindEarly();
  }

  _bindKey(key) {
    if (key === this.peerKey) return;
    trace('bind: friend is', key.slice(0, 8), 'by its token', this.peerKey ? `(not ${this.peerKey.slice(0, 8)})` : '');
    this.peerKey = key;
    if (this.onbind) this.onbind(key);
  }

  /** The friend is the earliest key of the other role (the honest friend published first), until
   * its token is known (knowFriend). */
  _bindEarly() {
    if (!this.early.length) return;
    if (!this.peerKey) {
      const first = this.early.reduce((a, b) => (b.ev.created_at < a.ev.created_at ? b : a));
      this.peerKey = first.ev.pubkey;
      trace('bind: friend is', this.peerKey.slice(0, 8));
      if (this.onbind) this.onbind(this.peerKey);
    }
    for (const { ev, text } of this.early.splice(0)) if (ev.pubkey === this.peerKey) this._queue(text);
  }

  _queue(text) {
    this.batch.push(text);
    if (!this.opened) return;
    clearTimeout(this._batchTimer);
    this._batchTimer = setTimeout(() => this._flush(false), BATCH_MS);
  }

  _eose(url) {
    trace('eose', url);
    this.eosed.add(url);
    if (this.opened) return;
    const { open } = this.relayState();
    if (this.eosed.size >= open) this._open();
    else if (!this._openTimer) this._openTimer = setTimeout(() => this._open(), OPEN_WAIT_MS);
  }

  async _open() {
    if (this.opened || this.left) return;
    // (events still being checked -- signatures, decryption -- finish first)
    for (let i = 0; i < 100 && this.busy; i++) await new Promise(resolve => setTimeout(resolve, 20));
    if (this.opened || this.left) return;
    this.opened = true;
    clearTimeout(this._openTimer);
    for (const [url, ev] of this._pendingOwn || []) {
      const text = this.mine.get(ev.id);
      if (text !== undefined) this._held(url).add(text);
    }
    this._pendingOwn = null;
    this._bindEarly();
    this.state = 'ready';
    this._flush(true);
    this._changed();
  }

  _flush(first) {
    if (this.left) return;
    const texts = this.batch.splice(0);
    trace('flush', first ? 'first' : '', texts.length, 'texts');
    if (this.newest && this.onsince) this.onsince(this.newest);
    if (!first && !texts.length) return;
    if (this.onmessages) this.onmessages(texts, first);
  }

  // ---- sending

  async _send(texts, only) {
    if (!this.pool || !this.pubkey) {
      await new Promise(resolve => setTimeout(resolve, 200));
      if (this.left) return;
      if (this.state === 'failed') return;
      return this._send(texts, only);
    }
    for (const text of texts) {
      if (typeof text !== 'string') continue;
      const targets = only ? this.relays.filter(url => only(url, text)) : this.relays;
      if (!targets.length) continue;
      let envs;
      try {
        envs = envelopes(this.role, text);
      } catch (e) {
        console.warn(`Hidden Chess: ${e.message}`);
        continue;
      }
      for (const env of envs) {
        const ev = this.pool.sign(this.keys.tag, await seal(this.keys.aes, this.keys.tag, env));
        this.mine.set(ev.id, text);
        trace('out:', ev.id.slice(0, 8), 'to', targets.length, 'relays', only ? '(again)' : '', text.slice(0, 60));
        this.waiting.set(ev.id, new Set(targets));
        for (const url of targets) this._slot(url).queue.push(ev);
      }
    }
    this._pump();
    this._changed();
  }

  publish(texts) {
    trace('publish', texts ? texts.length : 0);
    if (texts && texts.length) this._counted(texts, null);
  }

  async _counted(texts, only) {
    this.signing += texts.length;
    try {
      await this._send(texts, only);
    } finally {
      this.signing -= texts.length;
      this._changed();
    }
  }

  /** Messages the friend has not acknowledged: again, only where a relay lacks them. */
  republish(texts) {
    if (!texts || !texts.length) return;
    trace('republish', texts.length);
    this._counted(texts, (url, text) => !(this.eosed.has(url) && this._held(url).has(text)));
  }

  _slot(url) {
    if (!this.out.has(url)) this.out.set(url, { queue: [], inflight: new Map(), backoff: 0, until: 0, timer: null });
    return this.out.get(url);
  }

  /** Send what each relay may take now: at most WINDOW unconfirmed at once, none while it backs off. */
  _pump() {
    if (this.left || !this.pool) return;
    // (a relay that is connected but never says it sent all it holds does not hold the page up)
    if (!this.opened && !this._openTimer && this.pool.openCount() > 0) this._openTimer = setTimeout(() => this._open(), 3 * OPEN_WAIT_MS);
    for (const [url, slot] of this.out) {
      if (!this.pool.isOpen(url)) {
        // (a relay that went away: what it did not confirm goes again when it is back)
        for (const ev of slot.inflight.values()) slot.queue.unshift(ev);
        slot.inflight.clear();
        continue;
      }
      const wait = slot.until - Date.now();
      if (wait > 0) {
        if (!slot.timer) slot.timer = setTimeout(() => { slot.timer = null; this._pump(); }, wait);
        continue;
      }
      while (slot.queue.length && slot.inflight.size < WINDOW) {
        const ev = slot.queue.shift();
        slot.inflight.set(ev.id, ev);
        this.pool.sendEvent(ev, [url]);
      }
    }
    this._changed();
  }

  _ok(url, id, ok, message) {
    const slot = this.out.get(url);
    if (!slot || !slot.inflight.has(id)) return;
    const ev = slot.inflight.get(id);
    slot.inflight.delete(id);
    trace('ok:', id.slice(0, 8), url, ok, message);
    if (ok || /^duplicate:/.test(message)) {
      slot.backoff = 0;
      this._confirmed(url, id);
      const text = this.mine.get(id);
      if (text !== undefined) this._held(url).add(text);
    } else if (/^(rate-limited|pow):/.test(message) || !message) {
      // Too fast for this relay: it gets the event again after a back-off (doubling, capped).
      slot.queue.unshift(ev);
      slot.until = Date.now() + BACKOFF_MS[Math.min(slot.backoff, BACKOFF_MS.length - 1)];
      slot.backoff += 1;
    } else {
      this._confirmed(url, id, false); // (any other refusal -- blocked, invalid, too large -- is final for that relay: the others hold it)
    }
    this._pump();
  }

  leave() {
    if (this.left) return;
    this.left = true;
    this.state = 'left';
    clearTimeout(this._batchTimer);
    clearTimeout(this._openTimer);
    for (const slot of this.out.values()) clearTimeout(slot.timer);
    if (this.pool) this.pool.close();
  }
}
