// Hidden Chess -- quick-play pairing (issues #13, #24): pure logic, no network, no DOM, no clock of
// its own (every call takes `now` in ms; randomness comes from the `random(bytes) -> hex` given).
// assets/js/signal/quick.js carries its messages over Nostr relays (signed events: `p`, the sender,
// is the Nostr public key that signed the event, set by the carrier, never read from the content;
// the directed messages of one turn go as one event, peer/batch.js); bench/matchmaking.mjs and
// tests/browser/test_peer_lobby.py drive it directly. Which messages need their signature checked
// before they are handled is relevant()'s answer (SIGNED; OPEN ones can only be answered busy or
// cancel, or are proven by work), and handle() ignores one that needed it and was not checked.
//
// Everyone waiting for the same game (variant + clock: one lobby topic) publishes `seek` every few
// seconds with an ECDH public key `k` and a proof of work (NIP-13, checked by the carrier). A page
// proposes to up to MAX_OFFERS seekers at once (ranked by a score of the pair), checks that those
// who accept are still there (check -> ready) and confirms the first that answers; the others are
// cancelled. While it checks, it makes no new proposals and answers others busy (not past
// FRESH_CHECK_MS: strangers that accept and vanish kept two honest pages apart for a minute). A
// seeker that does not answer in time, or that accepts and then goes silent, is remembered as
// failed (`failed`, kept while the page is open) and left alone for RETRY_AFTER_MS, twice as long
// after each further failure (up to MAX_RETRY_MS): a stranger that stalls costs each page one try
// now and then, and two honest pages whose first try timed out still meet (a cheat: never again).
// While a seeker heard seeking in the lobby could pair, a key known only through its proposal
// is neither proposed to nor accepted (_eligible): fresh keys that propose and stall cannot hold
// two honest pages apart.
// A late answer to the last step this page gave up on with a key (`lapsed`) takes that step up
// again, signed and as if in time, when this page is still free to; else it is told cancel or busy
// (a relay's delay spike sent two honest pages into each other's back-off for 30-45 s).
//
//   proposer                               acceptor
//   propose {to, c = sha256(s), k, ticket} ->          (ticket: the proposer's own proven seek)
//                                          <- accept {to, c, r, k}   (or busy {to, c})
//   check {to, c, n}                       ->
//                                          <- ready {to, c, n}
//   confirm {to, c, s}  (the first ready)  ->          (cancel {to, c} to every other offer)
//
// Exactly once: an acceptor holds at most one acceptance (`lock`) and is paired only by the confirm
// that opens the commitment it accepted; a proposer only by a ready to its own check, and then
// cancels everything else. Crossed proposals: the lower key's wins.
// Every step has a deadline (ANSWER_MS); a broken pairing sends both back to seeking. The
// deadlines stretch with `lag`, the delay this page measures on its own messages (its seek's
// round trip through the relays, quick.js): a congested relay or a busy phone makes every answer
// late, and two honest pages must still meet (up to MAX_LAG_MS of it counts). A seek tells the
// seeker's own lag (`l`, ms), so that a fast page's offer waits longer for a slow one (see _within).
//
// Colours by a joint coin flip (lobby-wire.js proposerWhite): the proposer commits to a random `s`
// (c = sha256(s)), the acceptor answers `r`, the confirm reveals s. Neither side can choose.
//
// Lobby.handle(msg, now, signed) and tick(now) return the messages to send (with `to` for directed ones);
// `lobby.pair` is set once paired: {opponent, role: 'host' (proposer) | 'guest', white: bool (this
// side plays White), s, r, key (the opponent's k), at}.

import { ID, digest, proposerWhite, validMessage } from './lobby-wire.js';

export { digest, proposerWhite, validMessage };

