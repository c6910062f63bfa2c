// Hidden Chess -- dialogs: "are you sure?" and the new-game dialog. The variants and their
// options come from the Session (state.variantMenu: [{id, name, summary, options: [{key,
// label}], ids: {"": id, "rk": id, "rk,tt": id, ...}}]; the game's own choice is
// state.options.menu: {id, options: [keys]}); which of them the computer and a friend can play
// is state.computerVariants and state.friendVariants.

import { $, COLOR_NAMES, foeWords, gameFocus, isOver } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { hideToasts } from './toast.js';
import { gameChoice, rememberGameChoice } from './settings.js';

const FRIEND_NOTE = 'Play on another device with a link. No server; every secret is checked at the end.';
export const OFFLINE_NOTE = 'Needs a network: this device is offline. Play on this device or against the computer meanwhile.';

/** Asks `title`: resolves true for `yesLabel` (red unless `danger` is false), false for `noLabel`
 * or Escape. The focus starts on `noLabel`. */
export function confirmDialog(title, text, yesLabel, { noLabel = 'Cancel', danger = true } = {}) {
  return new Promise(resolve => {
    const dlg = $('dlg-confirm');
    $('confirm-title').textContent = title;
    $('confirm-text').textContent = text;
    $('confirm-yes').textContent = yesLabel;
    $('confirm-yes').classList.toggle('btn-danger', danger);
    $('confirm-yes').classList.toggle('btn-primary', !danger);
    $('confirm-no').textContent = noLabel;
    const done = answer => {
      $('confirm-yes').onclick = $('confirm-no').onclick = null;
      dlg.onclose = null;
      if (dlg.open) dlg.close();
      resolve(answer);
    };
    $('confirm-yes').onclick = () => done(true);
    $('confirm-no').onclick = () => done(false);
    dlg.onclose = () => done(false);
    dlg.showModal();
    $('confirm-no').focus();
  });
}

/** Before another game takes this page: a game with a friend whose clock runs goes on without it
 * (QA: the host left for a new invite, unwarned, and the friend saw only "Connection lost").
 * Asks first; resolves true to go on (at once when there is no such game). `otherwise`: the
 * caller's own question, [title, text, yes label, options] ("Import a game?"), asked instead when
 * this one is not (QA: both came one after the other, and this one already says the game is kept). */
export async function mayLeave(otherwise = null) {
  const st = app.state;
  // (a friend game's clock starts with the moves: before one, leaving costs nothing)
  if (!st || !st.peer || !st.clock || isOver(st) || st.peer.status === 'over' || !(st.moves || []).length) {
    return otherwise ? confirmDialog(...otherwise) : true;
  }
  return confirmDialog('Leave this game?', foeWords(st.peer.stranger, 'The game with your friend goes on while you are away: the clocks keep running, and you may lose on time. It stays in Your games.'), 'Leave', { noLabel: 'Stay' });
}

/** Take back the last move, as the Take back button does: on one device the other player agrees
 * first (state.takeback: who asks, who agrees, the move); against the computer at once. Resolves
 * true once asked of the Session. Also the move box's `takeback`. */
export async function takeBack() {
  const t = app.state && app.state.takeback;
  if (t) {
    const ok = await confirmDialog(`${COLOR_NAMES[t.by]} asks to take back ${t.san}`,
      `${COLOR_NAMES[t.agree]}, do you agree? The move is undone and ${COLOR_NAMES[t.by]} moves again.`, 'Agree',
      { noLabel: 'Decline', danger: false }); // (a question between players, not a risk)
    if (!ok) return false;
  }
  call('takeback');
  return true;
}

/** "Resign?" in the words the result will use ("You resign — Computer wins"): against the
 * computer or a friend the opponent wins; on one device the colour `color` loses. Resolves true
 * to resign. Asked by the resign buttons and by the move box's `resign`. */
