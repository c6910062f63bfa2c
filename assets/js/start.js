// Hidden Chess -- what a newcomer meets: the start screen (the variants as cards with one-click
// starts, "Continue your game"), the rules pages (window.hc.guide(id): text and examples played by
// the engine, stepped through on read-only boards) and the first-game hint of each variant.
// Everything said comes from Python (state.variantMenu, py/hiddenchess/app/guide.py); this
// module names no variant.

import { Chessground } from '../vendor/chessground/chessground.min.js';
import { $, gameFocus, isGoing, isOver, movesText } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { each } from './panels/index.js';
import { mayLeave, openNewGame } from './dialogs.js';
import { hideToasts } from './toast.js';
import { gameChoice, rememberGameChoice } from './settings.js';
import { showLevelRatings } from './levels.js';

const HINTS_KEY = 'hiddenchess:hints-seen';
const menu = () => (app.state && app.state.variantMenu) || [];
const entryOf = st => menu().find(e => Object.values(e.ids || {}).includes(st.variant && st.variant.id));

// ------------------------------------------------------------------ the start screen

const startScreen = { returnTo: null, gameId: undefined };

function button(text, cls, onClick) {
  const b = Object.assign(document.createElement('button'), { type: 'button', className: `btn ${cls}`, textContent: text });
  b.addEventListener('click', onClick);
  return b;
}

/** Start a game at once (the defaults of the long form); an error goes to a toast. */
async function quickStart(options) {
  if (!(await mayLeave())) return;
  const st = call('new_game', { clock: 'none', autoflip: false, ...options }, { quiet: true });
  if (st && st.error) {
    $('start-error').textContent = st.error;
    $('start-error').hidden = false;
    return;
  }
  app.bannerDismissedFor = null;
  app.noticeDismissed = null;
  hideToasts();
  startScreen.returnTo = gameFocus(); // the new game is played on the board: the focus goes there
  closeStart();
}

function card(entry) {
  const st = app.state || {};
  const el = document.createElement('article');
  el.className = 'variant-card';
  el.dataset.variant = entry.id;
  el.setAttribute('aria-labelledby', `card-${entry.id}`);
  const head = document.createElement('div');
  head.className = 'variant-card-head';
  const img = Object.assign(document.createElement('img'), { src: `assets/img/${entry.icon}`, alt: '', width: 40, height: 40 });
  const h = Object.assign(document.createElement('h2'), { id: `card-${entry.id}`, textContent: entry.name });
  head.append(img, h);
  const how = document.createElement('p');
  how.className = 'variant-card-how';
  how.textContent = (entry.how || [entry.summary]).join(' ');
  const actions = document.createElement('div');
  actions.className = 'variant-card-actions';
  if ((st.computerVariants || []).includes(entry.id)) {
    actions.append(button('Play the computer', 'btn-primary play-computer', () => {
      const { level, color, clock } = chosen();
      quickStart({ variant: entry.id, mode: 'computer', level, color, clock });
    }));
  }
  actions.append(button('Play on this device', '', () => quickStart({ variant: entry.id, mode: 'local', clock: chosen().clock })));
  const friendly = st.friendVariants === null || st.friendVariants === undefined || st.friendVariants.includes(entry.id);
  if (friendly) {
    actions.append(button('Invite a friend', '', () =>
      quickStart({ variant: entry.id, mode: 'friend', clock: chosen().clock, color: chosen().color })));
    actions.append(button('Quick play 5+3', '', () => startQuickPlay(entry.id)));
  }
  const rules = Object.assign(document.createElement('a'), { href: `#rules=${entry.id}`, className: 'variant-card-rules', textContent: 'Rules' });
  rules.setAttribute('aria-label', `Rules of ${entry.name}`);
  rules.addEventListener('click', e => {
    e.preventDefault();
    openRules(entry.id);
  });
  el.append(head, how, actions, rules);
  return el;
}

async function startQuickPlay(variant) {
  closeStart();
  try {
    const quick = await import('./quick-ui.js');
    quick.startQuick(variant, '5+3');
  } catch (err) {
    $('start-error').textContent = `Quick play could not start: ${err && err.message ? err.message : err}`;
    $('start-error').hidden = false;
    openStart();
  }
}