export const SEEK_EVERY_MS = 8000; // a seek (with its proof of work) is published this often
export const SEEK_TTL_MS = 20000; // a seeker not heard from for this long is gone
export const ANSWER_MS = 3000; // each step of a pairing waits this long for the other side
export const LOCK_MS = 4000; // an acceptance waits this long for the proposer's next step
export const BUSY_SKIP_MS = 2000; // a seeker that said busy is left alone this long
export const CHECK_MS = 2000; // an acceptor that does not answer the check within this is gone
export const FRESH_CHECK_MS = 1000; // ... and one that has not within this (or two lags) holds off no proposal
export const MAX_OFFERS = 12; // proposals out at once (each holding its place ANSWER_MS and two lags, see tick)
export const MAX_SEEKERS = 400; // seekers remembered at once (the oldest are dropped)
export const RETRY_AFTER_MS = 30000; // a seeker that failed to pair is left alone this long ...
export const MAX_RETRY_MS = 8 * 60000; // ... doubled after each further failure, up to this
export const MAX_LAG_MS = 10000; // the most of this page's measured lag the deadlines allow for
export const MAX_CLAIMED_LAG_MS = 5000; // ... and of the lag another's seek claims (offers only)
export const LATE_MS = 2 * MAX_LAG_MS; // a step that ran out of time may be taken up this long after
// After a pairing that led to no game, for QUIET_MS (plus the lag), a page pairs only with a seeker
// it first heard at least SENIOR_MS before, or one that acted as a page within ACTIVE_MS: it answered
// this page busy, or proposed to it while it was away (a key that pairs and never comes need not).
// While one such is about, only such may pair: the page waits for the honest page away with a ghost.
// While none is, it proposes to every seeker, to learn who answers busy (red team: 89-120+ s to
// pair, 31-35 s with seniors only, 19-20 s now).
export const QUIET_MS = 10000, SENIOR_MS = 15000, ACTIVE_MS = 30000;
// A seeker never heard before missed this page's last seek (relays keep none): seek again sooner.
export const NEWCOMER_SEEK_MS = 4000;
export const BUSY_PATIENCE = 5; // busy answers in a row after which a seeker no longer holds proposal-only keys off
const MAX_REMEMBERED = 1000; // cancelled commitments and answered proposals remembered
// What a relevant message needs before it is handled (Lobby.relevant).
export const OPEN = 'open', SIGNED = 'signed';
/** Forget the oldest entry of `memory` (a Map or a Set: oldest first) once it holds more than `max`. */
const forgetOldest = (memory, max) => memory.size > max && memory.delete(memory.keys().next().value);
/** A lag (ms) as the deadlines count it: a number from 0 to MAX_LAG_MS (anything else: 0). */
export const lagOf = ms => (Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_LAG_MS) : 0);

export class Lobby {
  /** id: this player's Nostr public key (64 hex); key: its ECDH public key (base64url);
   * random(n) -> 2n hex; failed: the keys that failed to pair with this page, and retry: when
   * each may be tried again (id -> {at, n}: ms, failures so far; none: never) -- both kept by the
   * caller while the page is open, shared by its successive lobbies. */
  constructor({ id, key, random, now, failed = new Set(), retry = new Map() }) {
    if (!ID.test(id)) throw new Error('a lobby id is a public key (64 hex digits)');
    this.id = id;
    this.key = key;
    this.random = random;
    this.failed = failed;
    this.retry = retry;
    this.seekers = new Map(); // id -> {at, k}
    this.firstHeard = new Map(); // id -> ms: when this page first heard it seek (kept after it went)
    this.quietUntil = -Infinity; // (after a requeue: only seekers heard long ago, see QUIET_MS)
    this.active = new Map(); // id -> ms: when it last answered this page busy or proposed to it while away (ACTIVE_MS)
    this.skip = new Map(); // id -> until (ms): said busy
    this.toldBusy = new Map(); // id -> until (ms): a key in its back-off, told busy (not again before)
    this.busyRun = new Map(); // id -> busy answers in a row from it (reset by an accept or proposal)
    this.published = new Set(); // ids heard seeking in the lobby (not only through a proposal's ticket)
    this.offers = new Map(); // id -> {c, s, at, stage: 'proposed' | 'checking', n, r, k}
    this.lock = null; // {with, c, r, k, at}: the one proposal this page accepted
    this.withdrawn = new Map(); // id -> true: offers this page cancelled (a late accept is told so)
    this.lapsed = new Map(); // id -> the offer ({...offer, lock: false}) or acceptance ({...lock, lock: true}) that ran out of time
    this.resumed = new Set(); // `${id}|${commitment}` of the steps taken up again (each at most once)
    this.cancelled = new Set(); // `${proposer}|${commitment}` of cancelled proposals (arriving late: ignored)
    this.heard = new Set(); // `${proposer}|${commitment}` of the proposals answered (their cancels change nothing)
    this.state = 'seeking'; // 'seeking' | 'locked' | 'paired' | 'left'
    this.canPropose = true; // false until the carrier has this page's own proven seek (its ticket)
    this.lastSeek = -Infinity;
    this.newcomer = false; // (a seeker never heard before came since this page's last seek)
    this.pair = null;
    this.pairings = 0;
    this.since = now;
    this.lag = 0; // ms: the round trip of this page's own messages lately (set by the carrier)
  }

