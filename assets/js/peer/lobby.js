// Hidden Chess -- quick-play pairing (issue #13): pure logic, no network, no DOM, no clock of its
// own (every call takes `now` in ms; randomness comes from the `random(bytes) -> hex` given).
// assets/js/signal/quick.js carries its messages over Nostr relays; bench/matchmaking.mjs and
// tests/browser/test_peer_lobby.py drive it directly.
//
// Everyone waiting for the same game (variant + clock: one lobby topic) publishes `seek` every few
// seconds with a random id `p` (32 hex) and an ECDH public key `k`. The pairing rule nobody
// controls: sort the ids of the seekers one sees; the 1st and 2nd form a pair, the 3rd and 4th...
// The lower id of a pair proposes, the higher one accepts if it is free and says `busy` otherwise;
// views that differ for a moment only cost a retry. Exactly once: a player is in at most one
// pairing at a time (proposing, accepting or paired), a proposal is accepted only by a free
// player, and the pairing is final only with the three messages propose -> accept -> confirm;
// a broken one times out and both sides seek again (the failed opponent is skipped a while).
//
// Colours by a joint coin flip: the proposer commits to a random `s` (propose carries c =
// sha256(s)), the acceptor answers a random `r` (accept), the proposer reveals s (confirm) and the
// acceptor checks it. White = the proposer when the first byte of sha256(s|r) is even. Neither side
// can choose: s is fixed before r is known, and r is chosen without knowing s.
//
// Messages (objects; `p` is the sender): {t:'seek', p, k[, to]}, {t:'gone', p},
// {t:'propose', p, to, c, k}, {t:'accept', p, to, r, k}, {t:'confirm', p, to, s}, {t:'busy', p, to}.
// Directed ones (with `to`) go to the addressee only. Lobby.handle(msg, now) and tick(now) return
// the messages to send; `lobby.pair` is set once paired: {opponent, role: 'host' (proposer) |
// 'guest', white: bool (this side plays White), s, r, key (the opponent's k)}.

import { hex, sha256, utf8 } from './bytes.js';

export const SEEK_EVERY_MS = 4000; // a seek is published this often
export const SEEK_TTL_MS = 10000; // a seeker not heard from for this long is gone
export const ANSWER_MS = 5000; // a proposal or an acceptance waits this long for its answer
export const SKIP_MS = 8000; // after a failed or refused pairing, that opponent is skipped this long
const ID = /^[0-9a-f]{32}$/;
const KEY = /^[A-Za-z0-9_-]{40,120}$/;

export const digest = text => hex(sha256(utf8(text)));

/** The colour rule: true when the proposer plays White. */
export function proposerWhite(s, r) {
  return parseInt(digest(`${s}|${r}`).slice(0, 2), 16) % 2 === 0;
}

/** Whether `m` is a well-formed lobby message (anything else is ignored). */
export function validMessage(m) {
  if (!m || typeof m !== 'object' || Array.isArray(m) || !ID.test(m.p)) return false;
  switch (m.t) {
    case 'seek':
      return KEY.test(m.k) && (m.to === undefined || ID.test(m.to));
    case 'gone':
      return true;
    case 'propose':
      return ID.test(m.to) && /^[0-9a-f]{64}$/.test(m.c) && KEY.test(m.k);
    case 'accept':
      return ID.test(m.to) && ID.test(m.r) && KEY.test(m.k);
    case 'confirm':
      return ID.test(m.to) && ID.test(m.s);
    case 'busy':
      return ID.test(m.to);
    default:
      return false;
  }
}

export class Lobby {
  /** id: this player's random id (32 hex); key: its ECDH public key (base64url); random(n) -> 2n hex. */
  constructor({ id, key, random, now }) {
    if (!ID.test(id)) throw new Error('a lobby id is 32 hex digits');
    this.id = id;
    this.key = key;
    this.random = random;
    this.seekers = new Map(); // id -> {at, k}
    this.skip = new Map(); // id -> until (ms)
    this.state = 'seeking'; // 'seeking' | 'proposing' | 'accepting' | 'paired' | 'left'
    this.with = null; // the opponent of the pairing in progress
    this.since = now;
    this.lastSeek = -Infinity;
    this.s = null;
    this.r = null;
    this.pair = null;
    this.pairings = 0; // pairings completed (1 at most, unless requeued)
  }

  /** How many others are waiting in this lobby (as far as this player has heard). */
  others() {
    return this.seekers.size;
  }

  _free(id, now) {
    return id !== this.id && !(this.skip.get(id) > now);
  }

  _back(now, skipped) {
    if (skipped) this.skip.set(skipped, now + SKIP_MS);
    this.state = 'seeking';
    this.with = null;
    this.s = this.r = null;
    this.since = now;
  }

