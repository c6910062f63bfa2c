// Hidden Chess -- the move list and, once the game is over, the replay (bar, clicks on moves).
//
// The list is drawn incrementally: the moves already on the page stay (a move is redrawn only
// when what it shows changed, e.g. after a takeback or a new game), so a move costs the same at
// ply 400 as at ply 4 (issue 17).

import { $, foeWords, gameFocus, isOver } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { any, first } from './panels/index.js';
import { announce } from './announce.js';

// What the list shows: per move its object (the bridge keeps the objects of unchanged moves), its
// key (everything it is drawn from), its <span> and its <li>.
const drawn = { moves: [], keys: [], spans: [], lis: [], over: null, current: null, tab: null };

function setTab(span) {
  if (drawn.tab && drawn.tab !== span) drawn.tab.tabIndex = -1;
  if (span) span.tabIndex = 0;
  drawn.tab = span || null;
}

function forget() {
  drawn.moves = [];
  drawn.keys = [];
  drawn.spans = [];
  drawn.lis = [];
}

function moveKey(st, m) {
  const note = first('moveNote', st, m) || '';
  return [m.ply, m.number, m.color, m.san, m.uci, !!m.reveal, !!m.illegal, note, m.say || '', !!m.pending].join('\u0001');
}

// The number, colour and ply of a move: where it stands in the list (its other fields are
// redrawn in place when they change, e.g. a hidden promotion shown to one seat only).
const PENDING = "waiting for your friend's answer";

const placeKey = key => key.split('\u0001', 3).join('\u0001');

function fillSpan(san, st, m) {
  san.textContent = m.san;
  san.dataset.uci = m.uci;
  san.dataset.ply = String(m.ply);
  san.classList.toggle('has-reveal', !!m.reveal); // the move revealed something
  san.classList.toggle('has-illegal', !!m.illegal); // an illegal move (tabletop rules), found
  // A move of this page's that awaits the friend's answer (by correspondence it may wait days).
  const note = m.pending ? foeWords(!!(st.peer && st.peer.stranger), PENDING) : first('moveNote', st, m);
  san.classList.toggle('is-pending', !!m.pending);
  san.classList.toggle('has-note', !!note && !m.pending);
  if (note) san.title = note;
  else san.removeAttribute('title');
  // For a screen reader: the move in words, as the seat at the device saw it (state: moves[i].say).
  // (its written form last: the name holds what is shown)
  san.setAttribute('aria-label', `${m.number}${m.color === 'black' ? '…' : '.'} ${m.say || ''}${note ? ` ${note}` : ''} ${m.san}`);
}

function moveSpan(st, m, over) {
  const san = document.createElement('span');
  san.className = 'san';
  fillSpan(san, st, m);
  // Every move is a button, during play too (one of them is in the tab order: arrows, Home and End
  // go through the list); once the game is over it shows that position.
  san.setAttribute('role', 'button');
  san.tabIndex = -1;
  if (over) san.classList.add('is-link');
  return san;
}

// Take moves from `keep` on off the list (a move that opened its <li> takes the <li> with it).
function truncate(keep) {
  for (let i = drawn.spans.length - 1; i >= keep; i--) {
    const li = drawn.lis[i];
    if (i === 0 || drawn.lis[i - 1] !== li) li.remove();
    else drawn.spans[i].remove();
  }
  const n = Math.min(keep, drawn.spans.length);
  drawn.moves.length = drawn.keys.length = drawn.spans.length = drawn.lis.length = n;
}

function append(ol, st, moves, keys, from, over) {
  let li = from > 0 && moves[from - 1].color !== 'black' ? drawn.lis[from - 1] : null;
  for (let i = from; i < moves.length; i++) {
    const m = moves[i];
    // each <li> is one move number: "12." White's move, Black's move ("…" stands in for a missing one)
    if (m.color === 'white' || !li) {
      li = document.createElement('li');
      const num = document.createElement('span');
      num.className = 'num';
      num.textContent = `${m.number}.`;
      li.appendChild(num);
      if (m.color === 'black') {
        const dots = document.createElement('span');
        dots.className = 'san';
        dots.textContent = '…';
        li.appendChild(dots);
      }
      ol.appendChild(li);
    }
    const san = moveSpan(st, m, over);
    li.appendChild(san);
    drawn.moves.push(m);
    drawn.keys.push(keys[i]);
    drawn.spans.push(san);
    drawn.lis.push(li);
    if (m.color === 'black') li = null;
  }
}

