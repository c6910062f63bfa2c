// Hidden Chess -- two pages back from a relay outage find each other at once (issue #24), checked
// in Node on the vendored, patched Trystero (build.py TRYSTERO_PATCHES, trystero/nostr.mjs) with a
// fake relay socket (run by tests/test_relay_retry.py). A room that announces itself while the
// relay's socket is down must announce again as soon as the socket is back, and a room joined
// afresh then (assets/js/signal/room.js does so when a relay comes back) must announce at once.
// Stock Trystero took an unsent announcement for a rate limit: nothing for 60 s, doubling.
// Prints one JSON line.

const root = new URL('../../', import.meta.url);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
let relayUp = true;
const sockets = [];
const announces = []; // [time, topic, content] of each EVENT frame sent on an open socket
const { fakeSocketClass } = await import(new URL('tests/js/fakes.mjs', root).href);
const { FakeWS } = fakeSocketClass(() => relayUp, {
  laterMs: 5,
  onSend: (ws, data) => {
    if (ws.readyState !== 1) throw new Error('not open');
    const m = JSON.parse(data);
    if (m[0] === 'EVENT') announces.push([Date.now(), m[1].tags[0][1], JSON.parse(m[1].content)]);
  },
});
globalThis.WebSocket = class extends FakeWS {
  constructor(url) {
    super(url);
    sockets.push(this);
  }
};
class FakeRTC {
  constructor() {
    this.localDescription = null;
    this.connectionState = 'new';
    this.iceGatheringState = 'complete';
    this.signalingState = 'stable';
  }
  addEventListener() {}
  removeEventListener() {}
  createDataChannel() {
    return { addEventListener() {}, close() {} };
  }
  async createOffer() {
    return { type: 'offer', sdp: 'v=0' };
  }
  async setLocalDescription(d) {
    this.localDescription = d;
  }
  close() {}
}

const { joinRoom, selfId } = await import(new URL('assets/vendor/trystero/nostr.mjs', root).href);
const { retryRelaysNow } = await import(new URL('assets/vendor/trystero/core/utils.mjs', root).href);
const config = { appId: 'hc-test', relayConfig: { urls: ['wss://relay.example'], warnOnRelayFailure: false }, rtcPolyfill: FakeRTC };
const mine = () => announces.filter(([, , c]) => c && c.peerId === selfId);

const out = {};
const first = joinRoom(config, 'room-a');
await sleep(2500); // the warm-up announcements (0.2, 0.5, 1.3 s), all sent
out.beforeOutage = mine().length;

// The relay goes down; the page joins the room afresh meanwhile (its announcements go nowhere).
relayUp = false;
const live = sockets[sockets.length - 1];
live.readyState = 3;
live.onclose();
await first.leave();
const second = joinRoom(config, 'room-b');
await sleep(2500);
const duringOutage = mine().length;
out.sentDuringOutage = duringOutage - out.beforeOutage;

// The relay is back: the socket reconnects (at once: as the page asks when it is online again).
relayUp = true;
const back = Date.now();
retryRelaysNow();
let sentAfter = null;
for (let i = 0; i < 120 && sentAfter === null; i++) {
  await sleep(50);
  const next = mine().slice(duringOutage).find(([t, topic]) => t >= back);
  if (next) sentAfter = next[0] - back;
}
out.announcedAfterReturnMs = sentAfter; // null: not within 6 s

// A room joined now (as room.js does when a relay comes back) announces at once.
await second.leave();
const before = mine().length;
const joined = Date.now();
const third = joinRoom(config, 'room-c');
let fresh = null;
for (let i = 0; i < 60 && fresh === null; i++) {
  await sleep(50);
  const next = mine().slice(before)[0];
  if (next) fresh = next[0] - joined;
}
out.freshRoomAnnouncedMs = fresh; // null: not within 3 s
await third.leave();
console.log(JSON.stringify(out));
process.exit(0);