// ------------------------------------------------------------------ the choices above the cards

/** The row above the cards: level, colour and clock, remembered (settings.js) when changed. */
function chosen() {
  return { level: Number($('start-level').value), color: $('start-color').value, clock: $('start-clock').value };
}

function fillChoices() {
  const c = gameChoice();
  const clock = $('start-clock');
  if (![...clock.options].some(o => o.value === c.clock)) {
    clock.append(Object.assign(document.createElement('option'), { value: c.clock, textContent: c.clock }));
  }
  $('start-level').value = String(c.level);
  $('start-color').value = c.color;
  clock.value = c.clock;
}

function renderCards() {
  const box = $('start-cards');
  box.replaceChildren(...menu().map(card));
  const st = app.state;
  const going = isGoing(st);
  $('start-continue').hidden = !going;
  // (before the first move: what is going on, not "0 moves")
  const plies = (st.moves || []).length;
  const stage = plies ? movesText(plies) : st.phase === 'setup' ? 'setting up' : 'not started';
  if (going) $('start-continue-text').textContent = [st.variant && st.variant.name, stage].join(' · ');
}

export function openStart() {
  if (app.state && !app.state.friendVariants) call('catalog', {}, { quiet: true });
  renderCards();
  fillChoices();
  $('start-error').hidden = true;
  startScreen.returnTo = document.activeElement;
  $('start').hidden = false;
  document.body.dataset.start = 'true';
  const first = $('start').querySelector('.variant-card button');
  if (first) first.focus();
}

export function closeStart() {
  $('start').hidden = true;
  document.body.dataset.start = 'false';
  const back = startScreen.returnTo;
  startScreen.returnTo = null;
  // Shown when the page opened, the screen had nothing to give the focus back to (the page's
  // body: after Escape the next Tab started at the top of the page): the board takes it.
  const usable = back && back.isConnected && back !== document.body && typeof back.focus === 'function' && back.getClientRects().length > 0;
  (usable ? back : gameFocus()).focus();
}

// ------------------------------------------------------------------ the rules pages

const rulesPage = { boards: [], returnTo: null };

function exampleBoard(ex, index) {
  const fig = document.createElement('figure');
  fig.className = 'rules-example';
  const title = Object.assign(document.createElement('h3'), { textContent: `${index + 1}. ${ex.title}` });
  const holder = document.createElement('div');
  holder.className = 'rules-board cg-wrap';
  const cap = document.createElement('figcaption');
  const text = Object.assign(document.createElement('p'), { textContent: ex.text });
  const stepLine = document.createElement('p');
  stepLine.className = 'rules-step';
  stepLine.setAttribute('aria-live', 'polite');
  const caption = document.createElement('p');       // (the step's own words, if it has some)
  caption.className = 'rules-caption';
  const nav = document.createElement('div');
  nav.className = 'rules-nav';
  const at = { ply: 0 };
  // (turned towards the side whose action the example shows)
  const cg = Chessground(holder, { viewOnly: true, coordinates: true, animation: { enabled: false }, orientation: ex.orientation || 'white' });
  rulesPage.boards.push(cg);
  const last = ex.frames.length - 1;
  const prev = button('◀ Back', 'btn-small', () => step(at.ply - 1));
  const next = button('Next ▶', 'btn-small btn-primary', () => step(at.ply + 1));
  const reset = button('⟲ Again', 'btn-small', () => step(0));
  nav.append(prev, next, reset);
  // A step's caption may be a line longer: the buttons pushed under the page's foot come back up,
  // never the board under its head (QA on a phone: Next went off screen, or the board did).
  function step(ply) {
    show(ply);
    const page = fig.closest('dialog');
    const foot = page.getBoundingClientRect().top + page.clientTop + page.clientHeight;
    const below = nav.getBoundingClientRect().bottom + 8 - foot;
    const room = holder.getBoundingClientRect().top - page.querySelector('.rules-head').getBoundingClientRect().bottom;
    if (below > 0) page.scrollTop += Math.max(0, Math.min(below, room));
  }
  function show(ply) {
    at.ply = Math.max(0, Math.min(last, ply));
    const f = ex.frames[at.ply];
    const shapes = (ex.outline || []).map(sq => ({ orig: sq, brush: 'green' }));
    each('guideMarks', f.marks || {}, { svg: (sq, html) => shapes.push({ orig: sq, customSvg: { html } }), cls: () => {} });
    const custom = new Map((f.reveals || []).map(sq => [sq, 'reveal']));
    // (the checked royal piece's own square, as in a game: chessground's check would mark the
    // king, which is not royal in Royal Pawn Chess -- QA)
    if (f.check) custom.set(f.check, `${custom.get(f.check) || ''} check`.trim());
    cg.set({
      fen: f.board,
      turnColor: f.turn,
      lastMove: f.lastMove || undefined,
      check: false,
      highlight: { custom, lastMove: true, check: false },
      drawable: { autoShapes: shapes, visible: true },
    });
    const moves = ex.frames.slice(1, at.ply + 1).map(fr => fr.san);
    stepLine.textContent = at.ply === 0
      ? `${f.turn === 'white' ? 'White' : 'Black'} to move. Step through the ${last === 1 ? 'move' : `${last} moves`}.` // (not always a game's start)
      : `After ${moves.join(' ')}${f.reveals && f.reveals.length ? ` — revealed: ${f.reveals.join(', ')}` : ''}${f.message ? ` — ${f.message}` : ''}.`;
    caption.textContent = (ex.captions || [])[at.ply] || '';
    caption.hidden = !caption.textContent;
    prev.disabled = at.ply === 0;
    next.disabled = at.ply === last;
    fig.dataset.ply = String(at.ply);
  }
  cap.append(text, stepLine, caption, nav);
  fig.append(title, holder, cap);
  // Drawn once the page is on screen (chessground measures the board for its marks).
  requestAnimationFrame(() => {
    cg.redrawAll();
    show(0);
  });
  return fig;
}

