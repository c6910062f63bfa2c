// Hidden Chess -- the Games screen (issue 26): the games kept on this device, those in progress
// (whose move it is, which await you) and the finished ones (variant, opponent, result, date,
// length), to open, replay from each side's knowledge, export (PGN, JSON) and delete.
//
// The list is read straight from the index Python keeps in localStorage ("hiddenchess.games": in
// progress, "hiddenchess.archive": finished; py/hiddenchess/app/library.py), so thousands of
// games list without a call into Python; every change (open, delete, export) is an action of
// the Session (py/hiddenchess/app/games.py). The finished games are drawn a page at a time.
//
// A friend game without a clock goes on through the relays while this page shows another game:
// when the screen opens (and once shortly after the page starts, for the header's count), the
// relays are asked whether the friend has sent a move in the others (signal/awaits.js, decided by
// peer/awaiting.js); such a game awaits you until it is opened.

import { $, download, foeWords, isGoing, movesText as moves } from './dom.js';
import { app } from './state.js';
import { call, whenReady } from './bridge.js';
import { confirmDialog, mayLeave } from './dialogs.js';
import { dismissBanner } from './status.js';
import { rememberTabGame } from './tabgame.js';
import { permissionText, askPermission } from './yourmove.js';
import { gamesToCheck, newsText, stillAwaits } from './peer/awaiting.js';

const ACTIVE_KEY = 'hiddenchess.games';
const ARCHIVE_KEY = 'hiddenchess.archive';
const PAGE = 50;
const RESULTS = { '1-0': 'white', '0-1': 'black' };
const REASONS = {
  checkmate: 'checkmate',
  stalemate: 'stalemate',
  resignation: 'resignation',
  agreement: 'agreement',
  timeout: 'on time',
  'timeout-insufficient-material': 'time out, insufficient material',
  'threefold-repetition': 'repetition',
  'fivefold-repetition': 'repetition',
  'fifty-moves': 'fifty moves',
  'seventy-five-moves': 'seventy-five moves',
  'insufficient-material': 'insufficient material',
};
const screen = { shown: PAGE, returnTo: null, archive: [], cache: { active: null, archive: null } };
const FIRST_CHECK_MS = 2000; // after the page is up: the relays are asked about the other games
const RECHECK_MS = 15000; // the screen opened again within this: the last answer stands
// What the relays said of the friend games not on screen: id -> newsOf's finding (peer/awaiting.js).
const relayed = { news: new Map(), running: null, at: 0 };

/** {id: summary} of one index ("active" | "archive"): the text is parsed again only when it changed. */
export function readIndex(which) {
  const key = which === 'active' ? ACTIVE_KEY : ARCHIVE_KEY;
  let text = null;
  try {
    text = window.localStorage.getItem(key);
  } catch {
    return {};
  }
  const cached = screen.cache[which];
  if (cached && cached.text === text) return cached.games;
  let games = {};
  try {
    const doc = JSON.parse(text || 'null');
    if (doc && doc.schema === 1 && doc.games && typeof doc.games === 'object') games = doc.games;
  } catch {
    games = {}; // an unreadable index: Python rebuilds it from the games on the next load
  }
  screen.cache[which] = { text, games };
  return games;
}

const sorted = games =>
  Object.entries(games)
    .map(([id, s]) => ({ id, ...s }))
    .sort((a, b) => (b.u || 0) - (a.u || 0));

function variantName(id) {
  const menu = (app.state && app.state.variantMenu) || [];
  const found = menu.find(v => v.id === id);
  return found ? found.name : id;
}

function opponent(g) {
  if (g.m === 'computer') return `vs the computer${g.l ? `, level ${g.l}` : ''}`;
  if (g.m === 'friend') return g.q ? 'vs a stranger, quick play' : 'vs a friend, online';
  // (an imported game: its players, as the PGN names them)
  const names = Array.isArray(g.w) ? g.w.map(n => (typeof n === 'string' && n ? n.slice(0, 60) : '?')) : null;
  if (names && names.length === 2 && names.some(n => n !== '?')) return `${names[0]} vs ${names[1]}`;
  return 'two players on this device';
}

function resultText(g) {
  if (g.bad) return 'could not be read';
  if (g.r === '-') return 'Aborted'; // (no result: called off before both sides moved)
  const winner = RESULTS[g.r] || null;
  const why = g.e ? REASONS[g.e] || g.e.replace(/-/g, ' ') : '';
  let text;
  if (!winner) text = 'Draw';
  else if (g.s) text = winner === g.s ? 'Won' : 'Lost';
  else text = `${winner === 'white' ? 'White' : 'Black'} won`;
  return why ? `${text} · ${why}` : text;
}