export function askResign(color) {
  const st = app.state || {};
  const foe = st.computer ? 'The computer' : st.peer ? foeWords(st.peer.stranger, 'Your friend') : null;
  return foe
    ? confirmDialog('Resign?', `${foe} wins the game.`, 'Resign')
    : confirmDialog(`Resign as ${COLOR_NAMES[color]}?`, `${COLOR_NAMES[color]} loses the game.`, 'Resign');
}

// ------------------------------------------------------------------ the variant menu

const form = () => $('form-new');
const menu = () => (app.state && app.state.variantMenu) || [];
const checkedVariant = () => form().querySelector('input[name=variant]:checked');
const optionBox = key => form().querySelector(`input[data-option="${key}"]`);

// The menu's entries and options that index.html does not list yet (a new variant) get a radio
// button or a toggle of their own, after the last variant / option already there.
function completeMenu() {
  const group = form().querySelector('input[name=variant]').closest('fieldset');
  for (const entry of menu()) {
    if (!form().querySelector(`input[name=variant][value="${CSS.escape(entry.id)}"]`)) {
      const label = document.createElement('label');
      label.className = 'choice';
      const input = Object.assign(document.createElement('input'), { type: 'radio', name: 'variant', value: entry.id });
      const body = document.createElement('span');
      body.className = 'choice-body';
      body.append(Object.assign(document.createElement('strong'), { textContent: entry.name }));
      if (entry.summary) body.append(Object.assign(document.createElement('small'), { textContent: entry.summary }));
      label.append(input, body);
      const choices = group.querySelectorAll('label.choice');
      choices[choices.length - 1].after(label);
    }
    for (const opt of entry.options || []) {
      if (optionBox(opt.key)) continue;
      const label = document.createElement('label');
      label.className = 'toggle toggle-sub';
      label.id = `${opt.key}-toggle`;
      label.dataset.variant = entry.id;
      const input = Object.assign(document.createElement('input'), { type: 'checkbox', id: `new-${opt.key}` });
      input.dataset.option = opt.key;
      const text = opt.label.charAt(0).toUpperCase() + opt.label.slice(1);
      label.append(input, Object.assign(document.createElement('span'), { textContent: text }));
      $('variant-options').appendChild(label);
    }
  }
}

// The variant id the dialog names: the chosen entry with its ticked options.
function chosenVariant() {
  const v = checkedVariant();
  if (!v) return null;
  const entry = menu().find(e => e.id === v.value);
  if (!entry) return v.value;
  // The ticked option keys, comma-joined in the menu's order (the key of entry.ids).
  const keys = (entry.options || []).map(o => o.key).filter(k => optionBox(k) && optionBox(k).checked);
  const ids = entry.ids || {};
  return ids[keys.join(',')] || ids[[...keys].sort().join(',')] || v.value;
}

// Options apply to the variant that has them: shown under the variants for the chosen one only
// (the others' are hidden and disabled).
function syncOptions() {
  const v = checkedVariant();
  const entry = v ? menu().find(e => e.id === v.value) : null;
  const mine = new Set(((entry && entry.options) || []).map(o => o.key));
  for (const box of form().querySelectorAll('input[data-option]')) {
    box.disabled = !mine.has(box.dataset.option);
    box.closest('label').hidden = box.disabled;
  }
  const box = $('variant-options');
  box.hidden = !mine.size;
  if (entry && mine.size) box.setAttribute('aria-label', `Options of ${entry.name}`);
}

// ------------------------------------------------------------------ the new-game dialog

