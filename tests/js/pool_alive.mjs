// Hidden Chess -- a relay socket the network dropped silently (a tunnel: no reset), checked in Node
// with a fake WebSocket and a fake clock (run by tests/test_relay_retry.py): the relay pool of the
// quick-play lobby and of the correspondence store (signal/nostr.js) drops a socket whose EVENT has
// had no answer for 8 s (alive.js) and opens a new one on its back-off; an idle socket or a slow
// relay's is kept; a relay that takes connections but never answers is retried on the back-off,
// not at once each time; the check runs only while the pool has subscriptions.
// Prints one JSON line.

const root = new URL('../../', import.meta.url);
const { manualTimers } = await import(new URL('tests/js/fakes.mjs', root).href);
const { timers } = manualTimers();
let now = 1_000_000;
Date.now = () => now;
const intervals = [];
globalThis.setInterval = (fn, ms) => {
  const t = { fn, ms, cleared: false };
  intervals.push(t);
  return t;
};
globalThis.clearInterval = t => {
  if (t) t.cleared = true;
};
const flush = () => new Promise(r => setImmediate(r));

let answerAfterMs = 0; // the relay answers each EVENT (OK) and REQ (EOSE) this long after; null: never
const sockets = [];
class LiveWS {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.listeners = [];
    this.sent = [];
    this.pageClosed = false;
    sockets.push(this);
    queueMicrotask(() => {
      this.readyState = 1;
      if (this.onopen) this.onopen();
    });
  }
  addEventListener(type, fn) {
    if (type === 'message') this.listeners.push(fn);
  }
  send(data) {
    this.sent.push(data);
    if (answerAfterMs === null) return;
    const msg = JSON.parse(data);
    const answer = msg[0] === 'EVENT' ? ['OK', msg[1].id, true, ''] : ['EOSE', msg[1]];
    this.later = { at: now + answerAfterMs, text: JSON.stringify(answer) };
  }
  close() {
    this.pageClosed = true;
    this.readyState = 3;
  }
  deliver() {
    if (!this.later || this.later.at > now || this.readyState !== 1) return;
    const e = { data: this.later.text };
    this.later = null;
    for (const fn of this.listeners) fn(e);
    if (this.onmessage) this.onmessage(e);
  }
}

/** `ms` of the fake clock, 500 ms at a time: answers due are delivered, the pool's check runs. */
async function pass(ms) {
  for (let t = 0; t < ms; t += 500) {
    now += 500;
    for (const ws of sockets) ws.deliver();
    for (const i of intervals) if (!i.cleared) i.fn();
    await flush();
  }
}
const last = () => sockets[sockets.length - 1];
const pendingRetry = () => timers.filter(t => !t.cancelled).map(t => t.ms);

const { RelayPool } = await import(new URL('assets/js/signal/nostr.js', root).href);
const out = {};
const pool = new RelayPool(['wss://relay.example'], { WebSocketImpl: LiveWS });
await pool.start();
await flush();
out.noCheckWithoutSubscriptions = intervals.length === 0;
pool.subscribe('topic');
out.checkEveryMs = intervals.length === 1 ? intervals[0].ms : null;

// 1. Idle: the subscription answered, then nothing for a minute (nobody else in the lobby).
await pass(60_000);
out.idleKept = sockets.length === 1 && pool.openCount() === 1;

// 2. A slow relay: each answer 5 s late.
answerAfterMs = 5000;
for (let i = 0; i < 4; i++) {
  await pool.publish('topic', 'slow');
  await pass(8000);
}
out.slowKept = sockets.length === 1 && pool.openCount() === 1;

// 3. The network goes: an event with no answer; dropped 8-9 s after it went, retried soon.
answerAfterMs = null;
const sentAt = now;
await pool.publish('topic', 'into the void');
let droppedAfter = null;
timers.length = 0;
for (let t = 0; t < 20_000 && droppedAfter === null; t += 500) {
  await pass(500);
  if (sockets[0].pageClosed) droppedAfter = now - sentAt;
}
out.droppedAfterMs = droppedAfter;
out.openAfterDrop = pool.openCount();
out.retryMs = pendingRetry();
// (one timer scheduled by the drop, not one by the socket's onclose and another by the check)
out.retryTimersScheduled = timers.length;
out.retriesAfterDrop = pool.sockets.get('wss://relay.example').retries;

// 4. The relay takes connections but never answers: each new socket is dropped in turn, the
//    retries spaced out on the back-off (not every 8.5 s).
const delays = [];
for (let i = 0; i < 6; i++) {
  const t = timers.filter(x => !x.cancelled).pop();
  timers.length = 0;
  delays.push(t.ms);
  t.fn();
  await flush();
  await pool.publish('topic', 'again');
  const ws = last();
  while (!ws.pageClosed) await pass(500);
}
out.silentRetryMs = delays;

// 5. Answers again: the next socket is kept, and the back-off starts afresh.
answerAfterMs = 0;
const t = timers.filter(x => !x.cancelled).pop();
timers.length = 0;
t.fn();
await flush();
await pool.publish('topic', 'back');
await pass(30_000);
out.backKept = pool.openCount() === 1 && !last().pageClosed;
out.silentAfterBack = pool.sockets.get('wss://relay.example').silent;

pool.close();
out.checkStoppedOnClose = intervals.every(i => i.cleared);

// 6. Events made while a relay is unreachable wait for it, the newest 20 of them (a seek
//    republished after a long cut counts, not the first ones made).
class NeverOpens {
  constructor() {
    this.readyState = 0;
  }
  addEventListener() {}
  send() {}
  close() {
    this.readyState = 3;
  }
}
const cut = new RelayPool(['wss://relay.example'], { WebSocketImpl: NeverOpens });
await cut.start();
for (let i = 0; i < 25; i++) cut.sendEvent(cut.sign('topic', `event ${i}`));
out.pendingKept = cut.sockets.get('wss://relay.example').pending.map(f => JSON.parse(f)[1].content);
cut.close();
console.log(JSON.stringify(out));
process.exit(0);
