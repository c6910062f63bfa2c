// Hidden Chess -- a relay is back: the first socket of the page to reach it again makes every other
// socket of the page waiting out its back-off try at once (assets/js/signal/back.js; issue #24).
// Checked in Node with a fake WebSocket and a fake clock on two of the page's relay pools (the
// lobby's and the store's are both RelayPool), plus a listener standing for Trystero's sockets
// (room.js retries them on the same signal). Run by tests/test_relay_retry.py; prints one JSON line.

const root = new URL('../../', import.meta.url);
const { fakeSocketClass, manualTimers } = await import(new URL('tests/js/fakes.mjs', root).href);
const { timers } = manualTimers();
let relayUp = false;
const { FakeWS, counts } = fakeSocketClass(() => relayUp);
const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise(r => queueMicrotask(r));
};
const fireOne = async () => {
  while (timers.length) {
    const t = timers.shift();
    if (t.cancelled) continue;
    t.fn();
    await flush();
    return t.ms;
  }
  return null;
};

const { RelayPool } = await import(new URL('assets/js/signal/nostr.js', root).href);
const { onRelayBack } = await import(new URL('assets/js/signal/back.js', root).href);
const told = [];
const off = onRelayBack(url => told.push(url));

const lobby = new RelayPool(['wss://relay.example'], { WebSocketImpl: FakeWS });
const store = new RelayPool(['wss://relay.example'], { WebSocketImpl: FakeWS });
await lobby.start();
await store.start();
await flush();
for (let i = 0; i < 12; i++) await fireOne(); // the relay stays down: both back off (up to 10 s)
const out = { downOpen: lobby.openCount() + store.openCount(), toldWhileDown: told.length };
out.waitingMs = timers.filter(t => !t.cancelled).map(t => t.ms);

relayUp = true;
await fireOne(); // one socket's next try: the relay answers
out.afterOneTry = { lobby: lobby.openCount(), store: store.openCount(), told: told.length, opened: counts.opened };
out.stillWaiting = timers.filter(t => !t.cancelled).length;
// An open after "online" (retryNow) of a socket that had not failed tells nobody again.
off();
lobby.close();
store.close();
console.log(JSON.stringify(out));
