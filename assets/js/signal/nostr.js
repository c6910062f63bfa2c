// Hidden Chess -- a small Nostr client for the quick-play lobby (issue #13): publishes signed
// ephemeral events (kind EVENT_KIND, in the 20000-29999 range that relays pass on and never store)
// tagged with a topic ["x", topic], and subscribes to topics on every relay of the list. Runs in
// the page and in Node (bench/matchmaking.mjs): the WebSocket class can be given.
// Incoming frames are bounded (length before JSON.parse, depth, numbers) and events are
// de-duplicated across relays. The signatures use @noble/secp256k1 (vendored with Trystero).

import { checkText } from '../peer/safejson.js';
import { VENDOR } from '../vendor.js';

export const EVENT_KIND = 22913;
const NOBLE_URL = new URL('noble/secp256k1.js', VENDOR).href;
const MAX_FRAME_CHARS = 16 * 1024;
const RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];
const SEEN_MAX = 4000;
const MAX_PENDING = 20; // events kept for a relay that is not connected (yet)

const hexOf = bytes => Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');

async function sha256bytes(text) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

export class RelayPool {
  /** urls: relay addresses; onevent(topic, content) for each new event of a subscribed topic. */
  constructor(urls, { WebSocketImpl = globalThis.WebSocket, onevent = null, onstate = null } = {}) {
    this.urls = [...urls];
    this.WS = WebSocketImpl;
    this.onevent = onevent;
    this.onstate = onstate;
    this.sockets = new Map(); // url -> {ws, retries, timer}
    this.topics = new Set();
    this.subId = hexOf(crypto.getRandomValues(new Uint8Array(8)));
    this.seen = new Set();
    this.sent = 0; // frames sent to relays
    this.received = 0; // frames received from relays
    this.closed = false;
    this.started = Date.now();
  }

  async start() {
    const noble = await import(NOBLE_URL);
    this.schnorr = noble.schnorr;
    const { secretKey, publicKey } = this.schnorr.keygen();
    this.secretKey = secretKey;
    this.pubkey = hexOf(publicKey);
    for (const url of this.urls) this._open(url);
  }

  openCount() {
    let n = 0;
    for (const s of this.sockets.values()) if (s.ws && s.ws.readyState === 1) n++;
    return n;
  }

  _open(url) {
    if (this.closed) return;
    const slot = this.sockets.get(url) || { ws: null, retries: 0, timer: null, pending: [] };
    this.sockets.set(url, slot);
    let ws;
    try {
      ws = new this.WS(url);
    } catch (e) {
      this._retry(url, slot);
      return;
    }
    slot.ws = ws;
    ws.onopen = () => {
      slot.retries = 0;
      this._req(ws);
      // Events published before the socket opened (the first seek) go now.
      for (const frame of slot.pending.splice(0)) this._send(ws, frame);
      if (this.onstate) this.onstate(this);
    };
    ws.onmessage = e => this._frame(String(e.data));
    ws.onclose = () => {
      if (slot.ws !== ws) return;
      slot.ws = null;
      if (this.onstate) this.onstate(this);
      this._retry(url, slot);
    };
    ws.onerror = () => {};
  }

  _retry(url, slot) {
    if (this.closed) return;
    const ms = RETRY_MS[Math.min(slot.retries, RETRY_MS.length - 1)];
    slot.retries += 1;
    slot.timer = setTimeout(() => this._open(url), ms);
  }

  _send(ws, frame) {
    if (ws && ws.readyState === 1) {
      ws.send(frame);
      this.sent += 1;
    }
  }

  _req(ws) {
    if (!this.topics.size) return;
    const filter = { kinds: [EVENT_KIND], '#x': [...this.topics], since: Math.floor(Date.now() / 1000) - 5 };
    this._send(ws, JSON.stringify(['REQ', this.subId, filter]));
  }

  subscribe(topic) {
    this.topics.add(topic);
    for (const s of this.sockets.values()) this._req(s.ws);
  }

  _frame(text) {
    this.received += 1;
    let msg;
    try {
      checkText(text, { maxChars: MAX_FRAME_CHARS, maxDepth: 6 });
      msg = JSON.parse(text);
    } catch (e) {
      return; // too big, too deep or not JSON: ignored
    }
    if (!Array.isArray(msg) || msg[0] !== 'EVENT' || msg[1] !== this.subId) return;
    const ev = msg[2];
    if (!ev || typeof ev !== 'object' || typeof ev.id !== 'string' || typeof ev.content !== 'string') return;
    if (this.seen.has(ev.id)) return;
    this.seen.add(ev.id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value);
    const tag = Array.isArray(ev.tags) ? ev.tags.find(t => Array.isArray(t) && t[0] === 'x') : null;
    if (!tag || !this.topics.has(tag[1]) || ev.kind !== EVENT_KIND) return;
    if (this.onevent) this.onevent(tag[1], ev.content);
  }

  /** Sign and send an event with `content` (a string) on `topic` to every open relay. */
  async publish(topic, content) {
    if (this.closed) return;
    const ev = { pubkey: this.pubkey, created_at: Math.floor(Date.now() / 1000), kind: EVENT_KIND, tags: [['x', topic]], content };
    const id = await sha256bytes(JSON.stringify([0, ev.pubkey, ev.created_at, ev.kind, ev.tags, ev.content]));
    ev.id = hexOf(id);
    ev.sig = hexOf(await this.schnorr.signAsync(id, this.secretKey));
    const frame = JSON.stringify(['EVENT', ev]);
    for (const s of this.sockets.values()) {
      if (s.ws && s.ws.readyState === 1) this._send(s.ws, frame);
      else if (s.pending.length < MAX_PENDING) s.pending.push(frame);
    }
  }

  close() {
    this.closed = true;
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
