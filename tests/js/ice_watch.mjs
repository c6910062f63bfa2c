// Hidden Chess -- when a friend link says "Your network blocks direct connections" (issue #24),
// checked in Node on room.js's watchedConnection() with a fake RTCPeerConnection and a captured
// timer (run by tests/test_relay_retry.py): a connection that fails, or is not up 10 s after its
// set-up was exchanged, without ever having been up, is an ICE failure; one that was up and then
// failed (the friend reloaded or left) is not. Prints one JSON line: {case: failures counted}.

const root = new URL('../../', import.meta.url);

class FakePeerConnection extends EventTarget {
  constructor() {
    super();
    this.connectionState = 'new';
  }

  setRemoteDescription() { return Promise.resolve(); }

  close() { this.connectionState = 'closed'; }

  to(state) {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
}
globalThis.RTCPeerConnection = FakePeerConnection;
const { watchedConnection } = await import(new URL('assets/js/signal/room.js', root).href);

const timers = [];
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = (fn, ms) => { timers.push({ fn, ms }); return timers.length; };
globalThis.clearTimeout = id => { if (timers[id - 1]) timers[id - 1].fn = null; };
const fire = () => timers.splice(0).forEach(t => t.fn && t.fn());

function run(steps) {
  let failures = 0;
  const Watched = watchedConnection(() => { failures += 1; });
  const pc = new Watched({});
  pc.setRemoteDescription({});
  steps(pc);
  return failures;
}

const out = {
  neverUpThenFailed: run(pc => { pc.to('connecting'); pc.to('failed'); }),
  neverUpAfterTenSeconds: run(pc => { pc.to('connecting'); fire(); }),
  upThenFailed: run(pc => { pc.to('connecting'); pc.to('connected'); pc.to('disconnected'); pc.to('failed'); }),
  upThenTimerWouldFire: run(pc => { pc.to('connected'); pc.to('disconnected'); fire(); }),
  closedBeforeTenSeconds: run(pc => { pc.close(); fire(); }),
  timerMs: null,
};
run(() => { out.timerMs = timers.length ? timers[timers.length - 1].ms : null; });
globalThis.setTimeout = realSetTimeout;
console.log(JSON.stringify(out));