export function openNewGame() {
  const dlg = $('dlg-new');
  const f = form();
  // The variants a friend can play: asked for once (the Session loads the peer protocol only then).
  if (app.state && !app.state.friendVariants) call('catalog', {}, { quiet: true });
  const st = app.state;
  completeMenu();
  $('new-error').hidden = true;
  if (st && st.options) {
    const o = st.options;
    const chosen = o.menu || { id: o.variant, options: [] };
    const v = f.querySelector(`input[name=variant][value="${CSS.escape(chosen.id || '')}"]`);
    if (v) v.checked = true;
    for (const box of f.querySelectorAll('input[data-option]')) box.checked = (chosen.options || []).includes(box.dataset.option);
    // (a game with a stranger is quick play's, not an invite's: QA found "Invite a friend" chosen)
    const mode = o.mode === 'friend' && st.peer && st.peer.stranger ? 'quick' : o.mode;
    const m = f.querySelector(`input[name=mode][value="${mode}"]`);
    if (m && !m.disabled) m.checked = true;
    $('new-autoflip').checked = !!st.autoFlip;
  }
  // Level, colour and clock: the game last chosen (the start screen's row, this dialog), as the
  // one-click start uses them; against the computer, the current game's own level and colour.
  const choice = gameChoice();
  const computerGame = !!(st && st.options && st.options.mode === 'computer');
  const level = computerGame ? st.options.level : choice.level;
  const color = computerGame ? st.options.color : choice.color;
  const lv = f.querySelector(`input[name=level][value="${level}"]`);
  if (lv) lv.checked = true;
  const col = f.querySelector(`input[name=color][value="${color}"]`);
  if (col) col.checked = true;
  setClock(choice.clock);
  let warn = f.querySelector('.form-warning');
  const inProgress = st && !isOver(st) && (st.moves || []).length > 0;
  if (inProgress && !warn) {
    warn = document.createElement('p');
    warn.className = 'form-warning';
    warn.textContent = 'The game in progress is kept in Your games: the new game starts beside it.';
    f.querySelector('h2').after(warn);
  } else if (!inProgress && warn) {
    warn.remove();
  }
  syncDialog();
  f.dispatchEvent(new Event('hc:opened')); // (quick-ui.js syncs its own choice)
  dlg.showModal();
  (f.querySelector('input[name=variant]:checked') || f.querySelector('input')).focus();
}

function setClock(clock) {
  const f = form();
  const preset = f.querySelector(`input[name=clock][value="${CSS.escape(clock)}"]`);
  if (preset) {
    preset.checked = true;
    return;
  }
  const [minutes, increment] = clock.split('+').map(Number);
  f.querySelector('input[name=clock][value=custom]').checked = true;
  $('clock-minutes').value = String(minutes);
  $('clock-increment').value = String(increment);
}

function syncDialog() {
  syncCustomClock();
  syncOptions();
  syncComputer();
  syncFriend();
}

function syncCustomClock() {
  const custom = form().querySelector('input[name=clock][value=custom]').checked;
  $('custom-clock').classList.toggle('is-off', !custom);
  $('clock-minutes').disabled = !custom;
  $('clock-increment').disabled = !custom;
}

// "Against the computer" only for the variants the computer plays (the Session's list).
function syncComputer() {
  const f = form();
  const variant = checkedVariant();
  const supported = (app.state && app.state.computerVariants) || [];
  const ok = !!variant && supported.includes(chosenVariant());
  const input = f.querySelector('input[name=mode][value=computer]');
  input.disabled = !ok;
  $('choice-computer').classList.toggle('is-disabled', !ok);
  const name = variant ? variant.closest('label').querySelector('strong').textContent.trim() : '';
  $('computer-note').textContent = ok
    ? 'You play one side, the computer the other.'
    : `The computer does not play ${name} yet.`;
  if (!ok && input.checked) f.querySelector('input[name=mode][value=local]').checked = true;
  $('computer-options').hidden = !input.checked;
}

// "Invite a friend": its own colour choice, for the variants the Session plays with a friend.
function syncFriend() {
  const f = form();
  const input = f.querySelector('input[name=mode][value=friend]');
  const variant = chosenVariant();
  const supported = (app.state && app.state.friendVariants) || [];
  const online = navigator.onLine !== false; // (offline: no friend can be reached, say why)
  const ok = (!variant || supported.includes(variant)) && online;
  input.disabled = !ok;
  $('choice-friend').classList.toggle('is-disabled', !ok);
  $('friend-note').textContent = !online ? OFFLINE_NOTE : ok ? FRIEND_NOTE : 'Not available for this variant yet.';
  if (!ok && input.checked) f.querySelector('input[name=mode][value=local]').checked = true;
  $('friend-options').hidden = !input.checked;
  $('new-start').textContent = input.checked ? 'Create the invite' : 'Start game';
}

