// Hidden Chess -- the computer opponent. It thinks in a Web Worker (py/worker.py) so the page
// never blocks. It gets only the request of state.computer: the view of the computer's seat and
// the level, never the game. Its answer goes back through the Session (action computer_move),
// which checks it like any move.

import { PyWorker } from '../vendor/pyscript/core.js';
import { $, COLOR_NAMES } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { showToast } from './toast.js';
import { confirmDialog } from './dialogs.js';

const ai = {
  worker: null, // Promise of the PyScript worker running py/worker.py (started on demand)
  job: null, // "game|ply" of the request the worker is answering
  shownMessage: null, // the computer's last draw answer already shown
};

function startWorker() {
  if (!ai.worker) {
    const version = new URL('../vendor/pyodide/pyodide.mjs', import.meta.url).href;
    ai.worker = PyWorker('./py/worker.py', { config: './pyscript.toml', version });
    ai.worker.then(() => {
      document.body.dataset.aiReady = 'true';
      if (app.state) renderComputer(app.state);
    }, () => {});
  }
  return ai.worker;
}

/** Hand the computer's request (if any) to the worker; its move comes back as computer_move. */
export function think(st) {
  const c = st.computer;
  if (!c) return;
  startWorker();
  const req = c.request;
  if (!req) return;
  const key = `${req.game}|${req.ply}`;
  if (ai.job === key) return;
  ai.job = key;
  startWorker()
    .then(w => w.sync.choose(JSON.stringify(req.view), req.level))
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
      showToast(`The computer could not start: ${err && err.message ? err.message : err}`);
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
  if (c && c.message && c.message !== ai.shownMessage) showToast(c.message, { kind: 'info' });
  ai.shownMessage = c ? c.message : null;
}

$('btn-takeback').addEventListener('click', async () => {
  const t = app.state && app.state.takeback;
  if (t) {
    const ok = await confirmDialog(`${COLOR_NAMES[t.by]} asks to take back ${t.san}`,
      `${COLOR_NAMES[t.agree]}, do you agree? The move is undone and ${COLOR_NAMES[t.by]} moves again.`, 'Agree');
    if (!ok) return;
  }
  call('takeback');
});
