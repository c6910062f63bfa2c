// Secret Pawn Chess: neckties on the secret pawns (state.secrets), choosing them in private
// (state.sealing: the seal panel), the captured ones beside the players and, once the game is
// over, what became of each (state.secrets.fates).

import { $, COLOR_NAMES, COLORS } from '../dom.js';
import { app } from '../state.js';
import { call } from '../bridge.js';
import { renderBoard } from '../board.js';
import { announce } from '../announce.js';
import { registerPanel } from './registry.js';

// Necktie drawn on a secret pawn (a 100x100 square; the tie hangs from the pawn's collar).
// kind: "hidden" (known to its owner only: translucent, dashed gold outline), "revealed" (solid, striped,
// white outline), "pick" (being chosen while sealing).
function tieSvg(kind) {
  const fill = kind === 'hidden' ? 'rgba(224, 49, 43, 0.6)' : '#e0312b';
  const knot = kind === 'hidden' ? 'rgba(168, 27, 22, 0.75)' : '#a81b16';
  const dash = kind === 'hidden' ? ' stroke-dasharray="4 2.6"' : '';
  const stroke = kind === 'hidden' ? '#ffe27a' : kind === 'pick' ? '#d7ffc4' : '#fff';
  return (
    `<g class="necktie necktie-${kind}">` +
    `<path d="M37 47.5h26l-5.6 10h-14.8z" fill="${knot}" stroke="${stroke}" stroke-width="2.6" stroke-linejoin="round"${dash}/>` +
    `<path d="M42.6 57.5h14.8l7.4 25.5L50 96 35.2 83z" fill="${fill}" stroke="${stroke}" stroke-width="2.6" stroke-linejoin="round"${dash}/>` +
    (kind === 'hidden'
      ? ''
      : '<path d="M44 65.5l11.5 7.5M40.5 76l18.5 12M42.5 86.5l8 5.2" stroke="#ffd24a" stroke-width="3.2" stroke-linecap="round"/>') +
    '</g>'
  );
}
const TIE_SVG = { hidden: tieSvg('hidden'), revealed: tieSvg('revealed'), pick: tieSvg('pick') };
// The same tie for HTML (the end-of-game summary heading): a standalone 24x24 icon.
const TIE_ICON = '<img class="tie-icon" src="assets/img/necktie.svg" alt="" width="16" height="16">';

const FATE_TEXT = {
  hidden: at => `never revealed (on ${at})`,
  revealed: at => `revealed (on ${at})`,
  captured: at => `captured on ${at}`,
  promoted: at => `promoted on ${at}`,
};

const seal = {
  choice: [], // squares the player at the device has picked while sealing (not yet sent)
  for: null, // gameId|seat the picks belong to
};

// (shown under the seal panel, and said once through the page's assertive live region: a
// refusal after Enter on the board's cursor is heard, even the same words twice)
function showSealError(text) {
  $('seal-error').textContent = text;
  $('seal-error').hidden = false;
  announce(text, { urgent: true });
}

function renderSeal(st) {
  const s = st.sealing;
  $('seal-panel').hidden = !s;
  $('board').classList.toggle('is-sealing', !!s);
  if (!s) {
    $('seal-chosen').textContent = ''; // (hidden, but a sealed choice must not stay in the page)
    return;
  }
  // (one player at this device -- against the computer, with a friend -- is "you", not a colour)
  $('seal-title').textContent = st.computer || st.peer ? `Choose your ${s.count} secret pawns`
    : `${COLOR_NAMES[s.seat]}: choose your ${s.count} secret pawns`;
  const chosen = [...seal.choice].sort();
  $('seal-chosen').textContent = chosen.length
    ? `Chosen: ${chosen.join(', ')} (${chosen.length} of ${s.count})`
    : `Chosen: none (0 of ${s.count})`;
  $('seal-submit').disabled = chosen.length !== s.count;
  $('seal-clear').disabled = !chosen.length;
}

// While sealing, a click on one of the player's original pawns picks or unpicks it.
function selectSeal(st, key) {
  if (!st.sealing) return false;
  if (!st.sealing.candidates.includes(key)) {
    showSealError(`${key} is not one of your pawns: pick one of your own pawns on its starting square.`);
    return true;
  }
  if (seal.choice.includes(key)) seal.choice = seal.choice.filter(s => s !== key);
  else if (seal.choice.length < st.sealing.count) seal.choice = [...seal.choice, key];
  else {
    showSealError(`You have already picked ${st.sealing.count} pawns: click (or press Enter on) one of them to unpick it.`);
    return true;
  }
  $('seal-error').hidden = true;
  renderSeal(st);
  renderBoard(st);
  return true;
}

