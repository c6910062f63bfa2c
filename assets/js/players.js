// Hidden Chess -- the two player boxes: name, whose turn it is, resign / draw buttons, the
// captured pieces a variant shows beside each player (panels: tray), and the draw offer.

import { $, COLOR_NAMES, COLORS, isOver, playerEl } from './dom.js';
import { call } from './bridge.js';
import { app } from './state.js';
import { askResign } from './dialogs.js';
import { first } from './panels/index.js';

export function renderPlayers(st) {
  const over = isOver(st);
  // Before the first move (pieces placed, secret pawns chosen) the marker goes to whoever sets up.
  // In play, a panel may name another actor (a tabletop penalty is chosen by the side that found it).
  const setup = over ? null : st.phase === 'setup' ? first('setup', st) || {} : first('actor', st);
  const setupSeat = setup ? setup.seat || (st.handover && st.handover.to) : null;
  for (const color of COLORS) {
    const el = playerEl(color);
    el.dataset.color = color;
    el.setAttribute('aria-label', `${COLOR_NAMES[color]} player`);
    const comp = st.computer;
    // (an imported game: the players its PGN names, beside their colour)
    const named = st.players && st.players[color];
    const name = el.querySelector('.player-name');
    name.textContent = comp
      ? (comp.seat === color ? `Computer · level ${comp.level}` : 'You')
      : named ? `${named} · ${COLOR_NAMES[color]}` : COLOR_NAMES[color];
    name.title = name.textContent; // (a long name is ellipsised beside the material)
    el.classList.toggle('is-computer', !!comp && comp.seat === color);
    el.querySelector('.player-actions').hidden = !!comp && comp.seat === color;
    const turn = setup ? setupSeat === color : !over && st.turnColor === color;
    el.classList.toggle('is-turn', turn);
    el.querySelector('.to-move').textContent = !turn ? '' : setup ? setup.marker || 'setting up' : 'to move';
    const resign = el.querySelector('.act-resign');
    resign.disabled = over;
    resign.setAttribute('aria-label', `Resign (${COLOR_NAMES[color]})`);
    resign.title = `${COLOR_NAMES[color]} resigns`;
    resign.dataset.color = color;
    const draw = el.querySelector('.act-draw');
    const offered = st.drawOffer === color;
    // The other side's offer open: this side's ½ accepts it, as on lichess (on one device, once
    // this side holds the device).
    const answers = !!st.drawOffer && !offered;
    draw.disabled = over || offered || !!st.handover; // (no offer or answer under the hand-over)
    draw.classList.toggle('is-offered', offered);
    draw.setAttribute('aria-label', offered ? `${COLOR_NAMES[color]} offered a draw`
      : answers ? `Accept the draw (${COLOR_NAMES[color]})` : `Offer a draw (${COLOR_NAMES[color]})`);
    draw.title = offered ? 'Draw offered' : answers ? `${COLOR_NAMES[color]} accepts the draw` : `${COLOR_NAMES[color]} offers a draw`;
    draw.dataset.color = color;
    const clock = el.querySelector('.clock');
    clock.hidden = !st.clock;
    el.classList.toggle('has-clock', !!st.clock);
    clock.dataset.color = color;
    clock.setAttribute('aria-label', `${COLOR_NAMES[color]}'s clock`);
  }
  // (on one device, answered once its side holds it: not under the hand-over screen)
  $('offer').hidden = !st.drawOffer || over || !!st.handover;
  if (st.drawOffer && !over) {
    const other = st.drawOffer === 'white' ? 'black' : 'white';
    $('offer-text').textContent = `${COLOR_NAMES[st.drawOffer]} offers a draw. ${COLOR_NAMES[other]}?`;
    $('btn-accept').dataset.color = other;
    $('btn-decline').dataset.color = other;
  }
}

// Beside each player: the enemy pieces that player captured, as a variant shows them (as lichess
// shows material).
const ROLE_NAMES = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };

// Where the whole board is public (state.material): the pieces each side is ahead by, shown as
// the other side's pieces it has taken, and the points ahead ("+3"), as lichess shows them.
function materialTray(st) {
  if (!st.material) return null;
  const items = [];
  for (const color of COLORS) {
    const foe = color === 'white' ? 'black' : 'white';
    const m = st.material[color] || { pieces: [], score: 0 };
    for (const letter of m.pieces) {
      const role = ROLE_NAMES[letter];
      items.push({
        color: foe,
        pawn: letter === 'p',
        label: `${foe === 'white' ? 'a White' : 'a Black'} ${role}`,
        node: () => {
          const item = document.createElement('span');
          item.className = 'tray-item tray-material cg-wrap';
          const p = document.createElement('piece');
          p.className = `${role} ${foe}`;
          item.appendChild(p);
          return item;
        },
      });
    }
    if (m.score > 0) {
      items.push({
        color: foe,
        label: `${m.score} point${m.score === 1 ? '' : 's'} ahead`,
        node: () => Object.assign(document.createElement('span'), { className: 'tray-score', textContent: `+${m.score}` }),
      });
    }
  }
  return { what: 'Material', items };
}

export function renderTrays(st) {
  // A variant's own tray (captured secret pawns) and, where the board is public, the material.
  const own = first('tray', st);
  const material = materialTray(st);
  // A variant's item that stands for a captured pawn (a secret pawn, with its necktie) takes the
  // place of one pawn of that colour in the material: one captured pawn is shown once.
  if (own && material) {
    for (const item of own.items.filter(i => i.pawn)) {
      const k = material.items.findIndex(m => m.pawn && m.color === item.color);
      if (k >= 0) material.items.splice(k, 1);
    }
  }
  const parts = [own, material].filter(Boolean);
  const shown = parts.length
    ? { what: parts.map(p => p.what).join(' and '), items: parts.flatMap(p => p.items) }
    : { what: 'Pieces', items: [] };
  for (const color of COLORS) {
    const tray = playerEl(color).querySelector('.tray');
    tray.replaceChildren();
    const mine = shown.items.filter(c => c.color !== color);
    tray.hidden = !mine.length;
    // The pieces may be cut short when the bar is narrow; the points ahead ("+3") never are.
    const pieces = document.createElement('span');
    pieces.className = 'tray-pieces';
    tray.appendChild(pieces);
    for (const c of mine) {
      const node = c.node();
      (node.classList.contains('tray-score') ? tray : pieces).appendChild(node);
    }
    tray.setAttribute('aria-label', `${shown.what} captured by ${COLOR_NAMES[color]}: ${mine.map(c => c.label).join(', ') || 'none'}`);
  }
}

$('btn-accept').addEventListener('click', e => call('accept_draw', { color: e.currentTarget.dataset.color }));
$('btn-decline').addEventListener('click', e => call('decline_draw', { color: e.currentTarget.dataset.color }));
for (const el of document.querySelectorAll('.act-resign')) {
  el.addEventListener('click', async e => {
    const color = e.currentTarget.dataset.color;
    if (await askResign(color)) call('resign', { color });
  });
}
for (const el of document.querySelectorAll('.act-draw')) {
  el.addEventListener('click', e => call('offer_draw', { color: e.currentTarget.dataset.color }));
}