  /** A step's deadline: `ms`, plus this page's lag for its own way, plus the larger of its lag
   * and the one `id`'s seeks claim for the other way. Only an offer (blocking nothing, and holding
   * its place no longer for it: see tick) believes a claim, up to MAX_CLAIMED_LAG_MS; a held
   * acceptance (which answers everyone else busy) counts this page's own lag alone, so that a
   * stalling proposer cannot hold it longer by claiming to be slow. */
  _within(ms, id = null) {
    const own = lagOf(this.lag);
    const s = id === null ? null : this.seekers.get(id);
    return ms + own + Math.max(own, s ? Math.min(lagOf(s.l), MAX_CLAIMED_LAG_MS) : 0);
  }

  /** How many others are waiting in this lobby: heard seeking in it (a key known only through its
   * proposal is no player waiting there), heard from recently, never failed. */
  others(now = null) {
    let n = 0;
    for (const [id, s] of this.seekers) {
      if (this.published.has(id) && !this.failed.has(id) && (now === null || now - s.at <= SEEK_TTL_MS)) n++;
    }
    return n;
  }

  /** Whether a message from `m.p` could matter now, and what it needs first (checked before its
   * signature is: a flood of messages nobody asked for costs one look each):
   * false: nothing (ignored); OPEN: handled as it is, unsigned (a seek, proven by its proof of
   * work; a proposal this page can only answer busy; a late accept it can only answer cancel:
   * such an answer goes to the key the message names, which ignores it unless it is its own);
   * SIGNED: handled only once its signature by m.p is checked (it changes who this page waits
   * on, holds or pairs with). */
  relevant(m) {
    if (!m || this.state === 'left' || m.p === this.id) return false;
    if (this.failed.has(m.p)) {
      // One in its back-off that proposes is told busy, not ignored: ignored, it would give this
      // page up in turn, and two honest pages whose try timed out could keep proposing to each
      // other while the other's back-off runs, each failure doubling it. A cheat stays ignored.
      if (m.t === 'propose') return m.to === this.id && this.retry.has(m.p) ? OPEN : false;
      return m.to === this.id && this._late(m) ? SIGNED : false;
    }
    if (this.state === 'paired') {
      // Seeks are still heard (should this pairing come to nothing, this page knows who waits).
      if (m.t === 'seek') return OPEN;
      // Answered busy / cancel (a proposal or acceptance that crossed this page's last messages).
      return m.to === this.id && (m.t === 'propose' || (m.t === 'accept' && this.withdrawn.has(m.p))) ? OPEN : false;
    }
    if (m.to !== undefined && m.to !== this.id) return false;
    const o = this.offers.get(m.p);
    const lock = this.lock && this.lock.with === m.p && this.lock.c === m.c;
    switch (m.t) {
      case 'seek':
        return OPEN; // (proven by its proof of work, checked before this)
      case 'propose':
        return this._wouldAccept(m) ? SIGNED : OPEN;
      case 'gone':
        return this.seekers.has(m.p) ? SIGNED : false;
      case 'accept':
        if (o && o.c === m.c) return o.stage === 'proposed' && this.state === 'seeking' ? SIGNED : false;
        return o || this.withdrawn.has(m.p) ? OPEN : false; // (told cancel)
      case 'ready':
        return o && o.c === m.c && o.stage === 'checking' && o.n === m.n && this.state === 'seeking' ? SIGNED : false;
      case 'busy':
        return o && o.c === m.c ? SIGNED : false;
      case 'check':
      case 'confirm':
        return lock ? SIGNED : false;
      case 'cancel':
        // A cancel of what this page holds; or of a proposal not seen yet (remembered: messages
        // overtake each other). One this page answered already changes nothing. (A stranger's
        // cancels of random commitments cost a signature check each: one for one of its own.)
        return lock || !this.heard.has(`${m.p}|${m.c}`) ? SIGNED : false;
      default:
        return false;
    }
  }

