// Hidden Chess -- two honest players against one hostile lobby client (issue #24's red team):
// a local relay (tests/browser/nostr_relay.cjs), one client of tests/browser/lobby_hostile2.mjs
// (--kind locker | ghost | cancels | replay, see there) or lobby_hostile.mjs (--script), and two
// honest players running the page's own lobby code (signal/quick.js + peer/lobby.js, the full
// 14-bit proof of work). An honest player paired with a key that is not the other honest player
// gives the pairing up after --connect-ms (the page: 7 s when the opponent never comes into the
// room, quick-ui.js ARRIVE_MS) and looks again, as the page does. Prints each pairing with a
// stranger, when the two honest players pair with each other, and a JSON line of counters.
// VERBOSE=1 prints each second what each honest player holds and knows of the other, and with
// each pairing with a stranger whether the player was in its quiet time and waiting for another.
//
//   node --experimental-websocket bench/lobby_attacks.mjs --kind locker [--hostile-args "--check 1"]
//        [--limit 120] [--connect-ms 7000] [--stagger S] [--script lobby_hostile2.mjs]
//   --kind none: no attack (the baseline); --stagger S: b arrives S seconds after a.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { QuickPlay } from '../assets/js/signal/quick.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const KIND = arg('--kind', 'locker');
const LIMIT_S = Number(arg('--limit', 120));
const CONNECT_MS = Number(arg('--connect-ms', 7000));
const SCRIPT = fileURLToPath(new URL(`../tests/browser/${arg('--script', 'lobby_hostile2.mjs')}`, import.meta.url));
const EXTRA = (arg('--hostile-args', '') || '').split(' ').filter(Boolean);
const RELAY = fileURLToPath(new URL('../tests/browser/nostr_relay.cjs', import.meta.url));

const line = (child, re) => new Promise(resolve => {
  let buf = '';
  child.stdout.on('data', d => {
    buf += d;
    const m = re.exec(buf);
    if (m) resolve(m);
  });
});

const relay = spawn(process.execPath, [RELAY, '--port', '0', ...(arg('--relay-args', '') || '').split(' ').filter(Boolean)], { stdio: ['ignore', 'pipe', 'inherit'] });
const [, , port] = await line(relay, /listening (\S+) (\d+)/);
const url = `ws://127.0.0.1:${port}`;
let hostile = null;
if (KIND !== 'none') {
  hostile = spawn(process.execPath, ['--experimental-websocket', '--no-warnings', SCRIPT, '--relay', url, '--kind', KIND, ...EXTRA], { stdio: ['ignore', 'pipe', 'inherit'] });
  await line(hostile, /seeking/);
  hostile.stdout.on('data', d => process.env.VERBOSE && process.stdout.write(`  hostile: ${d}`));
}
const t0 = Date.now();
const el = () => ((Date.now() - t0) / 1000).toFixed(1);
const honest = [];
const ids = new Set();
let done = false;
const strangers = { a: 0, b: 0 };
for (const name of ['a', 'b']) {
  const h = { name };
  h.qp = new QuickPlay({
    variant: 'secret-pawn', clock: '300+3', relays: [url], failed: new Set(), retry: new Map(),
    onpaired: (qp, pair) => {
      if (ids.has(pair.opponent)) {
        const other = honest.find(x => x !== h);
        h.paired = pair.opponent;
        if (other.paired === h.qp.id) {
          console.log(`${el()} s: honest a and b PAIRED with each other`);
          done = true;
        }
        return;
      }
      strangers[name] += 1;
      const L = h.qp.lobby, now = Date.now(), o = honest.find(x => x !== h).qp.id;
      const why = process.env.VERBOSE ? ` quiet=${now < L.quietUntil} awaiting=${L._awaiting(now)} other: active=${L._active(o, now)} senior=${L._senior(o, now)} failed=${L.failed.has(o)} stranger active=${L._active(pair.opponent, now)}` : '';
      console.log(`${el()} s: ${name} paired with stranger ${pair.opponent.slice(0, 8)} as ${pair.role} (${strangers[name]})${why}`);
      setTimeout(() => h.qp.requeue(), CONNECT_MS);
    },
  });
  honest.push(h);
}
const STAGGER_MS = Number(arg('--stagger', 0)) * 1000; // b arrives this long after a
await honest[0].qp.start();
ids.add(honest[0].qp.id);
await new Promise(r => setTimeout(r, STAGGER_MS));
await honest[1].qp.start();
ids.add(honest[1].qp.id);
console.log(`${el()} s: b arrives`);
const cpu0 = process.cpuUsage();
const states = setInterval(() => {
  if (!process.env.VERBOSE) return;
  const s = honest.map(h => {
    const L = h.qp.lobby;
    const o = honest.find(x => x !== h).qp.id; // the other honest player
    const who = id => (id === o ? 'OTHER' : 'x');
    const offers = [...L.offers].map(([id, f]) => `${who(id)}:${f.stage}`).join(',');
    return `${h.name}:${L.state}/others=${h.qp.others()} lock=${L.lock ? who(L.lock.with) : '-'} offers=${offers} `
      + `other: failed=${L.failed.has(o)} busy=${(L.skip.get(o) || 0) > Date.now()} senior=${L._senior ? L._senior(o, Date.now()) : '?'}`;
  }).join(' | ');
  if (process.env.VERBOSE) console.log(`${el()} s: ${s}`);
}, 1000);
while (!done && Date.now() - t0 < LIMIT_S * 1000) await new Promise(r => setTimeout(r, 200));
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({
  kind: KIND, extra: EXTRA.join(' '), paired: done, seconds: Number(el()), strangers,
  verified: honest.map(h => h.qp.pool.verified), signed: honest.map(h => h.qp.pool.signed), events: honest.map(h => h.qp.events), limited: honest.map(h => h.qp.limited), rejected: honest.map(h => h.qp.rejected), checks: honest.map(h => h.qp.checks),
  honestCpuS: (cpu.user + cpu.system) / 1e6,
}));
clearInterval(states);
for (const h of honest) h.qp.cancel();
if (hostile) hostile.kill();
relay.kill();
setTimeout(() => process.exit(0), 500);