export function renderMoves(st) {
  const ol = $('moves');
  const moves = st.moves || [];
  const over = isOver(st);
  if (!moves.length) {
    const hint = document.createElement('li');
    hint.className = 'empty-hint';
    hint.textContent = 'No moves yet.';
    ol.replaceChildren(hint);
    forget();
    drawn.current = null;
    drawn.over = over;
    return;
  }
  // The moves drawn before stay; a move whose object is new (or the last one drawn: a note may
  // join it) is compared by its key, and redrawn in place or, from where the list differs, anew.
  const keys = new Array(moves.length);
  let same = 0;
  if (drawn.over === over && drawn.spans.length && drawn.spans[0].isConnected) {
    const limit = Math.min(moves.length, drawn.keys.length);
    for (; same < limit; same++) {
      const m = moves[same];
      if (m === drawn.moves[same] && same < drawn.keys.length - 1) {
        keys[same] = drawn.keys[same];
        continue;
      }
      keys[same] = moveKey(st, m);
      drawn.moves[same] = m;
      if (keys[same] === drawn.keys[same]) continue;
      if (placeKey(keys[same]) !== placeKey(drawn.keys[same])) break;
      fillSpan(drawn.spans[same], st, m);
      drawn.keys[same] = keys[same];
    }
  }
  for (let i = same; i < moves.length; i++) keys[i] = keys[i] || moveKey(st, moves[i]);
  if (same === 0) {
    ol.replaceChildren();
    forget();
  } else {
    truncate(same);
  }
  drawn.over = over;
  append(ol, st, moves, keys, same, over);
  const index = st.replay ? st.replay.ply - 1 : moves.length - 1;
  const cur = index >= 0 ? drawn.spans[index] || null : null;
  if (drawn.current && drawn.current !== cur) {
    drawn.current.classList.remove('is-current');
    drawn.current.removeAttribute('aria-current');
  }
  if (cur) {
    cur.classList.add('is-current');
    cur.setAttribute('aria-current', 'step');
  }
  drawn.current = cur;
  // The one move in the tab order: the focused one, else the current one.
  const tab = drawn.spans.includes(document.activeElement) ? document.activeElement : cur || drawn.spans[drawn.spans.length - 1];
  setTab(tab);
  // keep the current move in view: vertically on desktop, horizontally on phones (within the
  // list: scrollIntoView scrolled the side panel too, the pools' heading out of sight)
  scrollToCurrent(st);
}

// The list's box changes after the list is drawn: at the game's end the result line and the
// replay bar come under it and it shrinks (beside a 1280x800 board from 322 to 212 px, and the last
// move was left below its edge), a set-up panel or the hint comes or goes, the window is resized.
// The current move stays in view (within the list: the page itself does not scroll for it).
function keepCurrentInView() {
  scrollToCurrent(app.state);
}
function scrollToCurrent(st) {
  const ol = $('moves');
  if (!st || !drawn.spans.length) return;
  if (!st.replay) {
    ol.scrollTop = ol.scrollHeight;
    ol.scrollLeft = ol.scrollWidth;
    return;
  }
  const cur = drawn.current;
  if (st.replay.ply === 0) { // (the start: the list's start, not its end, QA on a phone)
    ol.scrollTop = 0;
    ol.scrollLeft = 0;
    return;
  }
  if (!cur || !cur.isConnected) return;
  const box = ol.getBoundingClientRect();
  const at = cur.getBoundingClientRect();
  if (at.top < box.top) ol.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) ol.scrollTop += at.bottom - box.bottom;
  if (at.left < box.left) ol.scrollLeft -= box.left - at.left;
  else if (at.right > box.right) ol.scrollLeft += at.right - box.right;
}
if (typeof ResizeObserver === 'function') new ResizeObserver(keepCurrentInView).observe($('moves'));

