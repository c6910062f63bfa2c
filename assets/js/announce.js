// Hidden Chess -- what a screen reader hears: two live regions, polite (#sr-live: moves, reveals,
// draw offers, the end of the game, answers of the move box) and assertive (#sr-alert: refusals,
// low time). The words come from the Session (state.speech, py/hiddenchess/app/speech.py), built
// from what the seat at the device may know; this module only decides when to say them.

import { app } from './state.js';
import { onRender } from './bridge.js';

const heard = { key: null, low: new Set() };
/** Seconds left at which a running clock is announced once. */
const LOW_TIME = [60, 30, 10];

function region(id, live) {
  let el = document.getElementById(id);
  if (!el) {
    el = document.createElement('div');
    el.id = id;
    el.className = 'sr-only';
    el.setAttribute('aria-live', live);
    el.setAttribute('aria-atomic', 'true');
    if (live === 'assertive') el.setAttribute('role', 'alert');
    else el.setAttribute('role', 'status');
    document.body.appendChild(el);
  }
  return el;
}

region('sr-live', 'polite');
region('sr-alert', 'assertive');

/** Say `text` (urgent: at once, interrupting). The same words twice are said twice. */
export function announce(text, { urgent = false } = {}) {
  if (!text) return;
  const el = region(urgent ? 'sr-alert' : 'sr-live', urgent ? 'assertive' : 'polite');
  // (a region whose text does not change is not read again: a no-break space makes it new)
  el.textContent = el.textContent === text ? `${text}\u00a0` : text;
}

/** The words of the state, when they are new (another move, offer, ending or seat), or the
 *  answer of a reading command of the move box. */
export function renderSpeech(st) {
  const sp = st.speech;
  if (!sp) return;
  if (sp.reply) {
    announce(sp.reply);
    return;
  }
  const key = `${st.gameId}|${sp.key}`;
  if (key === heard.key) return;
  heard.key = key;
  region('sr-alert', 'assertive').textContent = ''; // (a refusal belongs to the seat that heard it)
  announce(sp.text);
}

// Low time: a running clock is announced when it passes each of LOW_TIME (the clock's numbers are
// public; the page counts down from the state's `at`, as clock.js does).
function checkClock() {
  const st = app.state;
  const c = st && st.clock;
  if (!c || !c.running || (st.status && st.status.over)) return;
  const now = performance.timeOrigin + performance.now();
  const left = (c[c.running] - (now - c.at)) / 1000;
  for (const limit of LOW_TIME) {
    const id = `${st.gameId}|${c.running}|${limit}`;
    if (left <= limit && left > limit - 5 && !heard.low.has(id)) {
      heard.low.add(id);
      const who = c.running === 'white' ? 'White' : 'Black';
      announce(`${who}: ${limit} seconds left.`, { urgent: true });
    }
  }
}

onRender(renderSpeech);
setInterval(checkClock, 1000);