  /** Whether this page first heard `id` seek at least SENIOR_MS before `now`. */
  _senior(id, now) {
    const first = this.firstHeard.get(id);
    return first !== undefined && now - first >= SENIOR_MS;
  }

  /** Whether `id` answered this page busy, or proposed to it while it was away, within ACTIVE_MS. */
  _active(id, now) {
    const t = this.active.get(id);
    return t !== undefined && now - t <= ACTIVE_MS;
  }

  _markActive(id, now) {
    this.active.delete(id); // (re-inserted: the oldest first, for forgetOldest)
    this.active.set(id, now);
    forgetOldest(this.active, MAX_REMEMBERED);
  }

  /** Whether `id` is waited for in the quiet time: it acted as a page, sought here, never failed. */
  _awaited(id, now) {
    return this._active(id, now) && this.published.has(id) && !this.failed.has(id);
  }

  /** Whether, in the quiet time, one that is waited for is about (then only such may pair). */
  _awaiting(now) {
    for (const id of this.active.keys()) if (this._awaited(id, now)) return true;
    return false;
  }

  /** Whether a seeker this page heard seek in the lobby (not only through a proposal's ticket)
   * could pair with it soon: heard lately, not failed, and not busy more than BUSY_PATIENCE times
   * in a row (one busy with a stranger is waited for, one that is always busy is not). */
  _seekerWaiting(now) {
    for (const [id, s] of this.seekers) {
      if (now - s.at > SEEK_TTL_MS || this.failed.has(id) || !this.published.has(id)) continue;
      if (!((this.busyRun.get(id) || 0) >= BUSY_PATIENCE)) return true;
    }
    return false;
  }

  /** Whether `id` may pair with this page now. In the quiet time after a requeue, see QUIET_MS.
   * Else a key known only through its proposal (it never seeks in the lobby, as a page does every
   * SEEK_EVERY_MS) may not while one heard seeking could pair instead (`seekerWaiting`, computed
   * once a call): a swarm of such keys that propose, or accept this page's proposal, and stall
   * kept two honest pages, each held by one of them, apart for 75 s. */
  _eligible(id, now, seekerWaiting = undefined) {
    if (now === undefined) return true;
    if (now < this.quietUntil) return this._awaited(id, now) || (this._senior(id, now) && !this._awaiting(now));
    if (this.published.has(id)) return true;
    return !(seekerWaiting === undefined ? this._seekerWaiting(now) : seekerWaiting);
  }

  /** Whether the proposal `m` (relevant) would be accepted now (else it is answered busy, or
   * ignored when it was cancelled already). */
  _wouldAccept(m, now) {
    if (this.cancelled.has(`${m.p}|${m.c}`) || this.state !== 'seeking') return false;
    if (!this._eligible(m.p, now)) return false;
    // (quiet: one that has not acted as a page waits until this page's proposals are answered)
    if (now !== undefined && now < this.quietUntil && !this._active(m.p, now)) {
      for (const [id, o] of this.offers) if (id !== m.p && o.stage === 'proposed') return false;
    }
    if (this.offers.has(m.p) && this.id < m.p) return false; // crossed proposals: mine wins
    return !this._checking(now); // (an accept never followed by a ready holds it off no longer)
  }

  _heard(key) {
    this.heard.add(key);
    forgetOldest(this.heard, MAX_REMEMBERED);
  }

