// Hidden Chess -- relays come back (issue #24), checked in Node with a fake WebSocket and a fake
// clock (run by tests/test_relay_retry.py): the vendored, patched Trystero socket and the lobby's
// RelayPool both keep retrying a relay that stays down (never giving up), never wait longer than
// their cap between two tries, and try again at once when asked (online / page visible).
// Prints one JSON line.

const root = new URL('../../', import.meta.url);
const { fakeSocketClass, manualTimers } = await import(new URL('tests/js/fakes.mjs', root).href);
const { timers, delays } = manualTimers();
let relayUp = false;
const { FakeWS, counts } = fakeSocketClass(() => relayUp);
globalThis.WebSocket = FakeWS;
const flush = () => new Promise(r => queueMicrotask(r));
async function run(n) {
  // Fire the pending timers n times (each firing makes the next attempt, which fails again).
  for (let i = 0; i < n; i++) {
    const t = timers.shift();
    if (!t) break;
    if (!t.cancelled) t.fn();
    await flush();
    await flush();
  }
}

const out = {};
// 1. Trystero's socket (vendored and patched by build.py).
const utils = await import(new URL('assets/vendor/trystero/core/utils.mjs', root).href);
const client = utils.makeSocket('wss://relay.example', () => {}, () => {});
await flush();
await run(30);
out.trystero = { attempts: counts.created, closed: client.isClosed, maxDelay: Math.max(...delays), lastDelays: delays.slice(-3) };
const before = counts.created;
utils.retryRelaysNow();
await flush();
await flush();
out.trystero.retriedAtOnce = counts.created === before + 1;
relayUp = true;
utils.retryRelaysNow();
await flush();
await flush();
out.trystero.openAfterReturn = client.socket.readyState === 1;

// 2. The lobby's relay pool.
relayUp = false;
counts.created = 0;
delays.length = 0;
timers.length = 0;
const { RelayPool, RETRY_MS } = await import(new URL('assets/js/signal/nostr.js', root).href);
const pool = new RelayPool(['wss://relay.example'], { WebSocketImpl: FakeWS });
await pool.start();
await flush();
await run(30);
out.pool = { attempts: counts.created, maxDelay: Math.max(...delays), cap: Math.max(...RETRY_MS) };
const before2 = counts.created;
pool.retryNow();
await flush();
out.pool.retriedAtOnce = counts.created === before2 + 1;
relayUp = true;
pool.retryNow();
await flush();
await flush();
out.pool.openAfterReturn = pool.openCount() === 1;
console.log(JSON.stringify(out));
process.exit(0);
