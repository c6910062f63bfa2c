// Hidden Chess -- the computer opponent. It thinks in a Web Worker (py/worker.py) so the page
// never blocks. It gets only the request of state.computer: the view of the computer's seat and
// the level, never the game. Its answer goes back through the Session (action computer_move),
// which checks it like any move.

import { PyWorker } from '../vendor/pyscript/core.js';
import { $ } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { showToast } from './toast.js';
import { takeBack } from './dialogs.js';

/** How long after the worker is up its snapshot is made (when the computer is not thinking). */
const SNAPSHOT_DELAY_MS = 8000;
/** How long an answer of the worker may take before the worker counts as stuck: the searches
 * stop themselves within seconds, whatever the device (hiddenchess.ai's time caps: a move's is
 * its request's timeMs, 1.1 s at level 1 to 7.4 s at level 5; the replay's longer analysis
 * 10.6 s), so a worker that is silent well after it died (its thread gone, its Python failed for
 * good). A move: three times its cap and 10 s more, at least 15 s; an analysis: 45 s. */
const STUCK_MS = 45000;
const moveStuckMs = timeMs => Math.max(15000, 3 * (Number(timeMs) || STUCK_MS) + 10000);
/** How many workers one request is tried on before the computer gives up on it. */
const TRIES = 3;

const ai = {
  worker: null, // Promise of the PyScript worker running py/worker.py (started once needed)
  job: null, // "game|ply" of the request the worker is answering
  shownMessage: null, // the computer's last draw answer already shown
  analysing: 0, // analyses of a replayed position (analysis.js) the worker is running
  restarts: 0, // workers stopped because they failed or stopped answering (body[data-ai-restarts])
  ponderKey: null, // "game|ply" of the position the worker thinks about on the player's time
  pondering: false, // a slice of it is under way
  pondered: 0, // nodes searched on the player's time since the page opened (body[data-ai-pondered])
};