  /** Whether `m`, from a key in its back-off, answers the step with it that ran out of time here. */
  _late(m) {
    const l = this.lapsed.get(m.p);
    if (!l || l.c !== m.c || !this.retry.has(m.p)) return false;
    if (l.lock) return m.t === 'check' || m.t === 'confirm' || m.t === 'cancel';
    return m.t === 'busy' || (l.stage === 'proposed' ? m.t === 'accept' : m.t === 'ready' && m.n === l.n);
  }

  /** Whether an acceptor is being checked (with `now`: whose ready may still come, see FRESH_CHECK_MS). */
  _checking(now = undefined) {
    const fresh = Math.max(FRESH_CHECK_MS, 2 * lagOf(this.lag));
    for (const o of this.offers.values()) if (o.stage === 'checking' && !(now - o.at > fresh)) return true;
    return false;
  }

  /** Whether this page could take up a step now: seeking, holding nothing, checking no one. */
  _free() {
    return this.state === 'seeking' && !this.lock && !this._checking();
  }

  /** A late answer (`_late`, signed): the step goes on as if it had come in time, if this page is
   * free (the key is out of its back-off, which still counts for the next time); else the sender
   * is told that this page has moved on. */
  _lateAnswer(m, now) {
    const l = this.lapsed.get(m.p);
    this.lapsed.delete(m.p);
    if (m.t === 'busy' || m.t === 'cancel' || !this._free()) {
      if (m.t === 'accept' || m.t === 'ready') return [{ t: 'cancel', p: this.id, to: m.p, c: m.c }];
      return m.t === 'check' ? [{ t: 'busy', p: this.id, to: m.p, c: m.c }] : [];
    }
    if (m.t === 'confirm' && digest(m.s) !== l.c) {
      this._fail(m.p); // a reveal that does not match its commitment: not a fair flip
      return [];
    }
    this.failed.delete(m.p);
    this.resumed.add(`${m.p}|${l.c}`); // (taken up once: should it run out again, it stays given up)
    forgetOldest(this.resumed, MAX_REMEMBERED);
    // Taken up once, the step waits as much longer as this answer was late (at most MAX_LAG_MS):
    // the next answer will likely be as late.
    const extra = Math.min(MAX_LAG_MS, Math.max(0, now - l.at));
    if (l.lock) {
      const out = this._cancelAll();
      this.state = 'locked';
      this.lock = { with: m.p, c: l.c, r: l.r, k: l.k, at: now, checked: true, extra };
      return out.concat(m.t === 'confirm' ? this._confirmed(m, now) : [{ t: 'ready', p: this.id, to: m.p, c: m.c, n: m.n }]);
    }
    if (m.t === 'accept') {
      this.offers.set(m.p, { c: l.c, s: l.s, at: now, stage: 'proposed', extra });
      return this._accepted(m, now);
    }
    // A late ready: the acceptor may have moved on since, so it is checked again (a fresh nonce);
    // only a ready in time to that pairs.
    this.offers.set(m.p, { c: l.c, s: l.s, r: l.r, k: l.k, at: now, stage: 'checking', n: this.random(16), extra });
    return [{ t: 'check', p: this.id, to: m.p, c: l.c, n: this.offers.get(m.p).n }];
  }

  /** The step with `id` (an offer, or this page's acceptance) ran out of time. */
  _lapse(id, step, now) {
    this.lapsed.delete(id);
    if (!this.resumed.has(`${id}|${step.c}`)) {
      this.lapsed.set(id, { ...step, lapsedAt: now });
      forgetOldest(this.lapsed, MAX_OFFERS * 8);
    }
    this._fail(id, now);
  }

  /** `id` failed to pair with this page: left alone until the back-off from `now` is over (see
   * RETRY_AFTER_MS), or for good when `now` is null (it cheated). */
  _fail(id, now = null) {
    this.failed.add(id);
    this.seekers.delete(id);
    if (now === null) {
      this.retry.delete(id);
      return;
    }
    const n = ((this.retry.get(id) || {}).n || 0) + 1;
    this.retry.set(id, { at: now + Math.min(RETRY_AFTER_MS * 2 ** (n - 1), MAX_RETRY_MS), n });
    forgetOldest(this.retry, MAX_REMEMBERED);
  }

