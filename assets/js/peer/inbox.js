// Hidden Chess -- what arrives from the other device, paced (pure: no DOM, no network; the clock
// and the timer are given). friend.js hands each message of the friend's device to the Session
// (`peer_receive`: the protocol's checks, a save, a render: about 9 ms a message on the test
// machine). A hostile device that flooded its data channel (3,000 junk messages in half a second,
// a red team of 2026-12-07) froze the honest page for 26 s, its connection dropping meanwhile.
//
// Now the handling of one WINDOW_MS takes at most BUDGET_MS of it: what arrives beyond that waits
// for the next window (in order, with the connection's open and close events), so the page keeps
// drawing and taking clicks. At most MAX_PENDING messages wait: beyond that the device floods (an
// honest page sends a few messages a move, and a resync a few hundred at most), and the excess is
// dropped, counted in `dropped`. Honest traffic never waits: a message is handled at once while
// the window's budget lasts.

export const WINDOW_MS = 100;
export const BUDGET_MS = 50;
export const MAX_PENDING = 1000;

export class Inbox {
  /** now() -> ms; later(fn, ms) -> a timer (schedules fn once); cancel(timer); ready() -> whether
   * anything may be handled yet (the Session is up: until then everything waits, within the limit). */
  constructor({ now = () => performance.now(), later = (fn, ms) => setTimeout(fn, ms), cancel = t => clearTimeout(t), ready = () => true } = {}) {
    Object.assign(this, { now, later, cancel, ready });
    this.queue = []; // [fn, isMessage]
    this.pending = 0; // messages in the queue
    this.dropped = 0; // messages dropped (MAX_PENDING waiting already)
    this.windowAt = -Infinity;
    this.spent = 0; // ms of handling in the current window
    this.timer = null;
  }

  /** Handle `fn` now, or once the messages before it are handled; `message`: it is one of the
   * other device's messages (dropped when MAX_PENDING wait already; an open or close never is).
   * Returns false when dropped. */
  push(fn, message = true) {
    if (!this.queue.length && this._budget()) {
      this._run(fn);
      return true;
    }
    if (message && this.pending >= MAX_PENDING) {
      this.dropped += 1;
      return false;
    }
    this.queue.push([fn, message]);
    if (message) this.pending += 1;
    this._schedule();
    return true;
  }

  /** Forget what waits (another game is on screen). */
  clear() {
    this.queue = [];
    this.pending = 0;
    if (this.timer !== null) this.cancel(this.timer);
    this.timer = null;
  }

  /** Whether the current window has budget left (a new window starts with its full budget). */
  _budget() {
    if (!this.ready()) return false;
    const now = this.now();
    if (now - this.windowAt >= WINDOW_MS) {
      this.windowAt = now;
      this.spent = 0;
    }
    return this.spent < BUDGET_MS;
  }

  _run(fn) {
    const t0 = this.now();
    try {
      fn();
    } finally {
      this.spent += this.now() - t0;
    }
  }

  _schedule() {
    if (this.timer !== null) return;
    const wait = this.ready() ? Math.max(0, this.windowAt + WINDOW_MS - this.now()) : WINDOW_MS;
    this.timer = this.later(() => this._drain(), wait);
  }

  _drain() {
    this.timer = null;
    while (this.queue.length && this._budget()) {
      const [fn, message] = this.queue.shift();
      if (message) this.pending -= 1;
      try {
        this._run(fn);
      } catch (e) {
        console.error(e);
      }
    }
    if (this.queue.length) this._schedule();
  }
}