/** The custom clock's two fields as `{minutes, increment}`; an Error naming the field to fix when
 * one is empty or outside its range (the fields' own min and max: the engine's limits). */
export function customClock() {
  const minutes = $('clock-minutes');
  const increment = $('clock-increment');
  if (!minutes.value.trim() || !minutes.checkValidity()) {
    throw new Error(`Enter the minutes, from ${minutes.min} to ${minutes.max}.`);
  }
  if (!increment.value.trim() || !increment.checkValidity()) {
    throw new Error(`Enter the increment in whole seconds, from ${increment.min} to ${increment.max}.`);
  }
  return { minutes: Number(minutes.value), increment: Number(increment.value) };
}

async function startNewGame(e) {
  e.preventDefault();
  const f = new FormData(form());
  let clock = f.get('clock');
  if (clock === 'custom') {
    try {
      clock = customClock();
    } catch (err) {
      $('new-error').textContent = err.message;
      $('new-error').hidden = false;
      return;
    }
  }
  const options = {
    variant: chosenVariant(),
    mode: f.get('mode') || 'local',
    clock,
    autoflip: $('new-autoflip').checked,
  };
  if (options.mode === 'computer') {
    options.level = Number(f.get('level') || 2);
    options.color = f.get('color') || 'white';
  }
  if (options.mode === 'friend') options.color = f.get('fcolor') || 'white';
  if (!(await mayLeave())) return;
  const st = call('new_game', options, { quiet: true }); // an error is shown in the dialog itself
  if (st && st.error) {
    $('new-error').textContent = st.error;
    $('new-error').hidden = false;
    return;
  }
  if (st) {
    const label = typeof clock === 'string' ? clock : `${clock.minutes}+${clock.increment}`;
    rememberGameChoice({ level: options.level, color: options.color, clock: label });
    app.bannerDismissedFor = null;
    app.noticeDismissed = null;
    hideToasts(); // a notice about the previous game does not belong to the new one
    dialogFocus.next = gameFocus(); // the new game is played on the board: the focus goes there
    $('dlg-new').close();
  }
}

$('form-new').addEventListener('change', syncDialog);
// Going offline or online while the dialog is open: the friend and quick-play choices follow.
for (const ev of ['online', 'offline']) {
  window.addEventListener(ev, () => {
    if (!$('dlg-new').open) return;
    syncDialog();
    form().dispatchEvent(new Event('hc:opened'));
  });
}
$('form-new').addEventListener('submit', startNewGame);
$('new-cancel').addEventListener('click', () => $('dlg-new').close());

// ------------------------------------------------------------------ every dialog

// A modal <dialog> keeps the focus inside (the rest of the page is inert) and closes on Escape
// (the browser's "cancel"); when it closes, the focus goes back to where it was before it opened
// (else to the board), so a keyboard user goes on from there.
const dialogFocus = { outside: null, next: null }; // (next: where a closing dialog sends it instead)
document.addEventListener('focusin', e => {
  if (!(e.target instanceof Element) || e.target.closest('dialog')) return;
  dialogFocus.outside = e.target;
});
document.addEventListener(
  'close',
  e => {
    if (!(e.target instanceof HTMLDialogElement) || document.querySelector('dialog[open]')) return;
    const back = dialogFocus.next || dialogFocus.outside;
    dialogFocus.next = null;
    const usable = back && back.isConnected && !back.disabled && !back.closest('[hidden]');
    (usable ? back : $('board')).focus();
  },
  true, // ("close" does not bubble: the capture phase sees it)
);
