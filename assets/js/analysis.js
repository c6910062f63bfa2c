// Hidden Chess -- analysis after the game. In the replay of a finished game, "Analyse" shows the
// computer's evaluation of the position shown and its best move (text, and an arrow on the
// board), one position at a time as the player browses. The request comes from Python
// (hc.analysis(): py/hiddenchess/app/analysis.py): in a hidden variant it follows the replay's
// perspective -- "what White knew" is only White's view, searched as the computer would in that
// seat; "everything" is the truth of that moment. The search runs in the computer's worker
// (computer.js, py/worker.py's analyse), so the page never blocks; the answers are kept by
// position. The position shown comes first (a second pass, deeper, once the player stays on it);
// then the other positions are analysed in the background, one pass each, and the move list
// marks the inaccuracies, mistakes and blunders (judgment.js).

import { $, isOver } from './dom.js';
import { app } from './state.js';
import { analyseInWorker } from './computer.js';
import { onBoardShapes, redrawShapes } from './board.js';
import { judgments, whiteChances } from './judgment.js';

/** How long the worker may take to start before the box says it has not (a worker whose script
 * cannot load never reports a failure: PyScript waits for it). Its answer is still shown if it
 * comes later. */
const WORKER_START_LIMIT_MS = 30_000;

/** How long a first answer stays on the board before the deeper pass starts: stepping through the
 * moves keeps the worker free for the next position (a search, once begun, runs to its budget). */
const DEEPER_AFTER_MS = 1200;

const an = {
  on: false, // the player turned the analysis on
  answers: new Map(), // "game|ply|perspective" -> the worker's latest answer (or {over} / {error})
  requests: new Map(), // "game|ply|perspective" -> hc.analysis()'s request
  busy: null, // the key the worker is analysing
  wanted: null, // the key of the position shown (analysed next when the worker is free)
  started: 0, // performance.now() when the current search began
  stalled: null, // the key whose search waits for a worker that has not started in time
  timer: null, // the wait before a deeper pass
};

/** The key of the position the state shows, or null when there is nothing to analyse. */
function keyOf(st) {
  if (!st || !isOver(st) || !available(st)) return null;
  const r = st.replay;
  const ply = r ? r.ply : (st.moves || []).length;
  const persp = r ? r.perspective : 'all';
  return `${st.gameId}|${ply}|${persp}`;
}

function available(st) {
  return !!(st.variant && (st.computerVariants || []).includes(st.variant.id));
}

/** Whether the answer of ``key`` is as deep as it gets (or there is nothing more to search). */
function finished(key) {
  const a = an.answers.get(key);
  return !!a && (a.error || a.over || a.final);
}

/** The request of the position of ``key`` (asked of Python once a position). */
function requestOf(key) {
  if (an.requests.has(key)) return an.requests.get(key);
  const [game, ply, persp] = key.split('|');
  let req;
  try {
    req = JSON.parse(window.hc.analysis(Number(ply), persp));
  } catch (err) {
    req = { error: `The analysis could not be asked for: ${err && err.message ? err.message : err}` };
  }
  if (!req.error && req.game !== game) return null; // (another game meanwhile)
  if (!req.error) an.requests.set(key, req);
  return req;
}

/** A position of the game shown, in the perspective shown, not analysed yet (the background
 * pass that marks the mistakes in the move list), or null. */
function backgroundKey() {
  const [game, , persp] = an.wanted.split('|');
  const plies = (app.state.moves || []).length;
  for (let ply = 0; ply <= plies; ply++) {
    const key = `${game}|${ply}|${persp}`;
    if (!an.answers.has(key)) return key;
  }
  return null;
}

/** The next search: the position shown, first pass, then deeper while it stays on the board;
 * then, in the background, the other positions (one pass each). */
