// Hidden Chess -- analysis after the game. In the replay of a finished game, "Analyse" shows the
// computer's evaluation of the position shown and its best move (text, and an arrow on the
// board), one position at a time as the player browses. The request comes from Python
// (hc.analysis(): py/hiddenchess/app/analysis.py): in a hidden variant it follows the replay's
// perspective -- "what White knew" is only White's view, searched as the computer would in that
// seat; "everything" is the truth of that moment. The search runs in the computer's worker
// (computer.js, py/worker.py's analyse), so the page never blocks; the answers are kept by
// position, and a position left before its answer came is not searched any further.

import { $, isOver } from './dom.js';
import { app } from './state.js';
import { analyseInWorker } from './computer.js';
import { onBoardShapes, redrawShapes } from './board.js';

/** How long the worker may take to start before the box says it has not (a worker whose script
 * cannot load never reports a failure: PyScript waits for it). Its answer is still shown if it
 * comes later. */
const WORKER_START_LIMIT_MS = 30_000;

const an = {
  on: false, // the player turned the analysis on
  answers: new Map(), // "game|ply|perspective" -> the worker's answer (or {over} / {error})
  busy: null, // the key the worker is analysing
  wanted: null, // the key of the position shown (analysed next when the worker is free)
  started: 0, // performance.now() when the current search began
  stalled: null, // the key whose search waits for a worker that has not started in time
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

/** Ask Python for the request of the position shown, and the worker for its analysis. */
function next() {
  if (!an.on || an.busy || !an.wanted || an.answers.has(an.wanted)) return;
  let req;
  try {
    req = JSON.parse(window.hc.analysis());
  } catch (err) {
    req = { error: `The analysis could not be asked for: ${err && err.message ? err.message : err}` };
  }
  // (the request is of the position the replay shows now: its own key)
  const key = req.error ? an.wanted : `${req.game}|${req.ply}|${req.perspective}`;
  if (req.error || req.over) {
    an.answers.set(key, req);
    show();
    return;
  }
  an.busy = key;
  an.started = performance.now();
  show();
  const slow = setTimeout(() => {
    if (an.busy === key && document.body.dataset.aiReady !== 'true') {
      an.stalled = key;
      show();
    }
  }, WORKER_START_LIMIT_MS);
  analyseInWorker(JSON.stringify(req))
    .then(text => {
      const answer = JSON.parse(text);
      answer.label = req.label;
      answer.hidden = !!req.hidden;
      answer.ms = Math.round(performance.now() - an.started);
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
      an.answers.set(key, answer);
      document.body.dataset.analysisMs = String(answer.ms || '');
      show();
      redrawShapes();
      next();
    });
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

/** White's share of the eval bar, 0..1 (a logistic of the score, as lichess draws it). */
function whiteShare(answer) {
  if (answer.mate !== null && answer.mate !== undefined) {
    return (answer.turn === 'white') === answer.mate > 0 ? 1 : 0;
  }
  return 1 / (1 + Math.exp(-0.00368208 * answer.white));
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
    $('analysis-eval').textContent = answer.over ? '–' : '!';
    $('analysis-best').textContent = answer.error || `The game had ended here: ${answer.over}`;
    $('analysis-basis').textContent = '';
    $('analysis-fill').style.width = '50%';
    return;
  }
  $('analysis-eval').textContent = formatEval(answer);
  const line = (answer.pv_san || []).slice(1, 5).join(' ');
  $('analysis-best').textContent = `Best: ${answer.san}${line ? ` (then ${line})` : ''}`;
  $('analysis-basis').textContent = basisText(answer);
  $('analysis-fill').style.width = `${Math.round(whiteShare(answer) * 100)}%`;
}

/** Every state: follow the position shown. */
export function renderAnalysis(st) {
  const key = keyOf(st);
  if (key === null && an.on && st && !isOver(st)) an.on = false; // (a new game: off again)
  an.wanted = an.on ? key : null;
  show();
  next();
}

// The best move's arrow, on the position it belongs to.
onBoardShapes(shapes => {
  if (!an.on) return;
  const answer = an.answers.get(keyOf(app.state));
  if (answer && answer.uci) shapes.push({ orig: answer.uci.slice(0, 2), dest: answer.uci.slice(2, 4), brush: 'paleBlue' });
});

$('btn-analyse').addEventListener('click', () => {
  an.on = !an.on;
  // Stopping: nothing more is asked; a search under way ends within its budget, unseen.
  renderAnalysis(app.state);
  redrawShapes();
});
