// Hidden Chess -- sounds for a move, a capture, a check, a reveal, low time and the game's end.
// Two sets, chosen in Settings (settings.js "soundSet", remembered): "recorded" (the default) plays
// recordings of real pieces for a move, a capture, a check and the end (assets/sounds/recorded/,
// each file's source and licence in assets/sounds/LICENSES.md); "synth" synthesises every sound
// with the Web Audio API. A reveal and low time are synthesised in both; so is a recorded sound
// whose file is not loaded (yet, or at all: offline without it, a browser that cannot decode it).
// Which sound a new state calls for is read from the state the page already shows (the last move's
// notation, its reveal flag, the result); low time comes from the clocks (clock.js:
// "hc:lowtime"). Muted with the speaker button or in Settings (remembered: settings.js).

import { app } from './state.js';

// name -> the notes played: [frequency Hz, start s, length s, wave, volume]
const NOTES = {
  move: [[520, 0, 0.05, 'triangle', 0.22]],
  capture: [[300, 0, 0.07, 'square', 0.12], [190, 0.035, 0.09, 'triangle', 0.2]],
  check: [[740, 0, 0.08, 'triangle', 0.2], [988, 0.09, 0.11, 'triangle', 0.2]],
  reveal: [[660, 0, 0.09, 'sine', 0.2], [880, 0.08, 0.09, 'sine', 0.18], [1320, 0.16, 0.16, 'sine', 0.15]],
  lowtime: [[1040, 0, 0.07, 'square', 0.08], [1040, 0.16, 0.07, 'square', 0.08]],
  end: [[392, 0, 0.32, 'sine', 0.18], [494, 0.06, 0.32, 'sine', 0.16], [587, 0.12, 0.42, 'sine', 0.16]],
};

/** The recorded sounds: name -> file (fetched and decoded once, when sound is first allowed). */
export const RECORDED = {
  move: 'assets/sounds/recorded/move.mp3',
  capture: 'assets/sounds/recorded/capture.mp3',
  check: 'assets/sounds/recorded/check.mp3',
  end: 'assets/sounds/recorded/end.mp3',
};
const RECORDED_VOLUME = 0.8;

const audio = { ctx: null, last: null, buffers: {}, loading: null, idle: null };

// A running AudioContext renders silence for as long as it runs: Chromium's audio service took
// about 2 % of a core for it on the test machine, for the rest of the visit after the first sound,
// and a phone keeps its audio output awake. So the context is suspended this long after the last
// sound began, and resumed by the next (context()).
export const IDLE_SUSPEND_MS = 3000;

function suspendWhenIdle(ctx) {
  clearTimeout(audio.idle);
  audio.idle = setTimeout(() => {
    if (ctx.state === 'running' && ctx.suspend) ctx.suspend().catch(() => {});
  }, IDLE_SUSPEND_MS);
}

function context() {
  if (!audio.ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    try {
      audio.ctx = new AC();
    } catch {
      return null;
    }
  }
  if (audio.ctx.state === 'suspended' && audio.ctx.resume) audio.ctx.resume().catch(() => {});
  suspendWhenIdle(audio.ctx);
  return audio.ctx;
}

const soundOn = () => !app.settings || app.settings.sound !== false;
const recordedOn = () => !app.settings || app.settings.soundSet !== 'synth';

/** Fetch and decode the recorded sounds, once (each one that fails is left to the synthesiser). */
function loadRecorded(ctx) {
  if (audio.loading || !ctx || !ctx.decodeAudioData) return audio.loading;
  audio.loading = Promise.all(Object.entries(RECORDED).map(async ([name, url]) => {
    try {
      const response = await fetch(new URL(url, document.baseURI));
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const bytes = await response.arrayBuffer();
      audio.buffers[name] = await new Promise((resolve, reject) => {
        const done = ctx.decodeAudioData(bytes, resolve, reject);
        if (done && done.then) done.then(resolve, reject);
      });
    } catch (err) {
      console.warn(`Hidden Chess: the recorded ${name} sound could not be loaded (${err && err.message}); it is synthesised instead.`);
    }
  }));
  return audio.loading;
}

function playBuffer(ctx, buffer) {
  const source = ctx.createBufferSource();
  const gain = ctx.createGain();
  source.buffer = buffer;
  gain.gain.value = RECORDED_VOLUME;
  source.connect(gain);
  gain.connect(ctx.destination);
  source.start(ctx.currentTime + 0.005);
}

/** Play one of the sounds by name (nothing when muted or without Web Audio). */
export function playSound(name) {
  const notes = NOTES[name];
  if (!notes || !soundOn()) return false;
  const ctx = context();
  if (!ctx) return false;
  if (recordedOn()) {
    loadRecorded(ctx);
    if (audio.buffers[name]) {
      playBuffer(ctx, audio.buffers[name]);
      return true;
    }
  }
  const t0 = ctx.currentTime + 0.01;
  for (const [freq, at, len, wave, vol] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(vol, t0 + at);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
    osc.connect(gain);
    gain.connect(ctx.destination);
    osc.start(t0 + at);
    osc.stop(t0 + at + len + 0.02);
  }
  return true;
}

/** Play a move's sound in the chosen set, its file loaded first (Settings: heard as it is chosen). */
export async function previewSound() {
  const ctx = soundOn() ? context() : null;
  if (ctx && recordedOn()) await loadRecorded(ctx);
  return playSound('move');
}

/** The sound a new state calls for after the one before it (null: none). */
export function soundFor(prev, st) {
  if (!st || st.replay || !prev || prev.gameId !== st.gameId) return null;
  const over = !!(st.status && st.status.over);
  if (over && !(prev.status && prev.status.over)) return 'end';
  const before = (prev.moves || []).length;
  const moves = st.moves || [];
  if (moves.length <= before) return null;
  const last = moves[moves.length - 1];
  const san = last.san || '';
  if (last.reveal) return 'reveal';
  if (san.includes('+') || st.check) return 'check';
  if (san.includes('x')) return 'capture';
  return 'move';
}

/** Render hook: the sound of what changed since the last state drawn. */
export function renderSound(st) {
  const prev = audio.last;
  audio.last = st && !st.replay ? { gameId: st.gameId, moves: { length: (st.moves || []).length }, status: st.status } : prev;
  if (!prev || !st) return;
  const name = soundFor({ gameId: prev.gameId, moves: new Array(prev.moves.length), status: prev.status }, st);
  if (name) playSound(name);
}

export function startSound() {
  document.addEventListener('hc:lowtime', () => playSound('lowtime'));
  // Browsers start audio only after a gesture: the first click or key unlocks it.
  const unlock = () => {
    if (soundOn() && recordedOn()) loadRecorded(context());
    else if (soundOn()) context();
    document.removeEventListener('pointerdown', unlock, true);
    document.removeEventListener('keydown', unlock, true);
  };
  document.addEventListener('pointerdown', unlock, true);
  document.addEventListener('keydown', unlock, true);
}