function next() {
  if (!an.on || an.busy || !an.wanted) return;
  let key = an.wanted;
  const background = finished(key);
  if (background) key = backgroundKey();
  document.body.dataset.analysisBackground = background && !key ? 'done' : '';
  if (!key) return;
  const req = requestOf(key);
  if (!req) return;
  if (req.error || req.over) {
    an.answers.set(key, req);
    show();
    drawMarks();
    if (!req.error) next();
    return;
  }
  const before = an.answers.get(key);
  const pass = before ? before.pass + 1 : 0;
  if (before && !background) {
    const wait = before.at + DEEPER_AFTER_MS - performance.now();
    if (wait > 0) {
      clearTimeout(an.timer);
      an.timer = setTimeout(next, wait);
      return;
    }
  }
  const passes = req.passes || [undefined];
  an.busy = key;
  an.started = performance.now();
  show();
  const slow = setTimeout(() => {
    if (an.busy === key && document.body.dataset.aiReady !== 'true') {
      an.stalled = key;
      show();
    }
  }, WORKER_START_LIMIT_MS);
  analyseInWorker(JSON.stringify(req), passes[pass])
    .then(text => {
      const answer = JSON.parse(text);
      if (answer.error) answer.error = `The computer could not analyse this position: ${answer.error}`;
      return answer;
    })
    .catch(err => {
      console.error(err);
      const message = err && err.message ? err.message : String(err);
      return { error: `The computer could not start, so there is no analysis (${message}). Reload the page to try again.` };
    })
    .then(answer => {
      clearTimeout(slow);
      an.busy = null;
      an.stalled = null;
      if (answer.error && before) {
        before.final = true; // (a deeper pass failed: the first answer stands)
      } else {
        Object.assign(answer, { label: req.label, hidden: !!req.hidden, pass, final: pass >= passes.length - 1 });
        answer.at = performance.now();
        answer.ms = Math.round(answer.at - an.started);
        an.answers.set(key, answer);
        document.body.dataset.analysisMs = String(answer.ms || '');
        document.body.dataset.analysisPass = String(pass);
      }
      show();
      redrawShapes();
      drawMarks();
      next();
    });
}

/** The marks of the moves (?!, ?, ??) in the move list, from the positions analysed so far in
 * the perspective shown (judgment.js). */
function drawMarks() {
  for (const span of document.querySelectorAll('#moves .san[data-judgment]')) {
    delete span.dataset.judgment;
    span.removeAttribute('aria-description');
  }
  const key = keyOf(app.state);
  if (!an.on || key === null) return;
  const [game, , persp] = key.split('|');
  const marks = judgments(ply => an.answers.get(`${game}|${ply}|${persp}`), (app.state.moves || []).length, persp);
  for (const [index, m] of Object.entries(marks)) {
    const span = document.querySelector(`#moves .san[data-ply="${index}"]`);
    if (!span) continue;
    span.dataset.judgment = m.mark;
    span.setAttribute('aria-description', m.name);
  }
}

/** "+0.8", "−1.3", "#3", "#−2" (from White's side). */
export function formatEval(answer) {
  if (answer.mate !== null && answer.mate !== undefined) {
    const forWhite = answer.turn === 'white' ? answer.mate : -answer.mate;
    return forWhite > 0 ? `#${forWhite}` : `#−${-forWhite}`;
  }
  const pawns = answer.white / 100;
  const text = Math.abs(pawns).toFixed(1);
  return pawns > 0.04 ? `+${text}` : pawns < -0.04 ? `−${text}` : '0.0';
}

/** White's share of the eval bar, 0..1: White's winning chances, as lichess draws them. */
function whiteShare(answer) {
  return (whiteChances(answer) + 1) / 2;
}

/** What the analysis was based on, in words. */
function basisText(answer) {
  const depth = `depth ${answer.depth}, ${Number(answer.nodes).toLocaleString('en')} positions`;
  if (!answer.hidden) return `Searched to ${depth}.`;
  if (answer.basis === 'truth') return `${answer.label}: the whole truth of that moment (${depth}).`;
  const guesses = answer.samples > 1 ? `, ${answer.samples} guesses at what was hidden` : '';
  return `${answer.label}: only that side's view, as the computer would search it in that seat (${depth}${guesses}).`;
}

