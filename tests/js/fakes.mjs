// Hidden Chess -- fakes shared by the Node checks of tests/js/: a relay socket that opens or is
// refused as the script says, and timers the script fires by hand.

/**
 * A WebSocket class whose sockets open when `up()` is true and are refused (closed) otherwise,
 * a microtask after they are made, or `laterMs` later on the real clock. `onSend(socket, data)`
 * sees what is sent. Returns {FakeWS, counts: {created, opened}}.
 */
export function fakeSocketClass(up, { laterMs = null, onSend = null } = {}) {
  const counts = { created: 0, opened: 0 };
  class FakeWS {
    constructor(url) {
      counts.created += 1;
      this.url = url;
      this.readyState = 0;
      const settle = () => {
        if (up()) {
          this.readyState = 1;
          counts.opened += 1;
          if (this.onopen) this.onopen();
        } else {
          this.readyState = 3;
          if (this.onclose) this.onclose();
        }
      };
      if (laterMs === null) queueMicrotask(settle);
      else setTimeout(settle, laterMs);
    }
    send(data) {
      if (onSend) onSend(this, data);
    }
    close() {}
  }
  return { FakeWS, counts };
}

/** setTimeout / clearTimeout replaced by timers kept in `timers` (each {fn, ms, cancelled}), every
 * delay asked for in `delays`; the script fires them. */
export function manualTimers() {
  const timers = [];
  const delays = [];
  globalThis.setTimeout = (fn, ms) => {
    const t = { fn, ms, cancelled: false };
    delays.push(ms);
    timers.push(t);
    return t;
  };
  globalThis.clearTimeout = t => {
    if (t) t.cancelled = true;
  };
  return { timers, delays };
}
