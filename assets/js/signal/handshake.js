// Hidden Chess -- who the friend at the other end of a room is (signal/room.js), proved and never
// given away.
//
// Anyone who holds the room secret can join the room: an invite link that leaked is enough. Each
// page keeps a random token per game, and its friend's, once they have met. A token never goes
// out in a hello: the two pages prove to each other that they know the pair's key instead,
//   K = SHA-256("hiddenchess pair|" + room secret + "|" + host token + "|" + guest token),
// as an HMAC over a fresh nonce of the other page, bound to this very WebRTC connection (the DTLS
// certificate fingerprints of both ends, from the session descriptions). A third device learns
// nothing it could replay: a proof answers one nonce, on one connection, and a device that relays
// two connections (in the middle) has fingerprints of its own on each.
//
// Messages ("hcctl" action, JSON, checked by room.js first):
//   hello   {k, role, n}          on every join of a peer: "prove it over n"
//   proof   {k, role, n, mac}     HMAC(K, "hiddenchess proof|" role | their n | own n | own fp | their fp)
//   claim   {k, token}            a guest that has never met its host, to a page saying it is the host
//   welcome {k, token, n}         the host's answer to the first claim (to that device alone)
//   taken   {k}                   the host's answer to a claim of another token
// The first meeting has to trust someone: the first device that claims the game with the link is
// its guest (as the first to open an invite always was). The host answers the same token's claim
// again only until the guest has proved itself once (`confirmed`, saved with the room): a guest
// that reloaded before the welcome reached it gets it again, a stranger who overheard the first
// claim does not.

// A peer gets at most BURST handshake messages looked at, then one more every REFILL_MS (an
// honest page sends a handful per connection): a flood costs this page no more than that.
const BURST = 20;
const REFILL_MS = 2000;
const MAX_PEERS = 64; // peer ids remembered (each one took a WebRTC connection to make)
const HEX32 = /^[0-9a-f]{32}$/;
const MAC = /^[0-9a-f]{64}$/;
const other = role => (role === 'host' ? 'guest' : 'host');

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), b => b.toString(16).padStart(2, '0')).join('');
}

export function nonce() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The HMAC key of a pair (host and guest tokens, in that order, under the room's secret). */
export async function pairKey(secret, hostToken, guestToken) {
  const raw = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`hiddenchess pair|${secret}|${hostToken}|${guestToken}`));
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

export async function proofMac(key, { role, theirNonce, ownNonce, ownFp, theirFp }) {
  const text = `hiddenchess proof|${role}|${theirNonce}|${ownNonce}|${ownFp}|${theirFp}`;
  return hex(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text)));
}

/** The DTLS certificate fingerprint a session description announces ('' when it has none). */
export function sdpFingerprint(description) {
  const sdp = description && typeof description.sdp === 'string' ? description.sdp : '';
  const m = /^a=fingerprint:(\S+ \S+)/m.exec(sdp);
  return m ? m[1].toLowerCase() : '';
}

/** Both ends' fingerprints of a connection: {own, theirs}. */
export function connectionFingerprints(pc) {
  return { own: sdpFingerprint(pc && pc.localDescription), theirs: sdpFingerprint(pc && pc.remoteDescription) };
}

/** One side of a room's handshake. `link` does the rest: send(message, peerId), bind(peerId),
 * unbind(), bound (the peer id it is bound to), fingerprints(peerId) -> {own, theirs},
 * accepted(token) (remember the friend's token), confirmed() (remember that the guest proved
 * itself), taken() (this invite went to someone else). */
export class Handshake {
  constructor({ secret, role, token, expect = null, confirmed = true, link }) {
    Object.assign(this, { secret, role, token, link });
    this.expect = expect && HEX32.test(expect) ? expect : null;
    this.confirmed = Boolean(this.expect) && confirmed;
    this.key = null;
    this.own = new Map(); // peer id -> the nonce this page asked that peer to prove over
    this.theirs = new Map(); // peer id -> the nonce that peer asked this page to prove over
    this.answered = new Map(); // peer id -> the nonce of theirs this page last proved over
    this.claimed = new Set(); // peer ids this guest claimed the game to
    this.budget = new Map(); // peer id -> {left, at}: see BURST
    this.chain = Promise.resolve();
    if (this.expect) this._keyed();
  }

  _keyed() {
    const [host, guest] = this.role === 'host' ? [this.token, this.expect] : [this.expect, this.token];
    this.key = pairKey(this.secret, host, guest);
  }

  /** Trystero has a connection to `peerId` up (a first one, or one that replaced the last). */
  joined(peerId) {
    this._run(() => {
      if (peerId === this.link.bound) this.link.unbind();
      this._hello(peerId);
    });
  }

  /** A control message `m` (an object with a string `k`) from `peerId`; false when it is not one
   * of the handshake's. Handled one at a time, in the order they came. */
  control(m, peerId) {
    const handler = HANDLERS.get(m.k);
    if (!handler) return false;
    if (this._spend(peerId)) this._run(() => handler.call(this, m, peerId));
    return true;
  }