const DATES = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const date = ms => (ms ? DATES.format(ms) : '');
// (a game in progress: the hour it began too, so two games of a day tell apart -- QA: two friend
// games of one variant looked alike)
const MINUTES = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const begun = g => (g.c ? `begun ${MINUTES.format(g.c)}` : '');
// (an imported game: the day its PGN says it was played, "2024.03.01", else the day it came)
const day = g => {
  const m = typeof g.d === 'string' && /^(\d{4})\.(\d{2})\.(\d{2})$/.exec(g.d);
  return m ? DATES.format(new Date(+m[1], +m[2] - 1, +m[3])) : date(g.c);
};

/** The relays' news of a game, while it holds (the game not opened since). */
const newsOf = g => {
  const found = relayed.news.get(g.id);
  return found && stillAwaits(found, g) ? found : null;
};

/** Whether a game in progress awaits this device's player: its index says so, or the relays. */
const isYours = g => g.r === '*' && ((g.y && g.m !== 'local') || !!newsOf(g));

function turnText(g) {
  const news = newsOf(g);
  // (a stranger from quick play is "your opponent", as in its game: foeWords)
  if (news) return foeWords(g.q, newsText(news));
  // (j: the friend is there, choosing its set-up -- QA: it said "to join" on a connected game)
  if (g.m === 'friend' && g.n === 0 && !g.p && !g.j) return foeWords(g.q, 'Waiting for your friend to join');
  if (g.y && g.o) return 'A draw offer awaits your answer';
  if (g.y) return g.m === 'local' ? `${g.t === 'white' ? 'White' : 'Black'} to move` : 'Your move';
  if (g.m === 'computer') return 'The computer to move';
  if (g.m === 'friend') return foeWords(g.q, 'Your friend to move');
  return `${g.t === 'white' ? 'White' : 'Black'} to move`;
}

/** Games in progress that await this device's player (a game with a friend or the computer). */
export function awaiting(exceptId) {
  return sorted(readIndex('active')).filter(g => isYours(g) && g.id !== exceptId);
}

function button(label, action, id, extra = {}) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = `btn btn-small${extra.primary ? ' btn-primary' : ''}${extra.danger ? ' btn-danger' : ''}`;
  b.textContent = label;
  b.dataset.action = action;
  b.dataset.id = id;
  if (extra.persp) b.dataset.persp = extra.persp;
  if (extra.label) b.setAttribute('aria-label', extra.label);
  return b;
}

function row(g, current) {
  const li = document.createElement('li');
  li.className = 'game-row';
  li.dataset.id = g.id;
  const over = g.r !== '*';
  if (!over && isYours(g)) li.classList.add('is-yours');
  if (g.id === current) li.classList.add('is-current');
  const head = document.createElement('div');
  head.className = 'game-head';
  const name = document.createElement('strong');
  name.textContent = variantName(g.v);
  const opp = document.createElement('span');
  // (with a friend or the computer: the side this device's player has)
  const side = g.m !== 'local' && (g.s === 'white' || g.s === 'black')
    ? ` · you ${over ? 'played' : 'play'} ${g.s === 'white' ? 'White' : 'Black'}` : '';
  opp.textContent = ` ${opponent(g)}${g.k ? ` · ${g.k}` : ''}${side}`;
  head.append(name, opp);
  const meta = document.createElement('div');
  meta.className = 'game-meta';
  const state = document.createElement('span');
  state.className = 'game-state';
  state.textContent = over ? resultText(g) : turnText(g);
  // (a game the relays say moved on: the moves this device has seen so far)
  const length = !over && newsOf(g) ? `${moves(g.p)} seen here` : moves(g.p);
  const when = !over && g.c && !g.d ? begun(g) : day(g);
  meta.append(state, ` · ${length} · ${when}${g.id === current ? ' · open here' : ''}`);
  const tools = document.createElement('div');
  tools.className = 'game-tools';
  const label = `${variantName(g.v)}, ${when}`;
  if (!over) {
    if (g.id !== current) tools.append(button('Open', 'open', g.id, { primary: true, label: `Open ${label}` }));
  } else if (g.h) {
    if (g.s) tools.append(button('What I knew', 'replay', g.id, { persp: g.s, primary: true, label: `Replay ${label}: what I knew` }));
    else {
      tools.append(button('What White knew', 'replay', g.id, { persp: 'white', label: `Replay ${label}: what White knew` }));
      tools.append(button('What Black knew', 'replay', g.id, { persp: 'black', label: `Replay ${label}: what Black knew` }));
    }
    tools.append(button('Everything', 'replay', g.id, { persp: 'all', label: `Replay ${label}: everything` }));
  } else {
    tools.append(button('Replay', 'replay', g.id, { persp: 'all', primary: true, label: `Replay ${label}` }));
  }
  if (over || !g.h) tools.append(button('PGN', 'pgn', g.id, { label: `Download ${label} as PGN` }));
  if (over || !g.h) tools.append(button('JSON', 'json', g.id, { label: `Download ${label} as JSON` }));
  if (g.id !== current) tools.append(button('Delete', 'delete', g.id, { danger: true, label: `Delete ${label}` }));
  const info = document.createElement('div');
  info.className = 'game-info';
  info.append(head, meta);
  li.append(info, tools);
  return li;
}

