// Hidden Chess -- relays come back (issue #24), checked in Node with a fake WebSocket and a fake
// clock (run by tests/test_relay_retry.py): the vendored, patched Trystero socket and the lobby's
// RelayPool both keep retrying a relay that stays down (never giving up), never wait longer than
// their cap between two tries, and try again at once when asked (online / page visible).
// Prints one JSON line.

const root = new URL('../../', import.meta.url);
const delays = [];
const timers = [];
globalThis.setTimeout = (fn, ms) => {
  const t = { fn, ms, cancelled: false };
  delays.push(ms);
  timers.push(t);
  return t;
};
globalThis.clearTimeout = t => {
  if (t) t.cancelled = true;
};
let attempts = 0;
let relayUp = false;
class FakeWS {
  constructor(url) {
    attempts += 1;
    this.url = url;
    this.readyState = 0;
    queueMicrotask(() => {
      if (relayUp) {
        this.readyState = 1;
        if (this.onopen) this.onopen();
      } else {
        this.readyState = 3;
        if (this.onclose) this.onclose();
      }
    });
  }
  send() {}
  close() {}
}
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
out.trystero = { attempts, closed: client.isClosed, maxDelay: Math.max(...delays), lastDelays: delays.slice(-3) };
const before = attempts;
utils.retryRelaysNow();
await flush();
await flush();
out.trystero.retriedAtOnce = attempts === before + 1;
relayUp = true;
utils.retryRelaysNow();
await flush();
await flush();
out.trystero.openAfterReturn = client.socket.readyState === 1;

// 2. The lobby's relay pool.
relayUp = false;
attempts = 0;
delays.length = 0;
timers.length = 0;
const { RelayPool, RETRY_MS } = await import(new URL('assets/js/signal/nostr.js', root).href);
const pool = new RelayPool(['wss://relay.example'], { WebSocketImpl: FakeWS });
await pool.start();
await flush();
await run(30);
out.pool = { attempts, maxDelay: Math.max(...delays), cap: Math.max(...RETRY_MS) };
const before2 = attempts;
pool.retryNow();
await flush();
out.pool.retriedAtOnce = attempts === before2 + 1;
relayUp = true;
pool.retryNow();
await flush();
await flush();
out.pool.openAfterReturn = pool.openCount() === 1;
console.log(JSON.stringify(out));
process.exit(0);