/** ``promise``, or a rejection if it has not settled within ``ms``. */
function inTime(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// The worker boots its own Pyodide (seconds), so it starts as soon as a game against the computer
// is on its way -- chosen in the New game dialog, pointed at on the start screen, or an unfinished
// one restored (its saved preview already, while the page's own Python starts) -- and is ready
// before the player's first move, not at the computer's first request. A page that plays no
// computer game never starts it (a second Pyodide costs a phone dearly). It imports the engine's
// modules as it starts and warms up (below), so its first replies are as quick as the later ones
// (bench/ai_browser.py). body[data-ai-ready]: absent (not started), "false" (starting), "true",
// "failed".
function startWorker() {
  if (!ai.worker) {
    const version = new URL('./pyodide-boot.js', import.meta.url).href; // pyscript.toml's interpreter
    document.body.dataset.aiReady = 'false';
    if (app.state) renderComputer(app.state); // ("getting ready", once more after a restart)
    const started = PyWorker('./py/worker.py', { config: './pyscript.toml', version }).then(async w => {
      // Two small answers, thrown away (py/worker.py's warm, a few hundredths of a second): the
      // browser compiles the paths a request takes, so that the first real replies are as quick
      // as the later ones (without them the second took about a quarter longer). (A worker that
      // does not answer them is ready all the same: its first request finds it stuck, below.)
      try {
        await inTime(w.sync.warm(), STUCK_MS, 'warm-up');
        await inTime(w.sync.warm(), STUCK_MS, 'warm-up');
        document.body.dataset.aiStartedFrom = await inTime(w.sync.started_from(), STUCK_MS, 'start'); // "snapshot" | "fresh"
      } catch (err) {
        console.warn('The computer could not warm up:', err);
      }
      return w;
    });
    ai.worker = started;
    started.then(() => {
      if (ai.worker !== started) return; // (stopped meanwhile)
      document.body.dataset.aiReady = 'true';
      if (app.state) renderComputer(app.state);
      // Its next start from a snapshot (pyodide-boot.js), made in the background, not while it thinks.
      import('./pyodide-boot.js').then(boot => {
        boot.holdSnapshotsWhile(() => ai.job !== null || ai.analysing > 0 || ai.pondering);
        boot.ensureSnapshot('worker', SNAPSHOT_DELAY_MS);
      }).catch(() => {});
    }, () => {
      if (ai.worker === started) document.body.dataset.aiReady = 'failed';
    });
  }
  return ai.worker;
}

/** Stop the worker ``w`` (null: one that did not start) after ``err``, so that the next request
 * starts a new one. */
function dropWorker(w, err) {
  console.warn('The computer starts again after:', err);
  ai.worker = null;
  ai.restarts += 1;
  document.body.dataset.aiRestarts = String(ai.restarts);
  if (w) {
    try {
      w.terminate();
    } catch (e) {
      /* already gone */
    }
  }
}

/** ``request(worker)``'s answer. A worker that fails to start, fails the request (its Python
 * died) or has not answered within ``stuckMs`` is stopped and the request asked of a new one, up to
 * TRIES workers in all; the last failure is then the rejection. */
async function ask(request, what, stuckMs = STUCK_MS) {
  let failure = null;
  for (let tries = 0; tries < TRIES; tries += 1) {
    const worker = startWorker();
    let w = null;
    try {
      w = await worker;
      return await inTime(request(w), stuckMs, what);
    } catch (err) {
      failure = err;
      if (ai.worker === worker) dropWorker(w, err); // (not one an answer of another request stopped)
    }
  }
  throw failure;
}

// "Against the computer" chosen in the New game dialog, or already chosen when it opens (after the
// dialog's own listeners have run: a variant the computer does not play unchecks it).
function whenChosen() {
  setTimeout(() => {
    const input = $('form-new').querySelector('input[name=mode][value=computer]');
    if ($('dlg-new').open && input && input.checked && !input.disabled) startWorker();
  }, 0);
}
$('form-new').addEventListener('change', whenChosen);
$('form-new').addEventListener('hc:opened', whenChosen);
// The mouse on a start-screen card's "Play the computer" (start.js): it is about to be clicked.
// (Not a finger: one sliding over it scrolls the screen, and its tap starts the game anyway.)
$('start').addEventListener('pointerover', e => {
  if (e.pointerType === 'mouse' && e.target.closest && e.target.closest('.play-computer')) startWorker();
});

// A humane pace: the computer's reply never lands while the player's move is still sliding, and
// at the lowest levels (whose search takes a few hundredths of a second) it comes after a short
// pause, as a person's would. The pause counts from the player's move, so the search's own time
// is part of it; the higher levels only wait for the animation (their search outlasts it).
const HUMAN_PAUSE_MS = { 1: [650, 1150], 2: [400, 800] };
const animationMs = () => (app.settings && typeof app.settings.animMs === 'number' ? app.settings.animMs : 180);

/** When the computer's reply to a request made at ``since`` (performance.now()) may land. */
function paced(level, since) {
  const [lo, hi] = HUMAN_PAUSE_MS[level] || [0, 0];
  const pause = Math.round(lo + Math.random() * (hi - lo));
  document.body.dataset.aiPause = String(pause);
  const due = since + Math.max(animationMs() + 30, pause);
  const latest = due + animationMs() + 150; // (a hidden tab draws no frames: never wait on them long)
  return new Promise(resolve => {
    const look = () => {
      const now = performance.now();
      if (now < due) return setTimeout(look, due - now);
      const sliding = app.cg && app.cg.state.animation.current;
      if (sliding && now < latest) return setTimeout(look, 16);
      resolve();
    };
    look();
  });
}

/** The analysis of one replayed position (analysis.js): ``requestJson`` (hc.analysis()) to the
 * worker's analyse with a budget of ``nodes``, which answers JSON text. Starts the worker if need
 * be; rejects if it fails. */
export function analyseInWorker(requestJson, nodes) {
  ai.analysing += 1;
  return ask(w => (nodes === undefined ? w.sync.analyse(requestJson) : w.sync.analyse(requestJson, nodes)), 'analysis')
    .finally(() => (ai.analysing -= 1));
}

/** Think on the player's time (py/worker.py's ponder, hiddenchess.ai.ponder): while the player
 * thinks, at a level that does, the worker searches the position the computer left into the table
 * its next search starts from, so that its reply sees deeper in the same time. In slices (``p.slice``
 * nodes, about a tenth of a second each) up to ``p.nodes``: a move the player makes meanwhile waits
 * at most one slice, and a new position (a move, a takeback, another game) ends it. Not before the
 * worker is up (a player's first move is not held up by it), nor in a hidden tab (no one is
 * thinking there, and a phone's battery counts); a failure only ends it. ``window.hcPonder = false``
 * (set by the browser tests, whose hundreds of pages need no background search) turns it off. */
async function ponder(p) {
  const key = p ? `${p.game}|${p.ply}` : null;
  if (key === ai.ponderKey) return;
  ai.ponderKey = key;
  const started = ai.worker;
  if (!p || !started || document.body.dataset.aiReady !== 'true' || globalThis.hcPonder === false) return;
  const view = JSON.stringify(p.view);
  let left = p.nodes;
  try {
    const w = await started;
    while (ai.ponderKey === key && ai.worker === started && left > 0 && !document.hidden
           && ai.job === null && !ai.analysing) {
      ai.pondering = true;
      const answer = JSON.parse(await inTime(w.sync.ponder(view, p.level, Math.min(p.slice, left)),
        STUCK_MS, 'pondering'));
      ai.pondering = false;
      if (answer.error || !(answer.nodes > 0)) break;
      left -= answer.nodes;
      ai.pondered += answer.nodes;
      document.body.dataset.aiPondered = String(ai.pondered);
    }
  } catch (err) {
    console.warn('The computer stopped thinking on your time:', err);
  } finally {
    ai.pondering = false;
  }
}

/** Hand the computer's request (if any) to the worker; its move comes back as computer_move. While
 * the player is to move, the worker may think on their time (``ponder``). */
export function think(st) {
  const c = st.computer;
  if (!c || (st.status && st.status.over)) {
    ai.ponderKey = null; // (a finished game needs no computer)
    return;
  }
  startWorker();
  ponder(c.ponder);
  const req = c.request;
  if (!req) return;
  const key = `${req.game}|${req.ply}`;
  if (ai.job === key) return;
  ai.job = key;
  const since = performance.now();
  ask(w => w.sync.choose(JSON.stringify(req.view), req.level), 'move', moveStuckMs(req.timeMs))
    .then(text => paced(req.level, since).then(() => text))
    .then(text => {
      const answer = JSON.parse(text);
      if (ai.job === key) ai.job = null; // done: the same ply may be asked again after a takeback
      const cur = app.state && app.state.computer && app.state.computer.request;
      if (!cur || `${cur.game}|${cur.ply}` !== key) return; // a takeback or a new game meanwhile
      if (answer.error) {
        showToast(`The computer could not move: ${answer.error}`);
        return;
      }
      call('computer_move', { uci: answer.uci, ply: req.ply, game: req.game, score: answer.score });
    })
    .catch(err => {
      console.error(err);
      if (ai.job === key) ai.job = null;
      showToast(`The computer could not move (${err && err.message ? err.message : err}). Reload the page to try again.`);
    });
}

export function renderComputer(st) {
  const c = st.computer;
  const thinking = !!(c && c.thinking);
  $('thinking').hidden = !thinking;
  if (thinking) {
    $('thinking-text').textContent = document.body.dataset.aiReady === 'true'
      ? `The computer (level ${c.level}) is thinking…`
      : 'The computer is getting ready…';
  }
  document.body.dataset.computer = c ? c.seat : '';
  document.body.dataset.thinking = thinking ? 'true' : 'false';
  // Whether a takeback is allowed is the Session's call; not while the computer thinks is ours.
  const canTakeBack = !!c && !thinking && !!c.canTakeBack;
  // On one device (no computer, no friend) the last move may be taken back if the other player agrees.
  $('btn-takeback').hidden = !c && !!st.peer;
  $('btn-takeback').disabled = c ? !canTakeBack : !st.takeback;
  // (a greyed button says why, in the Session's words: "e4 revealed something: it cannot be taken
  // back.", "The computer is thinking: take back once it has moved.")
  $('btn-takeback').title = $('btn-takeback').disabled && st.takebackWhy ? st.takebackWhy : '';
  if (c && c.message && c.message !== ai.shownMessage) showToast(c.message, { kind: 'info' });
  ai.shownMessage = c ? c.message : null;
}

$('btn-takeback').addEventListener('click', () => takeBack());