function rows(games, current) {
  const out = document.createDocumentFragment();
  for (const g of games) out.append(row(g, current));
  return out;
}

function renderMore() {
  const left = screen.archive.length - screen.shown;
  $('games-more').hidden = left <= 0;
  $('games-more').textContent = left > 0 ? `Show ${Math.min(PAGE, left)} more of ${left}` : '';
}

// The next page of finished games, added below those drawn.
function showMore() {
  const from = screen.shown;
  screen.shown += PAGE;
  $('games-done').append(rows(screen.archive.slice(from, screen.shown), app.state ? app.state.gameId : null));
  renderMore();
}

/** Draw the lists from the index (the screen must be open). */
export function renderGames() {
  const current = app.state ? app.state.gameId : null;
  const active = sorted(readIndex('active'));
  const archive = sorted(readIndex('archive'));
  // the games awaiting you first, then the latest
  active.sort((a, b) => (isYours(b) ? 1 : 0) - (isYours(a) ? 1 : 0) || (b.u || 0) - (a.u || 0));
  const live = document.createDocumentFragment();
  for (const g of active) live.append(row(g, current));
  $('games-live').replaceChildren(live);
  $('games-live-empty').hidden = active.length > 0;
  const waiting = active.filter(isYours).length;
  $('games-live-count').textContent = active.length ? `(${active.length}${waiting ? `, ${waiting} awaiting you` : ''})` : '';
  screen.archive = archive;
  $('games-done').replaceChildren(rows(archive.slice(0, screen.shown), current));
  $('games-done-empty').hidden = archive.length > 0;
  $('games-done-count').textContent = archive.length ? `(${archive.length})` : '';
  renderMore();
  $('games-export-pgn').disabled = $('games-export-json').disabled = archive.length === 0;
  const st = app.state;
  const note = st && st.warning ? st.warning : '';
  $('games-note').textContent = note;
  $('games-note').hidden = !note;
  $('games-notify-text').textContent = permissionText();
  $('games-notify').hidden = !('Notification' in window) || window.Notification.permission !== 'default';
}

/** Ask the relays about the friend games in progress that are not on screen (at most one round at
 * a time; a round ended less than RECHECK_MS ago stands). Without relays: nothing is claimed. */
export function checkRelayed() {
  if (relayed.running || Date.now() - relayed.at < RECHECK_MS) return relayed.running;
  relayed.running = (async () => {
    try {
      const { loadRooms } = await import('./signal/room.js');
      const checks = gamesToCheck(readIndex('active'), loadRooms(), app.state ? app.state.gameId : null);
      if (!checks.length) return;
      const { checkGames } = await import('./signal/awaits.js');
      const found = await checkGames(checks);
      for (const [id, news] of found) {
        if (news) relayed.news.set(id, news);
        else relayed.news.delete(id);
      }
      if (app.state) renderGamesBadge(app.state);
      renderStartGames(app.state);
    } catch (e) {
      console.warn('Hidden Chess: the relays could not be asked about the games in progress', e);
    } finally {
      relayed.at = Date.now();
      relayed.running = null;
    }
  })();
  return relayed.running;
}

export function openGames() {
  checkRelayed();
  screen.shown = PAGE;
  screen.returnTo = document.activeElement;
  renderGames();
  const dlg = $('dlg-games');
  if (!dlg.open) dlg.showModal();
}

