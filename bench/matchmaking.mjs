// Hidden Chess -- the quick-play lobby under load (run by bench/matchmaking.py, which starts the
// local relay): N simulated players arrive over ARRIVE seconds at one Nostr relay, each running
// the page's own lobby code (assets/js/signal/quick.js + peer/lobby.js, over its own WebSocket),
// with mixed variants and clocks. A pairing counts as formed when both sides report each other;
// a side whose opponent did not pair back within REQUEUE_MS goes back to the queue (as the page
// does when the game's connection fails). With --hostile N, N hostile clients of each kind
// (tests/browser/lobby_hostile.mjs: silent, flood, accepter, forger, junk) attack the busiest
// lobby (Secret Pawn 5+3) from the start. Prints one JSON line of results.
//   node --experimental-websocket bench/matchmaking.mjs --relay ws://127.0.0.1:PORT [--players 300]
//        [--arrive 30] [--limit 60] [--hostile 30] [--pow-bits 10]
// Every player here shares this one Node process (and the machine's cores), so the proof of work
// of a seek is cheaper here (--pow-bits) than in a page (SEEK_POW_BITS): a page mines its own.
// --shard i --shards n: this process runs only the players of the lobbies i, i+n, ... (lobbies
// never pair across, so n processes running the same schedule are the same run, with n
// processes' share of the machine's CPU instead of one; the hostile clients come with the shard
// of the lobby they attack) and prints the raw waits too (bench/matchmaking.py merges them).

import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { QuickPlay } from '../assets/js/signal/quick.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const relay = arg('--relay', null);
const N = Number(arg('--players', 300));
const ARRIVE_S = Number(arg('--arrive', 30));
const LIMIT_S = Number(arg('--limit', 60));
const HOSTILE = Number(arg('--hostile', 0));
const BITS = Number(arg('--pow-bits', 8));
const SHARD = Number(arg('--shard', 0));
const SHARDS = Number(arg('--shards', 1));
const REQUEUE_MS = 5000;
if (!relay) throw new Error('--relay ws://... is required');

const GAMES = [['secret-pawn', '300+3'], ['secret-pawn', '300+3'], ['secret-pawn', '180+2'], ['standard', '300+3'], ['reveal', '300+3'], ['hidden-identity', '600+5']];
let seed = 12345;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

const t0 = Date.now();
const lag = monitorEventLoopDelay({ resolution: 20 });
lag.enable();
const players = [];
const byId = new Map();
const results = { formed: 0, self: 0, duplicate: 0, requeued: 0, hijacks: 0, waits: [] };

