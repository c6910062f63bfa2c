// Hidden Chess -- quick play (issue #13): wait in a lobby on the relays until the pairing rule
// (assets/js/peer/lobby.js) gives an opponent, then derive the game's room. No DOM: the page's
// part is assets/js/quick-ui.js; bench/matchmaking.mjs runs hundreds of these in Node.
//
// const qp = new QuickPlay({variant, clock, relays, onchange, onpaired});  await qp.start();
//   onchange(qp) whenever the lobby or the relays change (qp.others(), qp.relayState());
//   onpaired(qp, pair) once paired: pair = lobby.pair + {secret} (the room secret both derive from
//   their ECDH keys and the coin-flip values: the relays never see it); qp.requeue() if the game
//   could not connect, qp.cancel() to stop (tells the others).
// The lobby topic is a hash of the variant and the clock, so only equal choices meet; directed
// messages go to a hash of the addressee's id (each player subscribes to its own).

import { Lobby, digest } from '../peer/lobby.js';
import { parseLimited } from '../peer/safejson.js';
import { b64uDecode, b64uEncode } from '../peer/bytes.js';
import { RelayPool } from './nostr.js';

const TICK_MS = 250;
const ECDH = { name: 'ECDH', namedCurve: 'P-256' };

export const lobbyTopic = (variant, clock) => digest(`hiddenchess-lobby-v1|${variant}|${clock || 'none'}`);
export const playerTopic = id => digest(`hiddenchess-player-v1|${id}`);

function randomHex(bytes) {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), b => b.toString(16).padStart(2, '0')).join('');
}

export class QuickPlay {
  constructor({ variant, clock, relays, onchange = null, onpaired = null, WebSocketImpl = globalThis.WebSocket, now = () => Date.now() }) {
    this.variant = variant;
    this.clock = clock;
    this.relays = relays;
    this.onchange = onchange;
    this.onpaired = onpaired;
    this.now = now;
    this.topic = lobbyTopic(variant, clock);
    this.id = randomHex(16);
    this.pool = new RelayPool(relays, {
      WebSocketImpl,
      onevent: (topic, content) => this._event(content),
      onstate: () => this._changed(),
    });
    this.lobby = null;
    this.timer = null;
    this.reported = false;
    this.startedAt = now();
    this.published = 0; // lobby messages this player published
  }

  async start() {
    this.keys = await crypto.subtle.generateKey(ECDH, false, ['deriveBits']);
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', this.keys.publicKey));
    this.lobby = new Lobby({ id: this.id, key: b64uEncode(raw), random: randomHex, now: this.now() });
    await this.pool.start();
    this.pool.subscribe(this.topic);
    this.pool.subscribe(playerTopic(this.id));
    this.timer = setInterval(() => this._tick(), TICK_MS);
    this._tick();
  }

  others() {
    return this.lobby ? this.lobby.others() : 0;
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
      this.pool.publish(m.to ? playerTopic(m.to) : this.topic, JSON.stringify(m));
    }
  }

  _tick() {
    if (!this.lobby) return;
    const before = this.lobby.others();
    this._send(this.lobby.tick(this.now()));
    if (before !== this.lobby.others()) this._changed();
  }

  _event(content) {
    if (!this.lobby) return;
    let m;
    try {
      m = parseLimited(content, { maxChars: 1024, maxDepth: 2 });
    } catch (e) {
      return;
    }
    const before = this.lobby.others();
    this._send(this.lobby.handle(m, this.now()));
    if (this.lobby.pair && !this.reported) {
      this.reported = true;
      this._paired(this.lobby.pair);
    } else if (before !== this.lobby.others()) {
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

  /** The pairing's game did not connect: back to the queue. */
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