function trayItem(color, title) {
  const item = document.createElement('span');
  item.className = 'tray-item cg-wrap';
  item.title = title;
  const p = document.createElement('piece');
  p.className = `pawn ${color}`;
  item.appendChild(p);
  item.insertAdjacentHTML('beforeend', `<svg viewBox="0 0 100 100" class="tray-tie" aria-hidden="true">${TIE_SVG.revealed}</svg>`);
  return item;
}

function renderSummary(st) {
  const box = $('secret-summary');
  const fates = st.secrets && st.secrets.fates;
  box.hidden = !fates;
  if (!fates) return;
  box.replaceChildren();
  const h = document.createElement('h3');
  h.innerHTML = `${TIE_ICON} Secret pawns`;
  box.appendChild(h);
  for (const color of COLORS) {
    const row = document.createElement('div');
    row.className = 'summary-row';
    row.dataset.color = color;
    const who = document.createElement('strong');
    who.textContent = `${COLOR_NAMES[color]} chose`;
    row.appendChild(who);
    const list = document.createElement('ul');
    for (const f of fates[color] || []) {
      const li = document.createElement('li');
      li.dataset.square = f.square;
      li.dataset.fate = f.fate;
      li.appendChild(trayItem(color, `${COLOR_NAMES[color]}'s secret pawn from ${f.square}`));
      const txt = document.createElement('span');
      const b = document.createElement('b');
      b.textContent = f.square;
      txt.append(b, ' ', FATE_TEXT[f.fate] ? FATE_TEXT[f.fate](f.at) : f.fate);
      li.appendChild(txt);
      list.appendChild(li);
    }
    row.appendChild(list);
    box.appendChild(row);
  }
}

$('seal-clear').addEventListener('click', () => {
  seal.choice = [];
  $('seal-error').hidden = true;
  renderSeal(app.state);
  renderBoard(app.state);
});
$('seal-submit').addEventListener('click', () => {
  const st = call('seal', { squares: [...seal.choice] }, { quiet: true });
  if (st && st.error) showSealError(st.error);
});

export default registerPanel({
  id: 'secret-pawn',
  // A rules page's example board: every chosen pawn's necktie, solid once revealed (marks.necktie,
  // marks.revealed), as in the rules' own pictures.
  guideMarks(marks, mark) {
    const revealed = new Set(marks.revealed || []);
    for (const sq of marks.necktie || []) mark.svg(sq, TIE_SVG[revealed.has(sq) ? 'revealed' : 'hidden']);
  },
  reset(st) {
    const key = st.sealing ? `${st.gameId}|${st.sealing.seat}` : null;
    if (key !== seal.for) {
      seal.for = key;
      seal.choice = [];
      $('seal-error').hidden = true;
    }
  },
  overlay(st, mark) {
    const sec = st.secrets;
    if (sec && !st.handover) {
      const revealed = new Set(sec.revealed || []);
      for (const sq of sec.visible || []) {
        const kind = revealed.has(sq) ? 'revealed' : 'hidden';
        mark.cls(sq, `secret-${kind}`);
        mark.svg(sq, TIE_SVG[kind]);
      }
      for (const r of sec.last || []) mark.cls(r.square, 'reveal');
    }
    if (st.sealing) {
      for (const sq of st.sealing.candidates) mark.cls(sq, seal.choice.includes(sq) ? 'seal-chosen' : 'seal-candidate');
      for (const sq of seal.choice) mark.svg(sq, TIE_SVG.pick);
    }
  },
  select: selectSeal,
  squareWords: (st, sq) => (st.sealing && seal.choice.includes(sq) ? 'chosen as a secret pawn' : null),
  render(st) {
    renderSeal(st);
    renderSummary(st);
  },
  setup(st) {
    if (!st.sealing && !st.secrets) return null;
    const s = st.sealing;
    return {
      seat: s ? s.seat : null,
      marker: 'choosing pawns',
      status: !s ? 'Choosing secret pawns' : st.computer || st.peer ? 'You choose your secret pawns'
        : `${COLOR_NAMES[s.seat]} chooses secret pawns`,
    };
  },
  handoverIcon: st => (st.secrets ? 'assets/img/necktie.svg' : null),
  handoverText(st, who) {
    return st.handover.for === 'seal' ? `${who} chooses two secret pawns in private.` : null;
  },
  tray(st) {
    const captured = st.secrets && st.secrets.captured;
    if (!captured) return null;
    return {
      what: 'Secret pawns',
      items: captured.map(c => ({
        color: c.color,
        pawn: true, // (it stands for a pawn of the material, shown once: players.js)
        label: c.square,
        node: () => trayItem(c.color, `${COLOR_NAMES[c.color]}'s secret pawn, captured on ${c.square}`),
      })),
    };
  },
  perspectives: st => !!st.secrets,
});
