// Hidden Chess -- the clocks: counted down on the page between states; when one reaches zero the
// Session is asked (tick), which decides (and ends the game on a flag).

import { isOver, playerEl } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';

const LOW_TIME_MS = 20000;
const ticks = { last: 0 }; // when the Session was last asked
// Low time is announced once per game and side ("hc:lowtime": sound.js), when a running clock of a
// player (not the computer) falls under LOW_TIME_MS.
const low = { game: null, told: new Set() };

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
    // Written only when it changes: the same text written again is a change to the page all the
    // same, and ten a second kept it drawing ten frames a second (a tenth of a core without a GPU).
    const time = el.querySelector('.time');
    const text = fmtClock(ms);
    if (time.textContent !== text) time.textContent = text;
    const running = !over && st.clock.running === color;
    el.classList.toggle('is-running', running);
    el.classList.toggle('is-low', ms < LOW_TIME_MS);
    if (low.game !== st.gameId) {
      low.game = st.gameId;
      low.told = new Set(['white', 'black'].filter(c => remaining(st.clock, c, now) < LOW_TIME_MS));
    }
    const human = !st.computer || st.computer.seat !== color;
    if (running && human && ms > 0 && ms < LOW_TIME_MS && !low.told.has(color)) {
      low.told.add(color);
      document.dispatchEvent(new CustomEvent('hc:lowtime', { detail: { color } }));
    }
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