function show() {
  const st = app.state;
  const key = keyOf(st);
  $('btn-analyse').hidden = key === null;
  $('btn-analyse').setAttribute('aria-pressed', String(an.on));
  $('btn-analyse').textContent = an.on ? 'Stop analysis' : 'Analyse';
  const box = $('analysis');
  box.hidden = !an.on || key === null;
  document.body.dataset.analysis = an.on ? 'on' : '';
  if (box.hidden) return;
  const stalled = an.stalled === key && !an.answers.has(key);
  const answer = stalled
    ? { error: `The computer has not started after ${WORKER_START_LIMIT_MS / 1000} seconds, so there is no analysis. Reload the page to try again.` }
    : an.answers.get(key);
  const thinking = !answer;
  box.classList.toggle('is-thinking', thinking);
  box.dataset.key = key;
  box.dataset.state = thinking ? 'thinking' : answer.error ? 'error' : answer.over ? 'over' : 'done';
  const ready = document.body.dataset.aiReady === 'true';
  if (thinking) {
    $('analysis-eval').textContent = '…';
    $('analysis-best').textContent = ready ? 'The computer is analysing…' : 'The computer is getting ready…';
    $('analysis-basis').textContent = '';
    $('analysis-fill').style.width = '50%';
    return;
  }
  if (answer.error || answer.over) {
    $('analysis-eval').textContent = answer.over ? answer.result || '–' : '!';
    $('analysis-best').textContent = answer.error || `The game had ended here: ${answer.over}`;
    $('analysis-basis').textContent = '';
    $('analysis-fill').style.width = '50%';
    return;
  }
  $('analysis-eval').textContent = formatEval(answer);
  const line = (answer.pv_san || []).slice(1, 5).join(' ');
  $('analysis-best').textContent = `Best: ${answer.san}${line ? ` (then ${line})` : ''}`;
  $('analysis-basis').textContent = basisText(answer) + (answer.final ? '' : an.busy === key ? ' Searching deeper…' : '');
  box.dataset.pass = String(answer.pass);
  $('analysis-fill').style.width = `${Math.round(whiteShare(answer) * 100)}%`;
}

/** Every state: follow the position shown. */
export function renderAnalysis(st) {
  const key = keyOf(st);
  if (key !== an.wanted) {
    // (an error is not kept: what could not be analysed may be by now, e.g. a friend's last
    // message, with its secrets, came in)
    for (const [k, a] of an.answers) if (a.error && k !== an.busy) an.answers.delete(k);
  }
  if (key === null && an.on && st && !isOver(st)) an.on = false; // (a new game: off again)
  an.wanted = an.on ? key : null;
  show();
  drawMarks();
  next();
}

// The best move's arrow, on the position it belongs to.
onBoardShapes(shapes => {
  if (!an.on) return;
  const answer = an.answers.get(keyOf(app.state));
  if (answer && answer.uci) shapes.push({ orig: answer.uci.slice(0, 2), dest: answer.uci.slice(2, 4), brush: 'paleBlue' });
});

// Beside the board the side panel scrolls (a finished Reveal game's pools, Secret Pawn's summary):
// the analysis at its foot is brought into view as it opens and as its answer grows it, by
// scrolling the panel only (never the page). A phone's panel does not scroll: the page does, as
// far as the analysis's foot but never the board's top off the screen (QA on a phone: the
// analysis opened under the screen's foot, unseen).
function keepInView() {
  const box = $('analysis');
  const panel = box.closest('.moves-panel');
  if (box.hidden || !an.on || !panel) return;
  if (panel.scrollHeight <= panel.clientHeight) {
    const below = box.getBoundingClientRect().bottom + 8 - window.innerHeight;
    const board = $('board').getBoundingClientRect().top;
    if (below > 0 && board > 0) window.scrollBy(0, Math.min(below, board));
    return;
  }
  const outer = panel.getBoundingClientRect();
  const top = outer.top + panel.clientTop, bottom = top + panel.clientHeight;
  const at = box.getBoundingClientRect();
  const foot = (box.closest('.replay-bar') || box).getBoundingClientRect().bottom; // (with its padding)
  if (at.bottom > bottom) panel.scrollTop += Math.min(Math.max(foot, at.bottom) - bottom, at.top - top);
  else if (at.top < top) panel.scrollTop -= top - at.top;
}
if (typeof ResizeObserver === 'function') new ResizeObserver(keepInView).observe($('analysis'));

$('btn-analyse').addEventListener('click', () => {
  an.on = !an.on;
  // Stopping: nothing more is asked; a search under way ends within its budget, unseen.
  renderAnalysis(app.state);
  redrawShapes();
});