  /** The seekers to propose to, best first, by a score of the PAIR (a hash of both keys, the same
   * seen from either side): a crowded lobby spreads its proposals, and two pages that rank each
   * other first meet at once. In the quiet time with none awaited, every seeker (see QUIET_MS). */
  _candidates(now) {
    const out = [];
    const seekerWaiting = this._seekerWaiting(now);
    const probe = now < this.quietUntil && !this._awaiting(now);
    for (const [id, s] of this.seekers) {
      if (now - s.at > SEEK_TTL_MS || this.failed.has(id) || this.offers.has(id) || this.skip.get(id) > now) continue;
      if (!probe && !this._eligible(id, now, seekerWaiting)) continue;
      if (!s.score) s.score = digest(this.id < id ? `${this.id}|${id}` : `${id}|${this.id}`);
      out.push([s.score, id]);
    }
    return out.sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(x => x[1]);
  }

  _withdraw(id) {
    // (messages may overtake each other: an accept that arrives after the cancel is told again)
    this.withdrawn.delete(id);
    this.withdrawn.set(id, true);
    forgetOldest(this.withdrawn, MAX_OFFERS * 8);
    this.offers.delete(id);
  }

  _cancelAll(except = null) {
    const out = [];
    for (const [id, o] of this.offers) {
      if (id !== except) out.push({ t: 'cancel', p: this.id, to: id, c: o.c });
      this._withdraw(id);
    }
    return out;
  }

  /** Time passes: seek again, expire seekers and stale steps, propose. Returns messages. */
  tick(now) {
    const out = [];
    if (this.state === 'paired' || this.state === 'left') return out;
    for (const [id, s] of this.seekers) if (now - s.at > SEEK_TTL_MS) this.seekers.delete(id);
    for (const [id, until] of this.skip) if (until <= now) this.skip.delete(id);
    for (const [id, until] of this.toldBusy) if (until <= now) this.toldBusy.delete(id);
    for (const [id, r] of this.retry) if (r.at <= now && this.failed.has(id)) this.failed.delete(id); // (its next seek counts)
    for (const [id, l] of this.lapsed) if (now - l.lapsedAt > LATE_MS || !this.failed.has(id)) this.lapsed.delete(id);
    if (this.lock && now - this.lock.at > this._within(LOCK_MS) + (this.lock.extra || 0)) {
      this._lapse(this.lock.with, { ...this.lock, lock: true }, now); // accepted, then the proposer went silent
      this.lock = null;
      this.state = 'seeking';
    }
    for (const [id, o] of this.offers) {
      if (now - o.at > this._within(o.stage === 'checking' ? CHECK_MS : ANSWER_MS, id) + (o.extra || 0)) {
        this.offers.delete(id);
        this._lapse(id, { ...o, lock: false }, now); // silent, or accepted and then silent
      }
    }
    if (now - this.lastSeek >= (this.newcomer ? NEWCOMER_SEEK_MS : SEEK_EVERY_MS)) {
      this.lastSeek = now;
      this.newcomer = false;
      out.push({ t: 'seek', p: this.id, k: this.key, l: Math.round(lagOf(this.lag)) });
    }
    if (this.state === 'seeking' && this.canPropose && !this._checking()) { // (none while checking)
      // An offer holds its place for ANSWER_MS and two lags: one to a seeker that claims to be slow
      // waits longer (_within) but holds no place for it (silent keys claiming 5 s held theirs 8 s).
      let held = 0;
      for (const o of this.offers.values()) if (o.stage !== 'proposed' || now - o.at <= ANSWER_MS + 2 * lagOf(this.lag)) held++;
      for (const id of this._candidates(now)) {
        if (held++ >= MAX_OFFERS) break;
        const s = this.random(16);
        const c = digest(s);
        this.offers.set(id, { c, s, at: now, stage: 'proposed' });
        out.push({ t: 'propose', p: this.id, to: id, c, k: this.key });
      }
    }
    return out;
  }

