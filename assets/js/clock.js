// Hidden Chess -- the clocks: counted down on the page between states; when one reaches zero the
// Session is asked (tick), which decides (and ends the game on a flag).

import { isOver, playerEl } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';

const LOW_TIME_MS = 20000;
const ticks = { last: 0 }; // when the Session was last asked

export function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < LOW_TIME_MS) {
    const tenths = Math.floor(ms / 100);
    const s = Math.floor(tenths / 10);
    return `0:${String(s).padStart(2, '0')}.${tenths % 10}`;
  }
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
}

function remaining(clock, color, now) {
  let ms = clock[color];
  if (clock.running === color) ms -= now - clock.at;
  return Math.max(0, ms);
}

export function updateClocks() {
  const st = app.state;
  if (!st || !st.clock) return;
  const now = performance.timeOrigin + performance.now(); // the Session's time base (py/main.py)
  const over = isOver(st);
  let flagged = false;
  for (const color of ['white', 'black']) {
    const el = playerEl(color).querySelector('.clock');
    const ms = remaining(st.clock, color, now);
    el.querySelector('.time').textContent = fmtClock(ms);
    const running = !over && st.clock.running === color;
    el.classList.toggle('is-running', running);
    el.classList.toggle('is-low', ms < LOW_TIME_MS);
    el.classList.toggle('is-flagged', ms <= 0 && (over || running));
    if (running && ms <= 0) flagged = true;
  }
  // The display reached zero: ask the Session, which decides (and ends the game on a flag).
  if (flagged && app.ready && now - ticks.last > 250) {
    ticks.last = now;
    call('tick');
  }
}

export function startClocks() {
  setInterval(updateClocks, 100);
}
