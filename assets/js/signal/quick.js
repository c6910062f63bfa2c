// Hidden Chess -- quick play (issues #13, #24): wait in a lobby on the relays until the pairing
// rule (assets/js/peer/lobby.js) gives an opponent, then derive the game's room. No DOM: the
// page's part is assets/js/quick-ui.js; bench/matchmaking.mjs runs hundreds of these in Node.
//
// const qp = new QuickPlay({variant, clock, relays, onchange, onpaired});  await qp.start();
//   onchange(qp) whenever the lobby or the relays change (qp.others(), qp.relayState());
//   onpaired(qp, pair) once paired: pair = lobby.pair + {secret} (the room secret both derive from
//   their ECDH keys and the coin-flip values: the relays never see it); qp.requeue() if the game
//   could not connect (that opponent is never tried again while the page is open), qp.cancel()
//   to stop (tells the others).
// The lobby topic is a hash of the variant and the clock, so only equal choices meet; directed
// messages go to a hash of the addressee's key (each player subscribes to its own).
//
// Every lobby message is a Nostr event signed by the player's key, and that key IS the player's
// lobby id: the sender of a message is the key that signed it (a message in another key's name
// fails its signature check). A seek carries a proof of work (SEEK_POW_BITS, NIP-13) and a
// proposal carries its sender's latest seek as its ticket, so only proven seekers count and only
// proven seekers can propose. Which events get their signature checked is the lobby's choice
// (Lobby.relevant): junk costs one parse, not a signature check; a seek costs a hash (its proof
// of work is checked, see _open); a proposal this page can only answer busy is answered unchecked
// (the answer goes to the key it names, which ignores a busy for a commitment it never made).
// The directed messages of one turn (a round of proposals, the cancels of a pairing, the busy
// answers to a burst of proposals) go as one signed event, a batch (peer/batch.js), and an event
// is checked at most once, however many of its messages are for this page.

import { Lobby, SIGNED, digest } from '../peer/lobby.js';
import { MAX_UNPACK_CHARS, pack, unpack } from '../peer/batch.js';
import { parseLimited } from '../peer/safejson.js';
import { b64uDecode, b64uEncode } from '../peer/bytes.js';
import { eventId, powBits } from '../peer/pow.js';
import { EVENT_KIND, RelayPool, wellFormed } from './nostr.js';

const TICK_MS = 250;
const ECDH = { name: 'ECDH', namedCurve: 'P-256' };
// The proof of work of a seek: 2^14 tries on average. pow.js's miner makes about 600,000 a second
// in the test machine's Chromium (median 36 ms a seek); it made 80,000 until 2026-12-06.
export const SEEK_POW_BITS = 14;
const MAX_CONTENT = 4096; // a seek or a gone (a batch: MAX_UNPACK_CHARS)
const MAX_AGE_S = 300; // a ticket older (or newer) than this by the receiver's clock is refused
const MAX_SEEK_IDS = 4000; // seeks remembered as taken
// The keys that failed to pair with this page (silent, accepted then gone, game never connected):
// kept while the page is open, across its quick plays.
export const FAILED = new Set();
// ... and when each may be tried again (peer/lobby.js RETRY_AFTER_MS).
export const RETRY = new Map();

// (v3: directed messages travel in batches, peer/batch.js; pages of v2 do not meet these)
export const lobbyTopic = (variant, clock) => digest(`hiddenchess-lobby-v3|${variant}|${clock || 'none'}`);
export const playerTopic = id => digest(`hiddenchess-player-v3|${id}`);

function randomHex(bytes) {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), b => b.toString(16).padStart(2, '0')).join('');
}

export class QuickPlay {
  constructor({
    variant, clock, relays, onchange = null, onpaired = null, WebSocketImpl = globalThis.WebSocket, now = () => Date.now(),
    powBits: bits = SEEK_POW_BITS, failed = FAILED, retry = RETRY,
  }) {
    this.variant = variant;
    this.clock = clock;
    this.relays = relays;
    this.onchange = onchange;
    this.onpaired = onpaired;
    this.now = now;
    this.bits = bits;
    this.failed = failed;
    this.retry = retry;
    this.topic = lobbyTopic(variant, clock);
    this.pool = new RelayPool(relays, {
      WebSocketImpl,
      onevent: (topic, ev) => this._event(topic, ev),
      onstate: () => this._changed(),
      onok: (url, id, ok, message) => {
        if (!ok && message.startsWith('rate-limited')) this.limited += 1;
      },
    });
    this.lobby = null;
    this.seekIds = new Set(); // seeks taken (by id; bounded)
    this.timer = null;
    this.reported = false;
    this.startedAt = now();
    this.published = 0; // lobby messages this player published
    this.events = 0; // signed events they went in (directed ones in batches)
    this.outbox = []; // directed messages of this turn, sent together (_flush)
    this.flushing = null; // a timer (busy answers only)
    this.soon = false; // a microtask
    this.rejected = 0; // events refused (bad signature, proof of work, ticket, shape)
    this.checks = {}; // signature checks by the message that needed them (the bench's figures)
    this.limited = 0; // events a relay refused as over its rate limit
    this.ticket = null; // this player's latest proven seek (sent with each proposal)
    this.mining = false;
    this.powMs = []; // how long each proof of work took
    this.echo = null; // {id, at}: this player's latest seek, until the relays bring it back
    this.echoes = 0; // seeks that came back (each one measured the lag)
  }

