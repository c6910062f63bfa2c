// Hidden Chess -- which correspondence games await you (issue #26), in Node (run by
// tests/test_awaits.py): the pure rules of assets/js/peer/awaiting.js, and
// assets/js/signal/awaits.js against a fake, hostile relay (a fake WebSocket that ignores the
// filters and answers every game's tag with what it holds, plus forgeries and junk). Prints one
// JSON line.

import { RelayPool } from '../../assets/js/signal/nostr.js';
import { STORE_KIND, seal, storeKeys } from '../../assets/js/signal/store.js';
import { checkGames } from '../../assets/js/signal/awaits.js';
import { gamesToCheck, filterFor, newsOf, stillAwaits, newsText, MAX_CHECKS } from '../../assets/js/peer/awaiting.js';

const out = {};
const secret = n => n.repeat(16); // 32 hex digits
const HOST_T = 'aa'.repeat(16);
const GUEST_T = 'bb'.repeat(16);

// ---- the pure rules
const summary = (extra = {}) => ({ v: 'standard', m: 'friend', r: '*', p: 2, t: 'white', s: 'black', c: 1, u: 5, n: 1, ...extra });
const room = (extra = {}) => ({ s: secret('1f'), r: 'host', t: HOST_T, a: null, w: 100000, ...extra });
const active = {
  due: summary({ g: 'gameDUE0001', u: 9 }),
  yours: summary({ g: 'gameYOURS01', y: 1 }),
  clock: summary({ g: 'gameCLOCK01', k: '5+3' }),
  over: summary({ g: 'gameOVER001', r: '1-0' }),
  local: summary({ m: 'local', g: 'gameLOCAL01' }),
  computer: summary({ m: 'computer' }),
  current: summary({ g: 'gameCURR001' }),
  noroom: summary({ g: 'gameNOROOM1' }),
  taken: summary({ g: 'gameTAKEN01' }),
  nog: summary({}),
  badroom: summary({ g: 'gameBAD0001' }),
  older: summary({ g: 'gameOLDER01', u: 1, n: undefined }),
};
const rooms = {
  gameDUE0001: room({ k: 'cd'.repeat(32) }), gameYOURS01: room(), gameCLOCK01: room(), gameOVER001: room(),
  gameLOCAL01: room(), gameCURR001: room(), gameTAKEN01: room({ x: 1 }), gameBAD0001: room({ s: 'not a secret' }),
  gameOLDER01: room({ r: 'guest', w: 0 }),
};
const checks = gamesToCheck(active, rooms, 'current');
out.checked = checks.map(c => c.id);
out.due = checks[0];
out.older = checks[1];
out.capped = gamesToCheck(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`g${i}`, summary({ g: `gameMANY${String(i).padStart(3, '0')}` })])),
  Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`gameMANY${String(i).padStart(3, '0')}`, room()])), null).length;
out.maxChecks = MAX_CHECKS;
out.filterKnown = filterFor(checks[0], 'tag1', STORE_KIND);
out.filterUnknown = filterFor(checks[1], 'tag2', STORE_KIND);
const c1 = { heard: 1, w: 100 };
out.news = {
  move: newsOf(c1, [{ n: 1, t: 'commit', at: 50 }, { n: 2, t: 'move', at: 200 }, { n: 3, t: 'open', at: 201 }]),
  commitOnly: newsOf({ heard: 0, w: 0 }, [{ n: 1, t: 'commit', at: 5 }]),
  alreadyHave: newsOf(c1, [{ n: 1, t: 'move', at: 500 }]),
  acceptedAnswer: newsOf(c1, [{ n: 2, t: 'answer', ok: true, at: 500 }]),
  refusedAnswer: newsOf(c1, [{ n: 2, t: 'answer', ok: false, at: 500 }]),
  resign: newsOf(c1, [{ n: 4, t: 'resign', at: 500 }]),
  byTimeNew: newsOf({ heard: null, w: 100 }, [{ n: 1, t: 'move', at: 101 }]),
  byTimeOld: newsOf({ heard: null, w: 100 }, [{ n: 9, t: 'move', at: 100 }]),
  junk: newsOf(c1, [null, { n: '2', t: 'move' }, { n: 0, t: 'move' }, { n: 5 }]),
};
const found = out.news.move;
out.still = {
  asFound: stillAwaits(found, summary({ n: 1 })),
  opened: stillAwaits(found, summary({ n: 3 })),
  nowYours: stillAwaits(found, summary({ n: 1, y: 1 })),
  over: stillAwaits(found, summary({ n: 1, r: '0-1' })),
  none: stillAwaits(null, summary()),
};
out.words = [newsText(found), newsText(out.news.resign)];

