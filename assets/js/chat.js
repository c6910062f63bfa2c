// Hidden Chess -- the chat of a game online (state.peer.chat): its lines, a line to send, a few
// quick phrases, and hiding it. Python cleans every line (peer/chat.py: no control or direction
// characters, 140 characters at most, a hostile page's floods dropped); here they are shown as
// text only, never as markup or links.

import { $ } from './dom.js';
import { call, onRender } from './bridge.js';

const OFF_KEY = 'hiddenchess:chat-off';
const QUICK = ['Hello!', 'Good luck!', 'Good game!', 'Thanks!'];
const drawn = { base: '', last: '' };

function isOff() {
  try {
    return localStorage.getItem(OFF_KEY) === '1';
  } catch (e) {
    return false;
  }
}

function setOff(off) {
  try {
    if (off) localStorage.setItem(OFF_KEY, '1');
    else localStorage.removeItem(OFF_KEY);
  } catch (e) {
    // (storage blocked: hidden for this page only)
  }
}

function lineItem(line, foe) {
  const li = document.createElement('li');
  li.className = line.by === 'me' ? 'chat-me' : 'chat-friend';
  const who = document.createElement('b');
  who.textContent = line.by === 'me' ? 'You' : foe;
  li.append(who, `: ${line.text}`);
  return li;
}

// New lines are added to the list, not the whole list drawn again: a screen reader (the list is
// a polite live region) then reads the new line alone.
function drawLines(st, lines) {
  const list = $('chat-lines');
  const foe = st.peer.stranger ? 'Opponent' : 'Friend';
  const keys = lines.map(line => `${line.at}|${line.by}|${line.text}`);
  const base = `${st.gameId}|${foe}`;
  const known = drawn.base === base ? keys.indexOf(drawn.last) : -1;
  if (drawn.base === base && keys.length && drawn.last === keys[keys.length - 1]) return;
  if (known >= 0 && drawn.last) {
    list.append(...lines.slice(known + 1).map(line => lineItem(line, foe)));
    while (list.children.length > lines.length) list.firstElementChild.remove();
  } else {
    list.replaceChildren(...lines.map(line => lineItem(line, foe)));
  }
  drawn.base = base;
  drawn.last = keys.length ? keys[keys.length - 1] : '';
  list.scrollTop = list.scrollHeight;
}

export function renderChat(st) {
  const box = $('chat');
  const p = st.peer;
  const chat = p && p.chat;
  const live = !!p && !!p.connected;
  box.hidden = !chat || (!live && !chat.lines.length) || !!st.replay;
  if (box.hidden) return;
  const off = isOff();
  box.classList.toggle('is-off', off);
  const toggle = $('chat-toggle');
  toggle.textContent = off ? 'Show chat' : 'Hide';
  toggle.setAttribute('aria-label', off ? 'Show chat' : 'Hide chat');
  toggle.setAttribute('aria-expanded', String(!off));
  for (const id of ['chat-lines', 'chat-input', 'chat-send', 'chat-quick']) $(id).hidden = off;
  if (off) return;
  drawLines(st, chat.lines);
  const input = $('chat-input');
  input.disabled = !live;
  // (the words for a screen reader; the box shows the short ones)
  input.placeholder = live ? 'Say something…' : 'Not connected';
  input.setAttribute('aria-label', live ? `Chat message to your ${p.stranger ? 'opponent' : 'friend'}`
    : `Chat: not connected to your ${p.stranger ? 'opponent' : 'friend'}'s page`);
  $('chat-send').disabled = !live;
  for (const b of $('chat-quick').querySelectorAll('button')) b.disabled = !live;
}

function say(text) {
  const st = call('chat', { text });
  return !!st && !st.error;
}

export function startChat() {
  const quick = $('chat-quick');
  for (const phrase of QUICK) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn btn-small';
    b.textContent = phrase;
    b.addEventListener('click', () => say(phrase));
    quick.append(b);
  }
  $('chat-form').addEventListener('submit', e => {
    e.preventDefault();
    const input = $('chat-input');
    if (say(input.value)) input.value = '';
  });
  $('chat-toggle').addEventListener('click', () => {
    setOff(!isOff());
    drawn.base = '';
    const st = call('state');
    if (st && !isOff()) $('chat-input').focus();
  });
  onRender(renderChat);
}