  async start() {
    this.keys = await crypto.subtle.generateKey(ECDH, false, ['deriveBits']);
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', this.keys.publicKey));
    await this.pool.start();
    this.id = this.pool.pubkey;
    this.lobby = new Lobby({ id: this.id, key: b64uEncode(raw), random: randomHex, now: this.now(), failed: this.failed, retry: this.retry });
    this.lobby.canPropose = false; // until its first seek is proven
    this.pool.subscribe(this.topic);
    this.pool.subscribe(playerTopic(this.id));
    this.timer = setInterval(() => this._tick(), TICK_MS);
    this._tick();
  }

  others() {
    return this.lobby ? this.lobby.others(this.now()) : 0;
  }

  relayState() {
    return { open: this.pool.openCount(), total: this.relays.length };
  }

  _changed() {
    if (this.onchange) this.onchange(this);
  }

  _send(msgs) {
    for (const m of msgs) {
      this.published += 1;
      if (m.t === 'seek') {
        this._seek(m.l ? { t: 'seek', k: m.k, l: m.l } : { t: 'seek', k: m.k });
      } else if (m.t === 'gone') {
        this.events += 1;
        this.pool.publish(this.topic, JSON.stringify({ t: 'gone' }));
      } else {
        this.outbox.push(m);
      }
    }
    // The directed messages of this turn go as one batch, signed once, at the end of it (a
    // microtask: no timer, which a background tab would hold up to a second, while the other side
    // waits on a deadline of 2-4 s). Busy answers alone wait for the next timer, so that those to a
    // burst of proposals (one event each) go together.
    if (!this.outbox.length) return;
    if (this.outbox.some(m => m.t !== 'busy')) {
      if (!this.soon) {
        this.soon = true;
        queueMicrotask(() => this._flush());
      }
    } else if (!this.flushing) {
      this.flushing = setTimeout(() => this._flush(), 0);
    }
  }

  _flush() {
    clearTimeout(this.flushing);
    this.flushing = null;
    this.soon = false;
    const msgs = this.outbox.splice(0);
    if (!this.lobby) return;
    for (const b of pack(msgs, { key: this.lobby.key, ticket: this.ticket })) {
      this.events += 1;
      this.pool.publish(b.to.map(playerTopic), b.content);
    }
  }

  async _seek(content) {
    if (this.mining) return;
    this.mining = true;
    const t0 = Date.now();
    try {
      const ev = await this.pool.publish(this.topic, JSON.stringify(content), { pow: this.bits });
      if (ev) {
        this.events += 1;
        this.powMs.push(Date.now() - t0);
        this.ticket = ev;
        this.echo = { id: ev.id, at: this.now() };
        if (this.lobby) this.lobby.canPropose = true;
      }
    } finally {
      this.mining = false;
    }
  }

  _tick() {
    if (!this.lobby) return;
    const before = this.others();
    this._send(this.lobby.tick(this.now()));
    if (before !== this.others()) this._changed();
  }

  /** A proven seek: well formed, this lobby's topic, enough proof of work, recent, its id right
   * (`idChecked`: an event from the pool, whose id the pool has checked already; a proposal's
   * ticket is hashed here). */
  _provenSeek(ev, pubkey, idChecked = false) {
    if (!wellFormed(ev) || ev.pubkey !== pubkey || ev.kind !== EVENT_KIND) return false;
    const tag = ev.tags.find(t => t[0] === 'x');
    if (!tag || tag[1] !== this.topic || powBits(ev) < this.bits) return false;
    if (Math.abs(Math.floor(Date.now() / 1000) - ev.created_at) > MAX_AGE_S) return false;
    return idChecked || eventId(ev) === ev.id;
  }