export function openRules(variantId) {
  let page;
  try {
    page = JSON.parse(window.hc.guide(variantId));
  } catch (err) {
    page = { error: String(err && err.message ? err.message : err) };
  }
  for (const cg of rulesPage.boards) cg.destroy();
  rulesPage.boards = [];
  if (!$('rules').open) {
    rulesPage.returnTo = document.activeElement;
    $('rules').showModal();
  }
  const body = $('rules-body');
  body.replaceChildren();
  if (page.error) {
    $('rules-title').textContent = 'Rules';
    body.append(Object.assign(document.createElement('p'), { className: 'rules-error', textContent: page.error }));
  } else {
    $('rules-title').textContent = `${page.name}: the rules`;
    const lead = Object.assign(document.createElement('p'), { className: 'rules-lead', textContent: (page.how || []).join(' ') });
    body.append(lead);
    $('rules-warning').hidden = !page.warning;
    $('rules-warning').textContent = page.warning ? `⚠ ${page.warning}` : '';
    for (const s of page.sections) {
      const sec = document.createElement('section');
      sec.append(Object.assign(document.createElement('h2'), { textContent: s.title }));
      for (const p of s.paragraphs) sec.append(Object.assign(document.createElement('p'), { textContent: p }));
      body.append(sec);
    }
    if (page.examples.length) {
      const sec = document.createElement('section');
      sec.className = 'rules-examples';
      sec.append(Object.assign(document.createElement('h2'), { textContent: 'Examples' }));
      page.examples.forEach((ex, i) => sec.append(exampleBoard(ex, i)));
      body.append(sec);
    }
    if (page.more && page.more.length) {
      // The project's documents (docs/*.md, plain text), in a new tab so that the game stays.
      const sec = Object.assign(document.createElement('section'), { className: 'rules-more' });
      sec.append(Object.assign(document.createElement('h2'), { textContent: 'More' }));
      const list = document.createElement('ul');
      for (const m of page.more) {
        const a = Object.assign(document.createElement('a'), { href: m.href, textContent: m.text, target: '_blank', rel: 'noopener' });
        const item = document.createElement('li');
        item.append(a);
        list.append(item);
      }
      sec.append(list);
      body.append(sec);
    }
  }
  $('rules').dataset.variant = variantId;
  $('rules').scrollTop = 0;
  $('rules-back').focus();
}