function check(p) {
  if (!p.pair || p.done) return;
  const o = byId.get(p.pair.opponent);
  if (p.pair.opponent === p.qp.id) results.self += 1;
  if (o && o.pair && o.pair.opponent === p.qp.id && !o.done) {
    if (p.gameWith || o.gameWith) results.duplicate += 1;
    if (p.pair.secret !== o.pair.secret) results.hijacks += 1; // someone else's key in the room secret
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

const LOBBIES = [...new Set(GAMES.map(g => g.join('|')))];
const ATTACKED = 'secret-pawn|300+3';
const ours = g => LOBBIES.indexOf(g.join('|')) % SHARDS === SHARD;

async function arrive(i, [variant, clock]) {
  const p = { variant, clock, arrived: Date.now(), pair: null, done: false, gameWith: null };
  p.qp = new QuickPlay({
    variant, clock, relays: [relay], powBits: BITS, failed: new Set(),
    onpaired: (qp, pair) => {
      p.pair = pair;
      p.pairedAt = Date.now();
      // Paired with a key that is no honest player: a hijack (a stranger got in the middle).
      if (!byId.has(pair.opponent)) results.hijacks += 1;
      check(p);
    },
  });
  players.push(p);
  await p.qp.start();
  byId.set(p.qp.id, p);
}

// The hostile clients run in processes of their own (as an attacker's computers would), each
// kind with HOSTILE keys (silent, accepter) or HOSTILE events a second (flood, junk).
const hostiles = [];
if (HOSTILE > 0 && ours(ATTACKED.split('|'))) {
  const script = new URL('../tests/browser/lobby_hostile.mjs', import.meta.url).pathname;
  const kinds = { silent: 6000, flood: 1000, accepter: 6000, forger: 6000, junk: 1000 };
  for (const [kind, every] of Object.entries(kinds)) {
    const child = spawn(process.execPath, ['--experimental-websocket', '--no-warnings', script, '--relay', relay, '--kind', kind,
      '--count', String(HOSTILE), '--bits', String(BITS), '--every', String(every), '--variant', 'secret-pawn', '--clock', '300+3'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
    // The attackers' computers are not the players': on this shared machine their processes run at
    // a lower priority (what they manage to send is in their counters and the relay's).
    try {
      setPriority(child.pid, 10);
    } catch (e) {
      // not allowed: same priority
    }
    const h = { kind, child, stats: { kind } };
    child.stdout.on('data', d => {
      for (const line of String(d).split('\n')) if (line.startsWith('stats ')) h.stats = JSON.parse(line.slice(6));
    });
    hostiles.push(h);
  }
}
// the attack is on before the first player arrives (every shard waits alike)
if (HOSTILE > 0) await new Promise(r => setTimeout(r, 3000));

const timers = [];
let expected = 0;
for (let i = 0; i < N; i++) {
  const at = Math.floor(rand() * ARRIVE_S * 1000);
  const game = GAMES[Math.floor(rand() * GAMES.length)];
  if (!ours(game)) continue;
  expected += 1;
  timers.push(setTimeout(() => arrive(i, game), at));
}

const poll = setInterval(() => {
  const now = Date.now();
  for (const p of players) {
    if (p.pair && !p.done) check(p);
    if (p.pair && !p.done && now - p.pairedAt > REQUEUE_MS) {
      p.pair = null;
      results.requeued += 1;
      p.qp.requeue();
    }
  }
  const arrivedAll = players.length === expected;
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
  const verified = players.reduce((a, p) => a + p.qp.pool.verified, 0);
  const signed = players.reduce((a, p) => a + p.qp.pool.signed, 0);
  const checks = {};
  for (const p of players) for (const [t, n] of Object.entries(p.qp.checks)) checks[t] = (checks[t] || 0) + n;
  const rejected = players.reduce((a, p) => a + p.qp.rejected, 0);
  const pow = players.flatMap(p => p.qp.powMs).sort((a, b) => a - b);
  console.log(JSON.stringify({
    players: players.length, lobbies: counts.size, possible, formed: results.formed, self: results.self,
    duplicate: results.duplicate, hijacks: results.hijacks, requeued: results.requeued, median_ms: q(0.5), p95_ms: q(0.95),
    lobby_messages: published, events_signed: signed, frames_to_relay: framesOut, frames_from_relay: framesIn, signatures_checked: verified, checks_by_type: checks,
    rate_limited: players.reduce((a, p) => a + p.qp.limited, 0), rate_limited_players: players.filter(p => p.qp.limited).length,
    events_refused: rejected, pow_bits: BITS, pow_median_ms: pow.length ? pow[Math.floor(pow.length / 2)] : null,
    hostile: HOSTILE ? Object.fromEntries(hostiles.map(h => [h.stats.kind, h.stats])) : null,
    lag_p99_ms: lag.percentile(99) / 1e6, lag_max_ms: lag.max / 1e6, waits, seconds: (Date.now() - t0) / 1000, cpu_s: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  }));
  if (process.env.HC_DEBUG) {
    for (const p of players.filter(x => !x.done).slice(0, 8)) {
      const l = p.qp.lobby;
      console.error(p.variant, p.clock, l && l.state, l && l.others(Date.now()), l && l.offers.size, l && l.failed.size, p.qp.rejected, p.qp.pool.verified, p.qp.powMs.length, p.qp.pool.openCount());
    }
  }
  for (const p of players) if (!p.done) p.qp.cancel();
  for (const h of hostiles) h.child.kill();
  setTimeout(() => process.exit(0), 500);
}
