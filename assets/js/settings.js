// Hidden Chess -- the page's settings, remembered in this browser (localStorage
// "hiddenchess:settings"): board colours, piece set, light or dark (following the system by
// default), coordinates, animation speed, sound; auto-flip is the game's own option (the Session
// keeps it). They change how the page looks and sounds, never the game. index.html applies the
// colours before the first paint (the same key), so a reload does not flash the defaults.

import { $ } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { previewSound } from './sound.js';

const KEY = 'hiddenchess:settings';
export const BOARDS = ['brown', 'blue', 'green', 'grey'];
// (assets/pieces/: each set's source and licence in LICENSES.md; theme-early.js lists them too)
export const PIECES = ['cburnett', 'merida', 'celtic', 'fantasy', 'spatial'];
const THEMES = ['auto', 'light', 'dark'];
// The sounds: recordings (assets/sounds/) or the synthesised ones (sound.js).
const SOUND_SETS = ['recorded', 'synth'];
const SPEEDS = { normal: 180, fast: 80, off: 0 };
const SPEAKER = '<path fill="currentColor" d="M4 9h4l5-4v14l-5-4H4z"/>';
const SPEAKER_ON = `<svg viewBox="0 0 24 24" aria-hidden="true">${SPEAKER}<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`;
const SPEAKER_OFF = `<svg viewBox="0 0 24 24" aria-hidden="true">${SPEAKER}<path d="M16 9l5 6M21 9l-5 6" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`;
// The game last chosen (the start screen's row, the New game dialog): level and colour against the
// computer, and the clock; the one-click default is level 2, White, no clock.
const DEFAULTS = {
  board: 'brown', pieces: 'cburnett', theme: 'auto', coords: true, anim: 'normal', sound: true,
  soundSet: 'recorded', level: 2, color: 'white', clock: 'none',
};
const LEVELS = [1, 2, 3, 4, 5];
const COLORS = ['white', 'black', 'random'];
const CLOCK_RE = /^\d{1,3}(\.\d{1,2})?\+\d{1,3}$/;

/** The saved settings, each checked (an unknown or damaged value falls back to its default). */
export function loadSettings() {
  let saved = {};
  try {
    const v = JSON.parse(window.localStorage.getItem(KEY) || '{}');
    if (v && typeof v === 'object' && !Array.isArray(v)) saved = v;
  } catch {
    saved = {};
  }
  const pick = (key, allowed) => (allowed.includes(saved[key]) ? saved[key] : DEFAULTS[key]);
  return {
    board: pick('board', BOARDS),
    pieces: pick('pieces', PIECES),
    theme: pick('theme', THEMES),
    coords: typeof saved.coords === 'boolean' ? saved.coords : DEFAULTS.coords,
    anim: pick('anim', Object.keys(SPEEDS)),
    sound: typeof saved.sound === 'boolean' ? saved.sound : DEFAULTS.sound,
    soundSet: pick('soundSet', SOUND_SETS),
    level: pick('level', LEVELS),
    color: pick('color', COLORS),
    clock: saved.clock === 'none' || (typeof saved.clock === 'string' && CLOCK_RE.test(saved.clock)) ? saved.clock : DEFAULTS.clock,
  };
}

/** The game last chosen: {level, color, clock} ("none" or "minutes+increment"). */
export function gameChoice() {
  const { level, color, clock } = loadSettings();
  return { level, color, clock };
}

/** Remember the game chosen (only what is valid; false when storage is full or blocked). */
export function rememberGameChoice(choice) {
  const s = loadSettings();
  if (LEVELS.includes(choice.level)) s.level = choice.level;
  if (COLORS.includes(choice.color)) s.color = choice.color;
  if (choice.clock === 'none' || (typeof choice.clock === 'string' && CLOCK_RE.test(choice.clock))) s.clock = choice.clock;
  return saveSettings(s);
}

function saveSettings(s) {
  try {
    window.localStorage.setItem(KEY, JSON.stringify(s));
    return true;
  } catch {
    return false; // storage full or blocked: applied for this visit only
  }
}

const darkMedia = () => window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)');

function resolvedTheme(s) {
  if (s.theme !== 'auto') return s.theme;
  const m = darkMedia();
  return m && !m.matches ? 'light' : 'dark';
}

/** Apply settings to the page and the board (and remember them with save). */
export function applySettings(s, { save = false } = {}) {
  app.settings = { ...s, animMs: SPEEDS[s.anim] };
  const root = document.documentElement;
  root.dataset.theme = resolvedTheme(s);
  root.dataset.board = s.board;
  root.dataset.pieces = s.pieces;
  if (app.cg) {
    app.cg.set({ coordinates: s.coords, animation: { enabled: s.anim !== 'off', duration: SPEEDS[s.anim] } });
    app.cg.redrawAll();
  }
  renderMute();
  if (save && !saveSettings(s)) $('settings-note').textContent = 'Could not remember these settings (storage is full or blocked).';
}

function renderMute() {
  const on = !app.settings || app.settings.sound;
  const b = $('btn-mute');
  b.setAttribute('aria-pressed', on ? 'false' : 'true');
  b.setAttribute('aria-label', on ? 'Sound on: mute' : 'Sound off: unmute');
  b.title = on ? 'Mute sounds' : 'Turn sounds on';
  b.innerHTML = on ? SPEAKER_ON : SPEAKER_OFF;
}

function fillForm(s) {
  const f = $('form-settings');
  for (const [name, value] of Object.entries(s)) {
    for (const input of f.querySelectorAll(`[name="${name}"]`)) {
      if (input.type === 'checkbox') input.checked = !!value;
      else input.checked = input.value === String(value);
    }
  }
  $('set-autoflip').checked = !!(app.state && app.state.autoFlip);
  $('settings-note').textContent = '';
}

function readForm() {
  const f = new FormData($('form-settings'));
  return {
    board: f.get('board'),
    pieces: f.get('pieces'),
    theme: f.get('theme'),
    coords: f.get('coords') === 'on',
    anim: f.get('anim'),
    sound: f.get('sound') === 'on',
    soundSet: f.get('soundSet'),
  };
}

export function openSettings() {
  fillForm(loadSettings());
  $('dlg-settings').showModal();
  const first = $('form-settings').querySelector('input:checked');
  if (first) first.focus();
}

export function startSettings() {
  applySettings(loadSettings());
  $('btn-settings').addEventListener('click', openSettings);
  $('btn-mute').addEventListener('click', () => {
    const s = { ...loadSettings(), sound: !(app.settings && app.settings.sound) };
    applySettings(s, { save: true });
  });
  $('form-settings').addEventListener('change', e => {
    if (e.target.id === 'set-autoflip') {
      call('set_auto_flip', { on: e.target.checked });
      return;
    }
    const s = { ...loadSettings(), ...readForm() };
    applySettings(s, { save: true });
    if (e.target.name === 'soundSet') previewSound();
  });
  $('settings-close').addEventListener('click', () => $('dlg-settings').close());
  const m = darkMedia();
  if (m && m.addEventListener) m.addEventListener('change', () => applySettings(loadSettings()));
}