function closeGames() {
  const dlg = $('dlg-games');
  if (dlg.open) dlg.close();
}

async function onAction(e) {
  const b = e.target.closest('button[data-action]');
  if (!b) return;
  const { action, id, persp } = b.dataset;
  if (action === 'open' || action === 'replay') {
    if (!(await mayLeave())) return;
    const st = call('open_game', { id });
    if (!st || st.error || st.gameId !== id) return renderGames();
    if (action === 'replay') {
      dismissBanner(); // (the replay is what was asked for, not the game's ending again)
      call('replay', { ply: 0, perspective: persp || 'all' });
    }
    closeGames();
  } else if (action === 'pgn' || action === 'json') {
    exportGames([id], action);
  } else if (action === 'delete') {
    const row = b.closest('.game-row');
    const what = row ? row.querySelector('.game-head').textContent : 'this game';
    const ok = await confirmDialog('Delete this game?', `${what}: it is removed from this device for good. Export it first to keep a copy.`, 'Delete');
    if (!$('dlg-games').open) $('dlg-games').showModal();
    if (ok) call('delete_game', { id });
    renderGames();
  }
}

function exportGames(ids, format) {
  const st = call('export_games', { ids, format, site: window.location.origin + window.location.pathname }, { quiet: true });
  if (!st) return;
  if (st.error) {
    $('games-note').textContent = st.error;
    $('games-note').hidden = false;
    return;
  }
  if (st.download) download(st.download.name, st.download.text);
}

/** The header's Games button shows how many games await you. */
export function renderGamesBadge(st) {
  if (st && st.gameId) rememberTabGame(st.gameId);
  const n = awaiting(st ? st.gameId : null).length;
  const badge = $('games-badge');
  if (badge) {
    badge.textContent = n ? String(n) : '';
    badge.hidden = !n;
  }
  const btn = $('btn-games');
  if (btn) btn.setAttribute('aria-label', n ? `Your games: ${n} await your move` : 'Your games');
  if ($('dlg-games').open) renderGames();
}

/** Another tab changed the list: redraw it. */
export function gamesChanged(key) {
  if ((key === ACTIVE_KEY || key === ARCHIVE_KEY || key === null) && app.state) renderGamesBadge(app.state);
}

export function startGames() {
  const css = document.createElement('link');
  css.rel = 'stylesheet';
  css.href = new URL('../games.css', import.meta.url).href;
  document.head.append(css);
  $('btn-games').addEventListener('click', openGames);
  $('btn-games').disabled = false;
  // The start screen: a way to the games kept here (put in place here: the start card is the page's).
  const start = $('start-cards');
  if (start && !$('start-games')) {
    const p = document.createElement('p');
    p.className = 'start-games-line';
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn';
    b.id = 'start-games';
    b.textContent = 'Your games';
    b.addEventListener('click', openGames);
    p.append(b);
    start.before(p);
  }
  $('dlg-games').addEventListener('click', onAction);
  $('games-close').addEventListener('click', closeGames);
  $('dlg-games').addEventListener('close', () => {
    const back = screen.returnTo;
    screen.returnTo = null;
    if (back && back.isConnected && typeof back.focus === 'function' && !$('dlg-games').open) back.focus();
  });
  $('games-more').addEventListener('click', showMore);
  $('games-export-pgn').addEventListener('click', () => exportGames(null, 'pgn'));
  $('games-export-json').addEventListener('click', () => exportGames(null, 'json'));
  $('games-notify').addEventListener('click', async () => {
    await askPermission();
    renderGames();
  });
  whenReady(() => setTimeout(checkRelayed, FIRST_CHECK_MS));
}

/** The start screen's line: how many games are kept, and how many await you. The game on the
 * board counts once it is going (a move, the secrets being chosen, a friend): a first visit's
 * untouched board, or a new game not begun, is not a game "in progress" yet. */
export function renderStartGames(st) {
  const b = $('start-games');
  if (!b) return;
  const index = readIndex('active');
  const idle = st && st.gameId && index[st.gameId] && !isGoing(st) ? 1 : 0;
  const active = Object.keys(index).length - idle;
  const archive = Object.keys(readIndex('archive')).length;
  const n = awaiting(st ? st.gameId : null).length;
  const parts = [`${active} in progress`, `${archive} finished`];
  if (n) parts.push(`${n} await${n === 1 ? 's' : ''} you`);
  b.textContent = active || archive || n ? `Your games (${parts.join(', ')})` : 'Your games';
}
