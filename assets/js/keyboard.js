// Hidden Chess -- the move box: type a move (e4, Nf3, O-O, e7e8=Q, e2e4, the variants' own
// forms such as "seal d2 e2" or "Ke1") or a command (resign, draw, flip, c, p N, s e4, scan a,
// help) and press Enter. The Session reads it (action "typed", py/hiddenchess/app/typed.py)
// against what the seat at the device may try: this module sends the text and shows the answer.

import { $ } from './dom.js';
import { askResign, takeBack } from './dialogs.js';
import { app } from './state.js';
import { call, onRender } from './bridge.js';
import { announce } from './announce.js';

const HINT = 'Press Enter to play. Type help for the commands.';

function build() {
  const form = document.createElement('form');
  form.className = 'move-box';
  form.id = 'move-box';
  form.setAttribute('aria-label', 'Move box'); // (a named form: a landmark to jump to)
  form.noValidate = true;
  const label = document.createElement('label');
  label.htmlFor = 'move-input';
  label.className = 'move-box-label';
  label.textContent = 'Type a move or a command';
  const input = document.createElement('input');
  Object.assign(input, { id: 'move-input', type: 'text', autocomplete: 'off', spellcheck: false, disabled: true });
  input.setAttribute('autocapitalize', 'off');
  input.setAttribute('enterkeyhint', 'send');
  input.setAttribute('aria-describedby', 'move-box-msg');
  input.placeholder = 'e4, Nf3, O-O … or help';
  const msg = document.createElement('p');
  msg.id = 'move-box-msg';
  msg.className = 'move-box-msg';
  msg.textContent = HINT;
  form.append(label, input, msg);
  const panel = $('moves').closest('.moves-panel') || $('moves').parentElement;
  panel.insertBefore(form, $('status-line').nextSibling);
  form.addEventListener('submit', e => {
    e.preventDefault();
    send(input, msg);
  });
  input.addEventListener('keydown', e => {
    if (e.key === 'Escape' && input.value) {
      e.preventDefault();
      e.stopPropagation();
      input.value = '';
    }
  });
}

// The box again, once a question is answered. Chromium gives the focus back to it as the dialog
// closes, but after a click on the dialog's button typed keys then reach no text (QA: "take back"
// typed after Decline was lost): focused anew, it takes them.
function refocus(input) {
  input.blur();
  input.focus();
}

async function send(input, msg) {
  const text = input.value.trim();
  if (!app.ready) return;
  if (!text) { // (Enter on an empty box: back to the hint, not an old answer or error)
    input.value = '';
    msg.classList.remove('is-error');
    msg.textContent = HINT;
    return;
  }
  const st = call('typed', { text }, { quiet: true }); // (a refusal is said here, not in a toast)
  if (!st) return;
  msg.classList.toggle('is-error', !!st.error);
  if (st.error) {
    msg.textContent = st.error;
    announce(st.error, { urgent: true });
    input.select();
    return;
  }
  input.value = '';
  msg.textContent = (st.speech && st.speech.reply) || HINT;
  // `resign` is asked first, as the resign buttons ask (a typo away from a lost game): the
  // Session checked that the player may resign, the answer to the question is the player's.
  if (st.ask && st.ask.action === 'resign') {
    const ok = await askResign(st.ask.args.color);
    refocus(input);
    if (ok) call('resign', st.ask.args);
    msg.textContent = ok ? HINT : 'Not resigned.';
  }
  // `takeback` on one device: the other player agrees first, as with the button.
  if (st.ask && st.ask.action === 'takeback') {
    const ok = await takeBack();
    refocus(input);
    msg.textContent = ok ? HINT : 'Not taken back.';
  }
}

// What the box shows belongs to one seat of one game: it is wiped when the device changes hands
// (an answer about the board must not stay on screen for the other player) or a game starts.
const shown = { key: null };

build();
onRender(st => {
  $('move-input').disabled = !app.ready;
  const key = `${st.gameId}|${st.viewer}`;
  if (key !== shown.key) {
    shown.key = key;
    $('move-input').value = '';
    $('move-box-msg').textContent = HINT;
    $('move-box-msg').classList.remove('is-error');
  }
});
