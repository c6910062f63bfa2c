// Hidden Chess -- what a correspondence game's panel may say while its store reaches for the relays
// (issue #24), checked in Node on the real StoreLink (assets/js/signal/store.js, its RelayPool)
// with a fake WebSocket whose relays refuse, stay slow or answer (run by tests/test_relay_retry.py).
// storeReaches(link.info()) is what the friend panel (friend-ui.js byRelays) goes by: true keeps
// "Fetching your friend's moves from the relays…", false shows that no relay could be reached.
// Prints one JSON line.

import { StoreLink, YOUNG_MS, storeReaches } from '../../assets/js/signal/store.js';

const modes = {}; // url -> 'refuse' | 'slow' | 'open'
class FakeWS {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    setTimeout(() => {
      const mode = modes[url];
      if (mode === 'refuse') {
        this.readyState = 3;
        if (this.onerror) this.onerror({});
        if (this.onclose) this.onclose({});
      } else if (mode === 'open') {
        this.readyState = 1;
        if (this.onopen) this.onopen();
      } // slow: stays connecting
    }, 5);
  }
  send() {}
  close() {
    this.readyState = 3;
  }
}
globalThis.WebSocket = FakeWS;

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const until = async (cond, ms = 10000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) return false;
    await sleep(5);
  }
  return true;
};
let n = 0;
async function store(relayModes) {
  const relays = relayModes.map((m, i) => `wss://r${n}-${i}.example`);
  n += 1;
  relays.forEach((url, i) => (modes[url] = relayModes[i]));
  const link = new StoreLink({ secret: '5e'.repeat(16), gameId: 'norelaytest00001', role: 'guest', token: 'aa'.repeat(16), relays });
  await until(() => link.pool && link.state === 'fetching');
  return link;
}

const out = { youngMs: YOUNG_MS };
// Every relay refuses: said at once, while the store is still young.
let l = await store(['refuse', 'refuse']);
const starting = storeReaches(l.info());
await until(() => l.relayState().failed === 2);
let info = l.info();
out.allRefused = { startingReaches: starting, reaches: storeReaches(info), young: info.young, state: l.relayState() };
l.leave();
// One refuses, one is slow (neither answers nor refuses): still reaching while young, not after.
l = await store(['refuse', 'slow']);
await until(() => l.relayState().failed === 1);
await sleep(50);
info = l.info();
out.oneSlow = { reaches: storeReaches(info), young: info.young, state: l.relayState(),
  afterYoung: storeReaches(l.info(Date.now() + YOUNG_MS + 1)) };
l.leave();
// All slow: reaching while young.
l = await store(['slow', 'slow']);
await sleep(50);
out.allSlow = { reaches: storeReaches(l.info()), afterYoung: storeReaches(l.info(Date.now() + YOUNG_MS + 1)) };
l.leave();
// One refuses, one answers: reaching, also later.
l = await store(['refuse', 'open']);
await until(() => l.relayState().open === 1 && l.relayState().failed === 1);
out.oneOpen = { reaches: storeReaches(l.info()), afterYoung: storeReaches(l.info(Date.now() + YOUNG_MS + 1)), state: l.relayState() };
l.leave();
out.none = storeReaches(null);
console.log(JSON.stringify(out));
setTimeout(() => process.exit(0), 50);