function closeRules() {
  for (const cg of rulesPage.boards) cg.destroy();
  rulesPage.boards = [];
  if ($('rules').open) $('rules').close();
}

// ------------------------------------------------------------------ the first-game hint

function seenHints() {
  try {
    const v = JSON.parse(window.localStorage.getItem(HINTS_KEY) || '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

function rememberHint(id) {
  try {
    window.localStorage.setItem(HINTS_KEY, JSON.stringify([...new Set([...seenHints(), id])]));
  } catch {
    // storage full or blocked: the hint may show again, nothing else is lost
  }
}

export function renderHint(st) {
  const entry = st && !st.replay && !isOver(st) ? entryOf(st) : null;
  const show = !!entry && !!entry.hint && !seenHints().includes(entry.id) && (st.moves || []).length < 2;
  $('hint').hidden = !show;
  if (show) {
    $('hint').dataset.variant = entry.id;
    // (the setup's words only while it is being made: "Choose your two secret pawns" goes once sealed)
    $('hint-text').textContent = st.phase === 'setup' && entry.setupHint ? entry.setupHint : entry.hint;
  }
}

// ------------------------------------------------------------------ wiring

export function startStart() {
  showLevelRatings(); // the start screen's level menu and the New game dialog's level badges
  $('start-close').addEventListener('click', closeStart);
  $('start-more').addEventListener('click', () => {
    closeStart();
    openNewGame();
  });
  $('start-continue-btn').addEventListener('click', closeStart);
  $('start-choices').addEventListener('change', () => rememberGameChoice(chosen()));
  $('rules-back').addEventListener('click', closeRules);
  $('rules').addEventListener('close', () => {
    for (const cg of rulesPage.boards) cg.destroy();
    rulesPage.boards = [];
    // A rules link that opened it is spent: a reload then shows the game, not the rules again.
    if (/#rules=/.test(window.location.hash)) history.replaceState(null, '', window.location.pathname + window.location.search);
    const back = rulesPage.returnTo;
    rulesPage.returnTo = null;
    if (back && back.isConnected) back.focus();
  });
  $('start').addEventListener('keydown', e => {
    if (e.key === 'Escape' && !$('rules').open) closeStart();
  });
  $('hint-close').addEventListener('click', () => {
    rememberHint($('hint').dataset.variant);
    $('hint').hidden = true;
  });
  $('hint-rules').addEventListener('click', () => openRules($('hint').dataset.variant));
  // A rules link followed while the page is open (the address bar, another page's link).
  window.addEventListener('hashchange', () => {
    const m = /#rules=([\w-]+)/.exec(window.location.hash);
    if (m && app.ready) openRules(m[1]);
  });
  // The logo opens the start screen (a plain link without the page's scripts).
  document.querySelector('.brand').addEventListener('click', e => {
    if (!app.ready) return;
    e.preventDefault();
    openStart();
  });
}

const VISITED_KEY = 'hiddenchess:visited';

function firstVisit() {
  try {
    if (window.localStorage.getItem(VISITED_KEY)) return false;
    window.localStorage.setItem(VISITED_KEY, '1');
  } catch {
    // no storage: every visit is a first one
  }
  return true;
}

/** After the saved game is restored: a first visit with no game going opens the start screen
 * (unless the page was opened by a link that starts something itself); #rules=<id> opens a
 * rules page. Later visits go straight to the board; the logo opens the start screen. */
export function maybeOpenStart(st) {
  const m = /#rules=([\w-]+)/.exec(window.location.hash);
  if (m) return openRules(m[1]);
  const linked = /#./.test(window.location.hash);
  const first = firstVisit();
  if (linked || !st) return;
  const going = (st.moves || []).length > 0 || st.phase === 'setup' || !!st.peer;
  if (first && !going) openStart();
}

/** A game started by any path (the dialog, a link, the console) closes the start screen. */
export function renderStart(st) {
  if (!$('start').hidden && st && st.gameId !== startScreen.gameId && startScreen.gameId !== undefined) closeStart();
  startScreen.gameId = st ? st.gameId : undefined;
}
