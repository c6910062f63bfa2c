// Hidden Chess -- which correspondence games await you (issue #26): pure logic, no network, no DOM,
// no storage of its own. assets/js/signal/awaits.js asks the relays, assets/js/games.js shows it.
//
// A friend game without a clock goes on through the relays' store (signal/store.js), but only the
// game on screen fetches its stored events. On a return visit the Games screen asks the relays of
// the other games in progress, once each, for the friend's newest stored messages. This module
// decides:
//   * which games to ask about (gamesToCheck): friend games in progress, without a clock, that do
//     not await you already and are not the game on screen, whose room this device remembers
//     (signal/room.js, under the protocol's game id, the index's `g`: secret `s`, role `r`, own token `t`, the friend's store key `k` once seen,
//     the newest event time seen `w`); the latest first, at most MAX_CHECKS;
//   * what a message found means (newsOf): one of the friend's messages numbered above what this
//     device has of the friend's chain (the index's `n`, py/hiddenchess/app/games.py), of a type
//     that leaves the next step to you (a move; a resignation, a claim, the final openings, a
//     question's probe or try; a refused move) -- anything else (the friend's commitment when the
//     friend is to move, an answer that accepts your move, a message this device already has, one
//     the friend published again) means nothing;
//   * whether a finding still holds (stillAwaits): the index moved on (the game was opened and its
//     messages came) or the game now awaits you anyway -> the finding is spent.
// An index written before it had `n` falls back on event times: a message newer than `w`.

export const MAX_CHECKS = 24; // games asked about in one round
export const FILTER_LIMIT = 10; // the friend's newest events asked for, per game
export const SINCE_MARGIN_S = 24 * 3600; // (the friend's clock may be behind this device's)

const AWAITS = new Set(['move', 'resign', 'claim', 'final', 'probe', 'try']);
const PUBKEY = /^[0-9a-f]{64}$/;
const SECRET = /^[0-9a-f]{32}$/;
const GAME = /^[A-Za-z0-9_-]{8,64}$/;
const TOKEN = /^[0-9a-f]{32}$/;

const count = v => (Number.isInteger(v) && v >= 0 ? v : null);

/** The games to ask the relays about: [{id, gameId (the protocol's: the room's key), secret, role, friendRole, token, peerKey, heard, w,
 * since}] from the index of games in progress ({id: summary}) and the remembered rooms. */
export function gamesToCheck(active, rooms, currentId = null, max = MAX_CHECKS) {
  const out = [];
  for (const [id, g] of Object.entries(active || {})) {
    if (!g || typeof g !== 'object' || id === currentId) continue;
    if (g.m !== 'friend' || g.r !== '*' || g.y || g.k || !GAME.test(g.g)) continue; // (k: a clock: no store)
    const room = rooms ? rooms[g.g] : null;
    if (!room || typeof room !== 'object' || room.x) continue;
    if (!SECRET.test(room.s) || (room.r !== 'host' && room.r !== 'guest') || !TOKEN.test(room.t)) continue;
    const w = Number.isInteger(room.w) && room.w > 0 ? room.w : 0;
    out.push({
      id, gameId: g.g, secret: room.s, role: room.r, friendRole: room.r === 'host' ? 'guest' : 'host', token: room.t,
      peerKey: PUBKEY.test(room.k) ? room.k : null, heard: count(g.n), w,
      since: w ? Math.max(0, w - SINCE_MARGIN_S) : 0, updated: Number.isInteger(g.u) ? g.u : 0,
    });
  }
  out.sort((a, b) => b.updated - a.updated);
  return out.slice(0, max);
}

/** The relay filter of one game's check (`tag`: the game's store tag). */
export function filterFor(check, tag, kind) {
  const filter = { kinds: [kind], '#x': [tag], limit: FILTER_LIMIT };
  if (check.peerKey) filter.authors = [check.peerKey];
  if (check.since) filter.since = check.since;
  return filter;
}

/** What the friend's messages found mean: null (nothing for you), or {kind: 'move' | 'other', n,
 * at, w} (the newest such message's number and time, the room's newest time seen when asked).
 * `messages` are [{n, t, ok, at}] (the message's number, type, an answer's verdict, the event
 * time), already checked as the friend's (signature, key, decryption, role). */
export function newsOf(check, messages) {
  let best = null;
  for (const m of messages || []) {
    if (!m || !Number.isInteger(m.n) || m.n < 1 || typeof m.t !== 'string') continue;
    const at = Number.isInteger(m.at) ? m.at : 0;
    const fresh = check.heard !== null ? m.n > check.heard : at > check.w;
    if (!fresh) continue;
    const yours = AWAITS.has(m.t) || (m.t === 'answer' && m.ok === false);
    if (!yours) continue;
    if (!best) best = { kind: 'other', n: 0, at: 0, w: check.w };
    if (m.t === 'move') best.kind = 'move';
    best.n = Math.max(best.n, m.n);
    best.at = Math.max(best.at, at);
  }
  return best;
}

/** Whether a finding (newsOf's answer for this game) still holds against the index's summary as
 * it is now (a game awaiting you by the index itself, or over, is not the relays' news). */
export function stillAwaits(found, summary) {
  if (!found || !summary || summary.r !== '*' || summary.y || summary.m !== 'friend') return false;
  const heard = count(summary.n);
  return heard !== null ? found.n > heard : found.at > found.w;
}

/** The words of a game the friend has moved in (the Games screen's line). */
export function newsText(found) {
  return found && found.kind === 'move' ? 'Your friend moved' : 'News from your friend';
}