export function renderReplay(st) {
  const over = isOver(st);
  const plies = (st.moves || []).length;
  const r = st.replay;
  const browsing = !!(r && r.live); // during play: an earlier position, as this page's viewer knew it
  $('replay-bar').hidden = !over && !browsing;
  $('replay-bar').classList.toggle('is-browsing', browsing);
  $('rp-live').hidden = !browsing;
  if (!over && !browsing) return;
  const ply = r ? r.ply : plies;
  $('rp-pos').textContent = `${ply} / ${plies}`;
  $('rp-first').disabled = $('rp-prev').disabled = ply === 0;
  $('rp-next').disabled = $('rp-last').disabled = ply === plies;
  $('rp-persp').hidden = !any('perspectives', st);
  const persp = r ? r.perspective : 'all';
  for (const b of $('rp-persp').querySelectorAll('button')) b.setAttribute('aria-checked', String(b.dataset.persp === persp));
  $('replay-bar').classList.toggle('is-replaying', !!r);
}

/** The keyboard's place once a replay starts from a button that goes away (the result banner's
 * Replay): the replay bar's Next, else the current move, else the board -- not the page's body,
 * from where the next Tab started at the top of the page. */
export function focusReplay() {
  const next = $('rp-next');
  const to = !$('replay-bar').hidden && !next.disabled ? next : drawn.tab && drawn.tab.isConnected ? drawn.tab : gameFocus();
  to.focus({ preventScroll: true }); // (on a phone the bar is under the board: the board, where the replay is, stays in view)
}

export function replayPly() {
  const st = app.state;
  return st.replay ? st.replay.ply : (st.moves || []).length;
}

export function replayTo(ply, perspective) {
  const st = app.state;
  const plies = (st.moves || []).length;
  // During play: browse the earlier positions; the last one is the live game again.
  if (!isOver(st)) {
    if (ply === undefined) return;
    if (ply >= plies) {
      if (st.replay) call('replay_exit');
      return;
    }
  }
  const args = {};
  if (ply !== undefined) args.ply = Math.max(0, Math.min(plies, ply));
  if (perspective !== undefined) args.perspective = perspective;
  call('replay', args);
}

$('rp-first').addEventListener('click', () => replayTo(0));
$('rp-prev').addEventListener('click', () => replayTo(replayPly() - 1));
$('rp-next').addEventListener('click', () => replayTo(replayPly() + 1));
$('rp-last').addEventListener('click', () => replayTo((app.state.moves || []).length));
$('rp-live').addEventListener('click', () => call('replay_exit'));
for (const b of $('rp-persp').querySelectorAll('button')) {
  b.addEventListener('click', () => replayTo(undefined, b.dataset.persp));
}
// A move of the list chosen: its position (during play, as this page's viewer knew it; the last
// move is the live game), and its words.
function chooseMove(san) {
  replayTo(Number(san.dataset.ply) + 1);
  if (!isOver(app.state)) announce(san.getAttribute('aria-label'));
}

// Arrows, Home and End go through the list (the focus moves; once the game is over the replay
// follows it).
function focusMove(from, key) {
  const spans = drawn.spans.filter(x => x.isConnected);
  let i = spans.indexOf(from);
  if (key === 'ArrowLeft' || key === 'ArrowUp') i -= 1;
  else if (key === 'ArrowRight' || key === 'ArrowDown') i += 1;
  else if (key === 'Home') i = 0;
  else if (key === 'End') i = spans.length - 1;
  const to = spans[Math.max(0, Math.min(spans.length - 1, i))];
  if (!to) return;
  setTab(to);
  to.focus();
  replayTo(Number(to.dataset.ply) + 1);
}

$('moves').addEventListener('click', e => {
  const san = e.target.closest('.san[role=button]');
  if (san) chooseMove(san);
});
$('moves').addEventListener('keydown', e => {
  const san = e.target.closest('.san[role=button]');
  if (!san || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    chooseMove(san);
  } else if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'].includes(e.key)) {
    e.preventDefault();
    e.stopPropagation(); // (not the page's replay keys as well)
    focusMove(san, e.key);
  }
});
