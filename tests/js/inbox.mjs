// Hidden Chess -- peer/inbox.js with a fake clock (run by tests/test_inbox.py): the other device's
// messages are handled at once while a window's budget lasts, then wait in order (with the opens
// and closes) for the next window; beyond MAX_PENDING waiting messages the excess is dropped, never
// an open or a close; before the Session is up, everything waits (within the limit). Prints one
// JSON line.
import { BUDGET_MS, Inbox, MAX_PENDING, WINDOW_MS } from '../../assets/js/peer/inbox.js';

let clock = 0;
const timers = [];
const inbox = new Inbox({ now: () => clock, later: (fn, ms) => { const t = { fn, at: clock + ms }; timers.push(t); return t; }, cancel: t => { t.fn = null; } });
const handled = [];
const work = (name, ms) => () => { handled.push(name); clock += ms; };
const out = {};

// Honest traffic: a few messages, each handled at once.
for (let i = 0; i < 3; i++) inbox.push(work(`m${i}`, 5));
out.atOnce = handled.length === 3 && inbox.queue.length === 0;

// A flood: 10 ms each, 3,000 of them in one moment, an open and a close among them.
clock += WINDOW_MS;
handled.length = 0;
const pushed = [];
for (let i = 0; i < 3000; i++) {
  pushed.push(inbox.push(work(i, 10)));
  if (i === 2) inbox.push(work('close', 0), false);
  if (i === 2500) inbox.push(work('open', 0), false);
}
out.handledAtOnce = handled.filter(x => typeof x === 'number').length; // (the window's budget: 5 messages)
out.pending = inbox.pending;
out.dropped = inbox.dropped;
out.refused = pushed.filter(x => !x).length;
// Run the timers: each window handles at most its budget (and one message more, started in budget).
let longest = 0;
while (timers.length) {
  timers.sort((a, b) => a.at - b.at);
  const t = timers.shift();
  if (!t.fn) continue;
  clock = Math.max(clock, t.at);
  const start = clock;
  t.fn();
  longest = Math.max(longest, clock - start);
}
out.longestTurn = longest;
out.budget = BUDGET_MS;
out.inOrder = handled.filter(x => typeof x === 'number').every((x, i, a) => i === 0 || x > a[i - 1]);
out.closeAfter2 = handled.indexOf('close') === handled.indexOf(2) + 1;
out.openKept = handled.includes('open');
out.total = handled.length;
out.maxPending = MAX_PENDING;

// clear(): what waits is forgotten (another game on screen).
handled.length = 0;
for (let i = 0; i < 50; i++) inbox.push(work(i, 10));
const before = handled.length;
inbox.clear();
for (const t of timers.splice(0)) if (t.fn) t.fn();
out.cleared = handled.length === before && inbox.pending === 0;

// Before the Session is up: nothing is handled, everything waits (within the limit), in order.
let up = false;
const early = new Inbox({ now: () => clock, ready: () => up, later: (fn, ms) => { const t = { fn, at: clock + ms }; timers.push(t); return t; }, cancel: t => { t.fn = null; } });
handled.length = 0;
early.push(work('open', 0), false);
for (let i = 0; i < 1500; i++) early.push(work(i, 1));
out.early = { handled: handled.length, pending: early.pending, dropped: early.dropped };
for (let round = 0; round < 3; round++) { // (its timer comes back while the Session is not up)
  const t = timers.shift();
  clock = Math.max(clock, t.at);
  t.fn();
}
out.early.stillWaiting = handled.length === 0 && timers.length === 1;
up = true;
while (timers.length) {
  const t = timers.shift();
  if (!t.fn) continue;
  clock = Math.max(clock, t.at);
  t.fn();
}
out.early.after = handled.length;
out.early.openFirst = handled[0] === 'open' && handled[1] === 0 && handled[handled.length - 1] === 999;
console.log(JSON.stringify(out));
