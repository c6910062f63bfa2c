// Hidden Chess -- the quick-play lobby under load (run by bench/matchmaking.py, which starts the
// local relay): N simulated players arrive over ARRIVE seconds at one Nostr relay, each running
// the page's own lobby code (assets/js/signal/quick.js + peer/lobby.js, over its own WebSocket),
// with mixed variants and clocks. A pairing counts as formed when both sides report each other;
// a side whose opponent did not pair back within REQUEUE_MS goes back to the queue (as the page
// does when the game's connection fails). Prints one JSON line of results.
//   node --experimental-websocket bench/matchmaking.mjs --relay ws://127.0.0.1:PORT [--players 300] [--arrive 30] [--limit 60]

import { QuickPlay } from '../assets/js/signal/quick.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const relay = arg('--relay', null);
const N = Number(arg('--players', 300));
const ARRIVE_S = Number(arg('--arrive', 30));
const LIMIT_S = Number(arg('--limit', 60));
const REQUEUE_MS = 5000;
if (!relay) throw new Error('--relay ws://... is required');

const GAMES = [['secret-pawn', '300+3'], ['secret-pawn', '300+3'], ['secret-pawn', '180+2'], ['standard', '300+3'], ['reveal', '300+3'], ['hidden-identity', '600+5']];
let seed = 12345;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

const t0 = Date.now();
const players = [];
const byId = new Map();
const results = { formed: 0, self: 0, duplicate: 0, requeued: 0, waits: [] };

function check(p) {
  if (!p.pair || p.done) return;
  const o = byId.get(p.pair.opponent);
  if (p.pair.opponent === p.qp.id) results.self += 1;
  if (o && o.pair && o.pair.opponent === p.qp.id && !o.done) {
    if (p.gameWith || o.gameWith) results.duplicate += 1;
    p.done = o.done = true;
    p.gameWith = o.qp.id;
    o.gameWith = p.qp.id;
    results.formed += 1;
    const now = Date.now();
    results.waits.push(now - p.arrived, now - o.arrived);
    p.qp.cancel();
    o.qp.cancel();
  }
}

async function arrive(i) {
  const [variant, clock] = GAMES[Math.floor(rand() * GAMES.length)];
  const p = { variant, clock, arrived: Date.now(), pair: null, done: false, gameWith: null };
  p.qp = new QuickPlay({
    variant, clock, relays: [relay],
    onpaired: (qp, pair) => {
      p.pair = pair;
      p.pairedAt = Date.now();
      check(p);
    },
  });
  players.push(p);
  byId.set(p.qp.id, p);
  await p.qp.start();
}

const timers = [];
for (let i = 0; i < N; i++) timers.push(setTimeout(() => arrive(i), Math.floor(rand() * ARRIVE_S * 1000)));

const poll = setInterval(() => {
  const now = Date.now();
  for (const p of players) {
    if (p.pair && !p.done) check(p);
    if (p.pair && !p.done && now - p.pairedAt > REQUEUE_MS) {
      if (process.env.HC_DEBUG) { const o = byId.get(p.pair.opponent); console.error("requeue", p.pair.role, o && o.qp.lobby.state, o && o.qp.lobby.with === p.qp.id, o && o.done, o && o.pair && o.pair.opponent === p.qp.id); }
      p.pair = null;
      results.requeued += 1;
      p.qp.requeue();
    }
  }
  const arrivedAll = players.length === N;
  const lobbies = new Map();
  for (const p of players) if (!p.done) lobbies.set(`${p.variant}|${p.clock}`, (lobbies.get(`${p.variant}|${p.clock}`) || 0) + 1);
  const pairable = [...lobbies.values()].some(n => n >= 2);
  if ((arrivedAll && !pairable) || now - t0 > LIMIT_S * 1000) finish();
}, 200);

function finish() {
  clearInterval(poll);
  const counts = new Map();
  for (const p of players) counts.set(`${p.variant}|${p.clock}`, (counts.get(`${p.variant}|${p.clock}`) || 0) + 1);
  const possible = [...counts.values()].reduce((a, n) => a + Math.floor(n / 2), 0);
  const waits = results.waits.sort((a, b) => a - b);
  const q = f => (waits.length ? waits[Math.min(waits.length - 1, Math.floor(f * waits.length))] : null);
  const published = players.reduce((a, p) => a + p.qp.published, 0);
  const framesOut = players.reduce((a, p) => a + p.qp.pool.sent, 0);
  const framesIn = players.reduce((a, p) => a + p.qp.pool.received, 0);
  console.log(JSON.stringify({
    players: players.length, lobbies: counts.size, possible, formed: results.formed, self: results.self,
    duplicate: results.duplicate, requeued: results.requeued, median_ms: q(0.5), p95_ms: q(0.95),
    lobby_messages: published, frames_to_relay: framesOut, frames_from_relay: framesIn,
    seconds: (Date.now() - t0) / 1000,
  }));
  for (const p of players) if (!p.done) p.qp.cancel();
  setTimeout(() => process.exit(0), 500);
}