  _spend(peerId, now = Date.now()) {
    let b = this.budget.get(peerId);
    if (!b) {
      if (this.budget.size >= MAX_PEERS) this._forget();
      b = { left: BURST, at: now };
      this.budget.set(peerId, b);
    }
    const refill = Math.floor((now - b.at) / REFILL_MS);
    if (refill > 0) Object.assign(b, { left: Math.min(BURST, b.left + refill), at: b.at + refill * REFILL_MS });
    if (b.left <= 0) return false;
    b.left -= 1;
    return true;
  }

  /** Drop what is remembered of every peer but the bound one (many ids: strangers). */
  _forget() {
    const keep = this.link.bound;
    for (const map of [this.own, this.theirs, this.answered, this.claimed, this.budget]) {
      for (const id of [...map.keys()]) if (id !== keep) map.delete(id);
    }
  }

  _run(step) {
    this.chain = this.chain.then(step).catch(e => console.warn('Hidden Chess: the room handshake failed:', e));
  }

  _hello(peerId) {
    const n = nonce();
    this.own.set(peerId, n);
    this.link.send({ k: 'hello', role: this.role, n }, peerId);
  }

  async _prove(peerId) {
    const theirNonce = this.theirs.get(peerId);
    if (!this.key || !theirNonce) return;
    if (!this.own.has(peerId)) this.own.set(peerId, nonce());
    const ownNonce = this.own.get(peerId);
    const { own, theirs } = this.link.fingerprints(peerId);
    if (!own || !theirs) return; // (no connection to bind the proof to: the next join asks again)
    const mac = await proofMac(await this.key, { role: this.role, theirNonce, ownNonce, ownFp: own, theirFp: theirs });
    this.answered.set(peerId, theirNonce);
    this.link.send({ k: 'proof', role: this.role, n: ownNonce, mac }, peerId);
  }

  async _onHello(m, peerId) {
    if (m.role !== other(this.role) || !HEX32.test(m.n)) return;
    this.theirs.set(peerId, m.n);
    if (peerId === this.link.bound) {
      // The friend this page is bound to started its side again (its connection was replaced):
      // this side closes too, and asks anew, so that the friend proves itself again to bind.
      this.link.unbind();
      this.own.set(peerId, nonce());
    }
    if (this.key) await this._prove(peerId);
    else if (this.role === 'guest') this._claim(peerId);
    else if (!this.own.has(peerId)) this._hello(peerId); // (a guest's claim answers it)
  }

  _claim(peerId) {
    this.claimed.add(peerId);
    this.link.send({ k: 'claim', token: this.token }, peerId);
  }

  async _onProof(m, peerId) {
    const ownNonce = this.own.get(peerId);
    if (!this.key || m.role !== other(this.role) || !HEX32.test(m.n) || !MAC.test(m.mac) || !ownNonce) return;
    const { own, theirs } = this.link.fingerprints(peerId);
    if (!own || !theirs) return;
    const expected = await proofMac(await this.key, { role: m.role, theirNonce: ownNonce, ownNonce: m.n, ownFp: theirs, theirFp: own });
    if (expected !== m.mac || this.own.get(peerId) !== ownNonce) return; // (not the friend, or an old proof)
    this.theirs.set(peerId, m.n);
    if (this.answered.get(peerId) !== m.n) await this._prove(peerId);
    if (this.role === 'host' && !this.confirmed) {
      this.confirmed = true;
      this.link.confirmed();
    }
    this.link.bind(peerId);
  }

  async _onClaim(m, peerId) {
    if (this.role !== 'host' || typeof m.token !== 'string' || !HEX32.test(m.token) || m.token === this.token) return;
    if (!this.expect) {
      this.expect = m.token;
      this.confirmed = false;
      this._keyed();
      this.link.accepted(m.token);
    } else if (m.token !== this.expect) {
      this.link.send({ k: 'taken' }, peerId);
      return;
    } else if (this.confirmed) {
      return; // (the friend proves itself; a copy of its first claim gets nothing)
    }
    if (!this.own.has(peerId)) this.own.set(peerId, nonce());
    this.link.send({ k: 'welcome', token: this.token, n: this.own.get(peerId) }, peerId);
    this.link.bind(peerId);
  }

  async _onWelcome(m, peerId) {
    if (this.role !== 'guest' || this.expect || !this.claimed.has(peerId)) return;
    if (typeof m.token !== 'string' || !HEX32.test(m.token) || m.token === this.token || !HEX32.test(m.n)) return;
    this.expect = m.token;
    this._keyed();
    this.link.accepted(m.token);
    this.theirs.set(peerId, m.n);
    this.link.bind(peerId);
    await this._prove(peerId); // (the host's page remembers that its guest proved itself)
  }

  _onTaken(m, peerId) {
    if (this.role === 'guest' && !this.expect && this.claimed.has(peerId)) this.link.taken();
  }
}

const HANDLERS = new Map([
  ['hello', Handshake.prototype._onHello],
  ['proof', Handshake.prototype._onProof],
  ['claim', Handshake.prototype._onClaim],
  ['welcome', Handshake.prototype._onWelcome],
  ['taken', Handshake.prototype._onTaken],
]);
