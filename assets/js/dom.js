// Hidden Chess -- small helpers shared by the page's modules: element lookup, colour names, and
// reading the board placement of a state (which square holds a piece of which colour).

import { app } from './state.js';

export const $ = id => document.getElementById(id);

export const COLOR_NAMES = { white: 'White', black: 'Black' };
export const COLORS = ['white', 'black'];
export const FILES = 'abcdefgh';

/** `text` as the player of a game with a stranger reads it (`stranger`: quick play's): "your
 * opponent", not "your friend" -- the one rule of every such text (friend-ui.js, the Games screen,
 * the dialogs, the notifications; the Session words its own by app/text.py foe_words). */
export const foeWords = (stranger, text) => (stranger && text ? text.replace(/\b([Yy])our friend\b/g, '$1our opponent') : text);

/** "1 move", "4 moves": a game's length in moves, as the Games screen and the start screen say it
 * (a move is White's and Black's, so 8 plies are 4 moves). */
export const movesText = plies => {
  const n = Math.ceil((plies || 0) / 2);
  return `${n} move${n === 1 ? '' : 's'}`;
};
export const isOver = st => !!(st && st.status && st.status.over);
/** A game going on (the start screen's "Continue your game"): not over, and a move played, the
 * secrets being chosen, or a friend in it. The untouched board of a first visit or of a new game
 * not begun is not one. */
export const isGoing = st => !!st && !isOver(st) && ((st.moves || []).length > 0 || st.phase === 'setup' || !!st.peer);

// A board whose placement holds "?" (unknown white piece) and "*" (unknown black piece):
// chessground reads the rest, the unknown pieces are put on with the role "unknown".
export function splitUnknown(fen) {
  const unknown = new Map();
  fen.split('/').forEach((row, r) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '8') file += Number(ch);
      else {
        if (ch === '?' || ch === '*') {
          unknown.set(`${FILES[file]}${8 - r}`, { role: 'unknown', color: ch === '?' ? 'white' : 'black' });
        }
        file += 1;
      }
    }
  });
  return { fen: fen.replace(/[?*]/g, '1'), unknown };
}

// The colour of every piece of a placement (unknown pieces not included).
export function boardColors(fen) {
  const out = {};
  (fen || '').split('/').forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) {
        file += Number(ch);
        continue;
      }
      out[String.fromCharCode(97 + file) + (8 - i)] = ch === ch.toUpperCase() ? 'white' : 'black';
      file += 1;
    }
  });
  return out;
}

// The colour of every piece of a board, unknown pieces ("?" / "*") included.
export function pieceColors(fen) {
  const board = splitUnknown(fen);
  const out = boardColors(board.fen);
  for (const [sq, p] of board.unknown) out[sq] = p.color;
  return out;
}

// The player box (name, clock, tray, buttons) of a colour: the bottom one is the board's side.
export function playerEl(color) {
  if (!app.state) return null;
  return color === app.state.orientation ? $('player-bottom') : $('player-top');
}

// Where a square is on screen, as the top-left corner's column / row (0..7, 0 = top-left).
export function screenCell(key, orientation) {
  const file = key.charCodeAt(0) - 97;
  const rank = parseInt(key.slice(1), 10) - 1;
  const white = orientation === 'white';
  return { col: white ? file : 7 - file, row: white ? 7 - rank : rank };
}

export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Where the keyboard goes when a game starts: the hand-over screen's button while it is up,
 * else the board (not the page's body). */
export function gameFocus() {
  return $('handover').hidden ? $('board') : $('handover-show');
}

/** The title of a game: its variant and clock ("Secret Pawn · 5+3"). */
/** The header's title of a game: [variant name, clock] ("Secret Pawn", "no clock"). */
export function titleParts(st) {
  return [st.variant && st.variant.name, st.clock ? st.clock.label : 'no clock'].filter(Boolean);
}

/** Show `parts` (strings) as the header's title, "A · B": each part its own span, so that a
 * narrow screen puts each on its own line (app.css) instead of breaking one mid-phrase; the text
 * read (and textContent) stays "A · B". */
export function showTitle(parts) {
  const el = $('game-title');
  const nodes = [];
  parts.forEach((part, i) => {
    if (i) {
      const sep = document.createElement('span');
      sep.className = 'title-sep';
      sep.textContent = ' · ';
      nodes.push(sep);
    }
    const span = document.createElement('span');
    span.className = 'title-part';
    span.textContent = part;
    nodes.push(span);
  });
  el.replaceChildren(...nodes);
  el.title = parts.join(' · '); // (the whole of it, where a part is cut short)
}

// The saved game as last shown (preview.js writes it): used before the engine is up, and only
// while the save it was drawn from is still the current one (same write revision).
export const PREVIEW_KEY = 'hiddenchess:preview';
const SAVE_REV = /^\{"schema":(\d{1,9}),"rev":(\d{1,15}),/;
// Each game has its own key, "hiddenchess.game.<ID>" (py/hiddenchess/app/library.py); a tab
// remembers its game in sessionStorage (tabgame.js), a new tab opens the device's last game.
const TAB_KEY = 'hiddenchess:tab-game';
const GAME_ID = /^[0-9A-Za-z_-]{1,64}$/;

/** This tab's game id, or null (a new tab: Python opens the device's last game). */
export function tabGame() {
  try {
    const id = window.sessionStorage.getItem(TAB_KEY);
    return id && GAME_ID.test(id) ? id : null;
  } catch {
    return null;
  }
}

/** The storage key of game `id` (default: the one this tab shows, or will open). */
export function saveKey(id = null) {
  let game = id || tabGame();
  if (!game) {
    try {
      game = window.localStorage.getItem('hiddenchess.last');
    } catch {
      game = null;
    }
  }
  return game && GAME_ID.test(game) ? `hiddenchess.game.${game}` : 'hiddenchess.current';
}

/** The save's revision ("key|schema:rev": revisions are per game), or null (no save, or storage
 * blocked); `id`: the game (default: this tab's). */
export function saveRevision(id = null) {
  try {
    const key = saveKey(id);
    const head = window.localStorage.getItem(key);
    const m = head && SAVE_REV.exec(head.slice(0, 60));
    return m ? `${key}|${m[1]}:${m[2]}` : null;
  } catch {
    return null;
  }
}

/** The preview's state if it is still current, else null. */
export function savedPreview() {
  try {
    const saved = JSON.parse(window.localStorage.getItem(PREVIEW_KEY) || 'null');
    if (!saved || !saved.state || typeof saved.state.fen !== 'string' || !saved.rev || saved.rev !== saveRevision()) return null;
    return saved.state;
  } catch {
    return null;
  }
}