// ---- the relays: a fake relay that answers every REQ with what it holds for each filter's tag
const frames = []; // what the relay sent, per REQ
class FakeRelay {
  static holdings = new Map(); // tag -> [event or raw frame text]
  static down = false;
  static silent = false;
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    setTimeout(() => {
      if (FakeRelay.down) {
        this.readyState = 3;
        if (this.onclose) this.onclose();
        return;
      }
      this.readyState = 1;
      if (this.onopen) this.onopen();
    }, 5);
  }
  send(text) {
    const msg = JSON.parse(text);
    if (msg[0] !== 'REQ' || FakeRelay.silent) return;
    const [, sub, ...filters] = msg;
    frames.push(filters);
    const say = frame => setTimeout(() => this.onmessage && this.onmessage({ data: frame }), 1);
    say('not json at all');
    say(JSON.stringify(['EVENT', sub, { junk: true }]));
    say('['.repeat(5000));
    for (const f of filters) for (const item of FakeRelay.holdings.get(f['#x'][0]) || []) say(typeof item === 'string' ? item : JSON.stringify(['EVENT', sub, item]));
    say(JSON.stringify(['EOSE', sub]));
  }
  close() {
    this.readyState = 3;
  }
}
class Nowhere {
  constructor() {
    this.readyState = 0;
  }
  send() {}
  close() {}
}

/** A device's signer for a game (its derived key), and the game's keys. */
async function device(sec, gameId, token) {
  const keys = await storeKeys(sec, gameId, token);
  const pool = new RelayPool([], { kind: STORE_KIND, sinceS: null, secretKey: keys.signKey, WebSocketImpl: Nowhere });
  await pool.start();
  return { keys, pool, pubkey: pool.pubkey };
}
const msg = (gameId, n, t, extra = {}) => JSON.stringify({ ack: '', g: gameId, n, prev: '', t, v: 1, ...extra });
async function event(dev, role, text, keys = dev.keys) {
  return dev.pool.sign(keys.tag, await seal(keys.aes, keys.tag, { r: role, m: text }));
}

// Four games of this device (the host), their friend the guest.
const games = {};
for (const [id, gameId, sec] of [['moved', 'gameMOVED01', secret('11')], ['commit', 'gameCOMMIT1', secret('22')],
  ['forged', 'gameFORGED1', secret('33')], ['unbound', 'gameUNBOUND', secret('44')]]) {
  const host = await device(sec, gameId, HOST_T);
  const guest = await device(sec, gameId, GUEST_T);
  games[id] = { gameId, sec, host, guest };
}
const stranger = await device(secret('99'), 'gameMOVED01', 'cc'.repeat(16));
const hold = (g, items) => FakeRelay.holdings.set(games[g].host.keys.tag, items);

// moved: the guest's commitment and move (numbers above what this device has: 0).
{
  const { gameId, guest } = games.moved;
  hold('moved', [await event(guest, 'guest', msg(gameId, 1, 'commit')), await event(guest, 'guest', msg(gameId, 2, 'move', { uci: 'e2e4' }))]);
}
// commit: only the guest's commitment (the guest, White, is to move: nothing for this device).
{
  const { gameId, guest } = games.commit;
  hold('commit', [await event(guest, 'guest', msg(gameId, 1, 'commit'))]);
}
// forged (the friend's key known): the friend's real envelope replayed under another key, a
// "move" under another key sealed with the right game keys (a third device with the link), the
// friend's move with a broken signature, one with an id that is not its hash, this device's own
// move, a move of another game, and a part of a long message.
{
  const { gameId, guest, host, sec } = games.forged;
  const real = await event(guest, 'guest', msg(gameId, 1, 'commit'));
  const third = await device(sec, gameId, 'dd'.repeat(16));
  const replay = stranger.pool.sign(host.keys.tag, real.content);
  const thirdMove = await event(third, 'guest', msg(gameId, 2, 'move'), host.keys);
  const badSig = { ...(await event(guest, 'guest', msg(gameId, 2, 'move'))) };
  badSig.sig = (badSig.sig[0] === 'a' ? 'b' : 'a') + badSig.sig.slice(1);
  const badId = { ...(await event(guest, 'guest', msg(gameId, 2, 'move'))), content: 'changed' };
  const own = await event(host, 'host', msg(gameId, 2, 'move'));
  const otherGame = await event(guest, 'guest', msg('gameSOMEOTHER', 2, 'move'));
  const part = guest.pool.sign(host.keys.tag, await seal(host.keys.aes, host.keys.tag, { r: 'guest', m: msg(gameId, 2, 'move'), p: ['c1d2', 0, 2] }));
  hold('forged', [real, replay, thirdMove, badSig, badId, own, otherGame, part]);
}
// unbound (the friend's key not known yet): the friend's commitment, then a move by a third
// device with the link (later: the friend is the key that spoke first), content that does not
// decrypt under another key's seal, a replay of this device's own move, junk.
const realNow = Date.now;
const at = async (secondsAgo, fn) => {
  Date.now = () => realNow() - secondsAgo * 1000;
  try {
    return await fn();
  } finally {
    Date.now = realNow;
  }
};
{
  const { gameId, host, guest, sec } = games.unbound;
  const third = await device(sec, gameId, 'ee'.repeat(16));
  const commit = await at(60, () => event(guest, 'guest', msg(gameId, 1, 'commit')));
  const thirdMove = await at(30, () => event(third, 'guest', msg(gameId, 2, 'move'), host.keys));
  const wrong = await device(secret('98'), gameId, GUEST_T);
  const undecryptable = stranger.pool.sign(host.keys.tag, await seal(wrong.keys.aes, host.keys.tag, { r: 'guest', m: msg(gameId, 2, 'move') }));
  const own = await event(host, 'host', msg(gameId, 1, 'move'));
  hold('unbound', [thirdMove, commit, undecryptable, own, 'x'.repeat(60000)]);
  games.unbound.third = third;
}