  /** A message from the network. `signed`: its signature by m.p was checked (by the carrier; the
   * default, for callers that check every message); a message that needs it (relevant(m) is
   * SIGNED) and lacks it is ignored. Returns messages to send. */
  handle(m, now, signed = true) {
    if (!validMessage(m)) return [];
    const need = this.relevant(m);
    if (!need || (need === SIGNED && !signed)) return [];
    if (this.failed.has(m.p) && m.t !== 'propose') return this._lateAnswer(m, now);
    if (m.t === 'seek') {
      this.published.delete(m.p); // (re-inserted: the oldest first, for forgetOldest)
      this.published.add(m.p);
      forgetOldest(this.published, MAX_REMEMBERED);
      return this._sought(m, now);
    }
    if (m.t === 'gone') {
      this.seekers.delete(m.p);
      return [];
    }
    switch (m.t) {
      case 'propose':
        return this._proposed(m, now);
      case 'accept':
        return this._accepted(m, now);
      case 'busy': {
        const o = this.offers.get(m.p);
        if (o && o.c === m.c) {
          this._markActive(m.p, now);
          this._withdraw(m.p);
          this.skip.set(m.p, now + BUSY_SKIP_MS);
          const run = (this.busyRun.get(m.p) || 0) + 1;
          this.busyRun.delete(m.p); // (re-inserted: the oldest first, for forgetOldest)
          this.busyRun.set(m.p, run);
          forgetOldest(this.busyRun, MAX_REMEMBERED);
        }
        return [];
      }
      case 'ready':
        return this._ready(m, now);
      case 'check':
        if (this.lock.c !== m.c) return [];
        if (!this.lock.checked) { // (only the first check holds it longer: a proposer re-sending
          this.lock.at = now; //   checks cannot hold this page for ever)
          this.lock.checked = true;
        }
        return [{ t: 'ready', p: this.id, to: m.p, c: m.c, n: m.n }];
      case 'confirm':
        return this._confirmed(m, now);
      case 'cancel':
        this.cancelled.add(`${m.p}|${m.c}`);
        forgetOldest(this.cancelled, MAX_REMEMBERED);
        if (this.lock && this.lock.with === m.p && this.lock.c === m.c) {
          this.lock = null;
          this.state = 'seeking';
        }
        return [];
      default:
        return [];
    }
  }

  /** A seek (heard in the lobby, or a proposal's ticket): `m.p` is a seeker. */
  _sought(m, now) {
    if (!this.seekers.has(m.p) && this.seekers.size >= MAX_SEEKERS) {
      let oldest = null;
      for (const [id, s] of this.seekers) if (!oldest || s.at < oldest[1]) oldest = [id, s.at];
      this.seekers.delete(oldest[0]);
    }
    const known = this.seekers.get(m.p);
    this.seekers.set(m.p, { at: now, k: m.k, l: lagOf(m.l), score: known ? known.score : null });
    if (!this.firstHeard.has(m.p)) {
      this.newcomer = true;
      this.firstHeard.set(m.p, now);
      forgetOldest(this.firstHeard, MAX_REMEMBERED);
    }
    return [];
  }

  _proposed(m, now) {
    if (this.failed.has(m.p)) return this._busy(m, now);
    // (one that proposes while this page is away waits for it, as a page in its quiet time does)
    if (this.state === 'paired') this._markActive(m.p, now);
    this.busyRun.delete(m.p); // (free enough to propose)
    // A proposal also proves the proposer (its ticket): it is a seeker from now on.
    if (!this.seekers.has(m.p)) this._sought({ t: 'seek', p: m.p, k: m.k }, now);
    this._heard(`${m.p}|${m.c}`);
    if (this.cancelled.has(`${m.p}|${m.c}`)) return [];
    // Crossed proposals: mine (the lower key) wins; the other withdraws its own without failing
    // me. Busy, or checking an acceptor of mine: busy.
    if (!this._wouldAccept(m, now)) return this._busy(m, now);
    const out = this._cancelAll(m.p);
    this.state = 'locked';
    this.lock = { with: m.p, c: m.c, r: this.random(16), k: m.k, at: now };
    out.push({ t: 'accept', p: this.id, to: m.p, c: m.c, r: this.lock.r, k: this.key });
    return out;
  }