  /** The partner the rule gives this player now, and whether this player proposes. */
  partner(now) {
    const ids = [this.id, ...[...this.seekers.keys()].filter(id => this._free(id, now))].sort();
    const i = ids.indexOf(this.id);
    const j = i % 2 === 0 ? i + 1 : i - 1;
    return j < ids.length ? { id: ids[j], propose: i % 2 === 0 } : null;
  }

  /** Time passes: seek again, expire seekers and stale pairings, propose. Returns messages. */
  tick(now) {
    const out = [];
    if (this.state === 'paired' || this.state === 'left') return out;
    for (const [id, s] of this.seekers) if (now - s.at > SEEK_TTL_MS) this.seekers.delete(id);
    for (const [id, until] of this.skip) if (until <= now) this.skip.delete(id);
    if ((this.state === 'proposing' || this.state === 'accepting') && now - this.since > ANSWER_MS) this._back(now, this.with);
    if (now - this.lastSeek >= SEEK_EVERY_MS) {
      this.lastSeek = now;
      out.push({ t: 'seek', p: this.id, k: this.key });
    }
    if (this.state === 'seeking') {
      const mate = this.partner(now);
      if (mate && mate.propose) {
        this.state = 'proposing';
        this.with = mate.id;
        this.since = now;
        this.s = this.random(16);
        out.push({ t: 'propose', p: this.id, to: mate.id, c: digest(this.s), k: this.key });
      }
    }
    return out;
  }

  /** A message from the network (any sender: checked here). Returns the messages to send. */
  handle(m, now) {
    if (!validMessage(m) || m.p === this.id || (m.to && m.to !== this.id)) return [];
    if (m.t === 'seek') {
      const fresh = !this.seekers.has(m.p);
      this.seekers.set(m.p, { at: now, k: m.k });
      // A newcomer does not know the players already waiting until their next seek: the one the
      // rule makes its partner, if the newcomer is to propose, tells it at once (one message).
      if (fresh && !m.to && this.state === 'seeking') {
        const mate = this.partner(now);
        if (mate && mate.id === m.p && !mate.propose) return [{ t: 'seek', p: this.id, k: this.key, to: m.p }];
      }
      return [];
    }
    if (m.t === 'gone') {
      this.seekers.delete(m.p);
      if (m.p === this.with && (this.state === 'proposing' || this.state === 'accepting')) this._back(now, null);
      return [];
    }
    if (this.state === 'left') return [];
    if (m.t === 'propose') return this._proposed(m, now);
    if (m.t === 'accept') return this._accepted(m, now);
    if (m.t === 'confirm') return this._confirmed(m, now);
    if (m.t === 'busy' && this.state === 'proposing' && m.p === this.with) this._back(now, m.p);
    return [];
  }

  _proposed(m, now) {
    // Only from a lower id (so proposals never cross), only while free.
    if (this.state !== 'seeking' || m.p > this.id || !this._free(m.p, now)) {
      return this.state === 'paired' && this.pair.opponent === m.p ? [] : [{ t: 'busy', p: this.id, to: m.p }];
    }
    this.state = 'accepting';
    this.with = m.p;
    this.since = now;
    this.c = m.c;
    this.theirKey = m.k;
    this.r = this.random(16);
    return [{ t: 'accept', p: this.id, to: m.p, r: this.r, k: this.key }];
  }

  _accepted(m, now) {
    if (this.state !== 'proposing' || m.p !== this.with) return [];
    const s = this.s;
    this._paired('host', m.p, s, m.r, m.k, now);
    return [{ t: 'confirm', p: this.id, to: m.p, s }];
  }

  _confirmed(m, now) {
    if (this.state !== 'accepting' || m.p !== this.with) return [];
    if (digest(m.s) !== this.c) {
      this._back(now, m.p); // a reveal that does not match its commitment: not a fair flip
      return [];
    }
    this._paired('guest', m.p, m.s, this.r, this.theirKey, now);
    return [];
  }

  _paired(role, opponent, s, r, key, now) {
    const white = proposerWhite(s, r) === (role === 'host');
    this.state = 'paired';
    this.with = opponent;
    this.pair = { opponent, role, white, s, r, key, at: now };
    this.pairings += 1;
    this.seekers.delete(opponent);
  }

  /** The pairing did not lead to a game (the connection failed): seek again, skipping that opponent a while. */
  requeue(now) {
    const failed = this.pair ? this.pair.opponent : this.with;
    this.pair = null;
    this._back(now, failed);
    this.lastSeek = -Infinity;
  }

  /** Stop (cancel, or the game started): tells the others. */
  leave() {
    this.state = 'left';
    return [{ t: 'gone', p: this.id }];
  }
}