  async _event(topic, ev) {
    if (!this.lobby) return;
    if (ev.pubkey === this.id) return void this._echoed(ev);
    const open = topic === this.topic;
    let m;
    try {
      m = parseLimited(ev.content, { maxChars: open ? MAX_CONTENT : MAX_UNPACK_CHARS, maxDepth: 5 });
    } catch (e) {
      this.rejected += 1;
      return;
    }
    if (open) return this._open(ev, m);
    // A batch of directed messages (peer/batch.js): refused whole if malformed.
    const batch = unpack(ev, m, this.id, playerTopic);
    if (!batch) return void (this.rejected += 1);
    let signed = false;
    for (const body of batch.mine) {
      if (!this.lobby) return;
      const need = this.lobby.relevant(body);
      if (!need) continue;
      // A proposal carries its sender's proven seek (the signed proposal vouches for it).
      if (body.t === 'propose' && !this._provenSeek(batch.ticket, ev.pubkey)) return void (this.rejected += 1);
      // Costly checks only now, and once for the whole batch: its signature, if one of its
      // messages needs it (the others are answered busy or cancel, or change nothing).
      if (need === SIGNED && !signed) {
        this.checks[body.t] = (this.checks[body.t] || 0) + 1;
        if (!(await this.pool.verify(ev))) return void (this.rejected += 1);
        signed = true;
      }
      this._handle(body, signed);
    }
  }

  /** One of this player's own events, back from a relay: the round trip of its latest seek is the
   * lobby's lag (how late the others' answers may come: a congested relay, a busy device). Only
   * the seek just sent counts, so another's copy of an old one measures nothing. */
  _echoed(ev) {
    if (!this.echo || ev.id !== this.echo.id) return;
    this.lobby.lag = this.now() - this.echo.at;
    this.echo = null;
    this.echoes += 1;
  }

  /** A seek or a gone, on the lobby's topic. A seek needs no signature: its proof of work hashes
   * its public key, so the work was done for that key and no other, and a seek nobody signed can
   * only be a seeker that never answers (like a silent one, and as costly). A gone is checked
   * against the key that signed it. */
  async _open(ev, m) {
    if (!m || typeof m !== 'object' || Array.isArray(m) || (m.t !== 'seek' && m.t !== 'gone')) return;
    const body = { ...m, p: ev.pubkey }; // the sender is the signer, whatever the content says
    const need = this.lobby.relevant(body);
    if (!need) return;
    if (m.t === 'seek') {
      if (!this._provenSeek(ev, ev.pubkey, true)) return void (this.rejected += 1);
      // A seek is taken once. It is never signed, so a relay that passes it again with its
      // signature changed (the pool then sees a new copy) must not keep a seeker that left alive.
      if (this.seekIds.has(ev.id)) return;
      this.seekIds.add(ev.id);
      if (this.seekIds.size > MAX_SEEK_IDS) this.seekIds.delete(this.seekIds.values().next().value);
    } else {
      this.checks.gone = (this.checks.gone || 0) + 1;
      if (!(await this.pool.verify(ev))) return void (this.rejected += 1);
    }
    if (this.lobby) this._handle(body, m.t === 'gone');
  }

  _handle(body, signed) {
    const before = this.others();
    this._send(this.lobby.handle(body, this.now(), signed));
    if (this.lobby.pair && !this.reported) {
      this.reported = true;
      this._paired(this.lobby.pair);
    } else if (before !== this.others()) {
      this._changed();
    }
  }

  async _paired(pair) {
    let secret;
    try {
      const theirs = await crypto.subtle.importKey('raw', b64uDecode(pair.key), ECDH, false, []);
      const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: 'ECDH', public: theirs }, this.keys.privateKey, 256));
      const shared = Array.from(bits, b => b.toString(16).padStart(2, '0')).join('');
      secret = digest(`hiddenchess-quick-room|${shared}|${pair.s}|${pair.r}`).slice(0, 32);
    } catch (e) {
      // The opponent's key is not a P-256 point: no game with it.
      this.requeue();
      return;
    }
    if (this.onpaired) this.onpaired(this, Object.assign({}, pair, { secret }));
  }

  /** A stranger this page was paired with before, in a game that did not start (aborted, or
   * left before the first move): left alone as one whose game never connected (its back-off). */
  giveUp(id) {
    if (this.lobby && typeof id === 'string') this.lobby._fail(id, this.now());
  }

  /** The pairing's game did not connect: back to the queue (that opponent is never tried again). */
  requeue() {
    this.reported = false;
    this.lobby.requeue(this.now());
    this._changed();
  }

  /** Stop waiting (cancel, or the game started). */
  cancel() {
    clearInterval(this.timer);
    this.timer = null;
    if (this.lobby && this.lobby.state !== 'left') this._send(this.lobby.leave());
    // Let the "gone" reach the relays before closing.
    setTimeout(() => this.pool.close(), 300);
  }
}