  /** Busy, to a proposal: once per BUSY_SKIP_MS a key (what an honest proposer waits after a
   * busy), so that a key flooding proposals costs this page a signed answer now and then, no more
   * (a red team had a page sign 333 busy answers in 12 s to one key's flood). */
  _busy(m, now) {
    if (this.toldBusy.get(m.p) > now) return [];
    this.toldBusy.delete(m.p);
    this.toldBusy.set(m.p, now + BUSY_SKIP_MS);
    forgetOldest(this.toldBusy, MAX_REMEMBERED);
    return [{ t: 'busy', p: this.id, to: m.p, c: m.c }];
  }

  /** Whether `m` answers an offer to one that may not pair in the quiet time (then withdrawn). */
  _dropped(m, now) {
    if (!(now < this.quietUntil) || this._eligible(m.p, now)) return false;
    this._withdraw(m.p);
    return true;
  }

  _accepted(m, now) {
    this.busyRun.delete(m.p);
    const o = this.offers.get(m.p);
    if (!o || o.c !== m.c || this.state !== 'seeking') return [{ t: 'cancel', p: this.id, to: m.p, c: m.c }];
    if (o.stage !== 'proposed') return [];
    if (this._dropped(m, now)) return [{ t: 'cancel', p: this.id, to: m.p, c: m.c }];
    // Is it still there? (One that accepts and vanishes never answers this.)
    Object.assign(o, { stage: 'checking', n: this.random(16), r: m.r, k: m.k, at: now });
    return [{ t: 'check', p: this.id, to: m.p, c: o.c, n: o.n }];
  }

  _ready(m, now) {
    const o = this.offers.get(m.p);
    if (!o || o.c !== m.c || o.stage !== 'checking' || o.n !== m.n || this.state !== 'seeking') return [];
    if (this._dropped(m, now)) return [{ t: 'cancel', p: this.id, to: m.p, c: m.c }];
    const out = this._cancelAll(m.p);
    out.push({ t: 'confirm', p: this.id, to: m.p, c: o.c, s: o.s }, { t: 'gone', p: this.id });
    this._paired('host', m.p, o.s, o.r, o.k, now);
    return out;
  }

  _confirmed(m, now) {
    const lock = this.lock;
    if (lock.c !== m.c) return [];
    this.lock = null;
    if (digest(m.s) !== lock.c) {
      this._fail(m.p); // a reveal that does not match its commitment: not a fair flip
      this.state = 'seeking';
      return [];
    }
    this._paired('guest', m.p, m.s, lock.r, lock.k, now);
    return [{ t: 'gone', p: this.id }];
  }

  _paired(role, opponent, s, r, key, now) {
    const white = proposerWhite(s, r) === (role === 'host');
    this.state = 'paired';
    this.pair = { opponent, role, white, s, r, key, at: now };
    this.pairings += 1;
    this.seekers.delete(opponent);
  }

  /** The pairing did not lead to a game (the connection failed): seek again, and leave that
   * opponent alone for a while (RETRY_AFTER_MS). */
  requeue(now) {
    this.lapsed.clear(); // (what ran out of time before this pairing is long over)
    if (this.pair) this._fail(this.pair.opponent, now);
    if (this.lock) this._fail(this.lock.with, now);
    this.pair = null;
    this.lock = null;
    this.offers.clear();
    this.state = 'seeking';
    this.since = now;
    this.lastSeek = -Infinity;
    this.quietUntil = now + QUIET_MS + lagOf(this.lag);
  }

  /** Stop (cancel, or the game started): tells the others. */
  leave() {
    const out = this.state === 'seeking' ? this._cancelAll() : [];
    if (this.lock) out.push({ t: 'busy', p: this.id, to: this.lock.with, c: this.lock.c });
    this.state = 'left';
    this.lock = null;
    out.push({ t: 'gone', p: this.id });
    return out;
  }
}