const index = {
  moved: summary({ g: 'gameMOVED01', n: 0 }),
  commit: summary({ g: 'gameCOMMIT1', n: 0 }),
  forged: summary({ g: 'gameFORGED1', n: 1 }),
  unbound: summary({ g: 'gameUNBOUND', n: 0 }),
};
const roomsOf = Object.fromEntries(Object.values(games).map(g => [g.gameId, { s: g.sec, r: 'host', t: HOST_T, a: null, w: 0 }]));
roomsOf.gameFORGED1.k = games.forged.guest.pubkey;
const todo = gamesToCheck(index, roomsOf, null);
const answer = await checkGames(todo, { relays: ['ws://fake.one', 'ws://fake.two'], WebSocketImpl: FakeRelay, waitMs: 5000 });
out.answer = Object.fromEntries(answer);
out.answered = [...answer.keys()].sort();
out.reqs = frames.length;
out.filtersPerReq = frames.map(f => f.length);
out.authors = frames[0].filter(f => f.authors).map(f => f.authors[0] === games.forged.guest.pubkey);

// The control: the same forgeries beside the friend's real move -- that one marks the game.
{
  const { gameId, guest, host } = games.forged;
  FakeRelay.holdings.get(host.keys.tag).push(await event(guest, 'guest', msg(gameId, 2, 'move')));
  const forged = todo.filter(c => c.id === 'forged');
  out.control = Object.fromEntries(await checkGames(forged, { relays: ['ws://fake.one'], WebSocketImpl: FakeRelay, waitMs: 5000 }));
}

// A hostile relay, answering first, floods the page with the friend's "moves" under broken
// signatures (more than a round looks at): they use up that relay's share, not the honest relay's,
// whose real move still marks the game.
{
  const { gameId, guest } = games.forged;
  const junk = [];
  for (let i = 0; i < 250; i++) {
    const ev = { ...(await event(guest, 'guest', msg(gameId, 3 + i, 'move'))) };
    ev.sig = (ev.sig[0] === 'a' ? 'b' : 'a') + ev.sig.slice(1);
    junk.push(JSON.stringify(['EVENT', null, ev]));
  }
  class Flood extends FakeRelay {
    send(text) {
      const msg = JSON.parse(text);
      if (msg[0] === 'REQ') for (const frame of junk) setTimeout(() => this.onmessage && this.onmessage({ data: frame.replace('null', JSON.stringify(msg[1])) }), 1);
      super.send(text);
    }
  }
  class Either {
    constructor(url) {
      return url.includes('hostile') ? new Flood(url) : new FakeRelay(url);
    }
  }
  const forged = todo.filter(c => c.id === 'forged');
  out.flooded = Object.fromEntries(await checkGames(forged, { relays: ['ws://hostile.one', 'ws://fake.one'], WebSocketImpl: Either, waitMs: 5000 }));
}

// No relay reachable, or relays that never answer: nothing is known (no game claimed).
FakeRelay.down = true;
out.down = Object.fromEntries(await checkGames(todo, { relays: ['ws://fake.one'], WebSocketImpl: FakeRelay, waitMs: 400 }));
FakeRelay.down = false;
FakeRelay.silent = true;
out.silent = Object.fromEntries(await checkGames(todo, { relays: ['ws://fake.one'], WebSocketImpl: FakeRelay, waitMs: 400 }));

// The control: the friend's own move (the key of the commitment) marks the unbound game.
FakeRelay.silent = false;
{
  const { gameId, guest, host } = games.unbound;
  FakeRelay.holdings.get(host.keys.tag).push(await event(guest, 'guest', msg(gameId, 2, 'move')));
  const unbound = todo.filter(c => c.id === 'unbound');
  out.controlUnbound = Object.fromEntries(await checkGames(unbound, { relays: ['ws://fake.one'], WebSocketImpl: FakeRelay, waitMs: 5000 }));
  // Two keys speaking first at the same second: which is the friend is not known -> nothing.
  const { third } = games.unbound;
  const now = Math.floor(realNow() / 1000);
  const sameTime = [await at(0, () => event(guest, 'guest', msg(gameId, 1, 'commit'))), await at(0, () => event(third, 'guest', msg(gameId, 2, 'move'), host.keys))];
  out.sameSecond = sameTime[0].created_at === sameTime[1].created_at && sameTime[0].created_at >= now;
  FakeRelay.holdings.set(host.keys.tag, sameTime);
  out.ambiguous = Object.fromEntries(await checkGames(unbound, { relays: ['ws://fake.one'], WebSocketImpl: FakeRelay, waitMs: 5000 }));
}

console.log(JSON.stringify(out));
process.exit(0);
