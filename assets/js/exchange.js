// Hidden Chess -- export and import: the game as PGN, JSON record and FEN (copy or download), a
// finished game's replay link (#replay=..., the record in the fragment: never sent anywhere), and
// importing a PGN or record to replay it. What may be exported, and every check of an imported
// text, is the Session's (py/hiddenchess/app/exchange.py): window.hc.exportGame() and the
// "import_game" action.

import { $, download, isOver } from './dom.js';
import { app } from './state.js';
import { call } from './bridge.js';
import { mayLeave } from './dialogs.js';
import { showToast } from './toast.js';

const out = { data: null };

async function copyText(text, what) {
  const done = $('export-done');
  try {
    await navigator.clipboard.writeText(text);
    done.textContent = `${what} copied.`;
  } catch {
    // No clipboard (an insecure page): select it in the box so that Ctrl+C copies it.
    const box = $('export-pgn');
    box.value = text;
    box.focus();
    box.select();
    done.textContent = `${what} is selected in the box: press Ctrl+C (or ⌘C) to copy it.`;
  }
}

function replayLink(value) {
  const url = new URL(window.location.href);
  url.hash = `replay=${value}`;
  return url.href;
}

export function openExchange() {
  let data;
  try {
    data = JSON.parse(window.hc.exportGame(window.location.origin + window.location.pathname));
  } catch (err) {
    data = { error: `The game could not be exported: ${err && err.message ? err.message : err}` };
  }
  out.data = data.error ? null : data;
  $('export-error').hidden = !data.error;
  $('export-error').textContent = data.error || '';
  $('export-out').hidden = !!data.error;
  if (!data.error) {
    $('export-pgn').value = data.pgn;
    $('copy-fen').hidden = !data.fen;
    $('copy-link').hidden = !data.link;
  }
  $('export-done').textContent = '';
  $('import-error').hidden = true;
  $('dlg-exchange').showModal();
  // The record opens at its tags: the dialog's focus put the caret, and the view, at its end (QA).
  const box = $('export-pgn');
  if (document.activeElement === box) box.setSelectionRange(0, 0);
  box.scrollTop = 0;
}

async function importGame(args) {
  const st = app.state;
  // (a move or a setup choice made, such as sealed pawns: state.inProgress)
  const going = st && !isOver(st) && (st.inProgress || (st.moves || []).length > 0);
  if (going) { // a text that cannot be imported is said so before anything is asked
    const checked = call('check_import', args, { quiet: true });
    if (!checked || checked.error) return checked;
  }
  if (!(await mayLeave(going && ['Import a game?', 'The imported game opens beside the game in progress, which is kept in Your games.', 'Import', { danger: false }]))) {
    return null;
  }
  const res = call('import_game', args, { quiet: true });
  return res;
}

async function importFromBox() {
  const res = await importGame({ text: $('import-text').value });
  if (!res) return;
  if (res.error) {
    $('import-error').textContent = res.error;
    $('import-error').hidden = false;
    return;
  }
  $('import-text').value = '';
  $('dlg-exchange').close();
}

/** Opened with a replay link: import the game it carries (after asking, if one is going). */
export async function openReplayLink() {
  const m = /[#&]replay=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (!m) return;
  const res = await importGame({ link: m[1] });
  if (res && !res.error) history.replaceState(null, '', window.location.pathname + window.location.search);
  else if (res && res.error) showToast(`This replay link cannot be opened: ${res.error}`);
}

export function startExchange() {
  $('btn-exchange').addEventListener('click', openExchange);
  $('exchange-close').addEventListener('click', () => $('dlg-exchange').close());
  $('copy-pgn').addEventListener('click', () => out.data && copyText(out.data.pgn, 'The PGN'));
  $('copy-record').addEventListener('click', () => out.data && copyText(out.data.record, 'The JSON record'));
  $('copy-fen').addEventListener('click', () => out.data && copyText(out.data.fen, 'The FEN'));
  $('copy-link').addEventListener('click', () => out.data && copyText(replayLink(out.data.link), 'The replay link'));
  $('save-pgn').addEventListener('click', () => out.data && download(`${out.data.filename}.pgn`, out.data.pgn));
  $('save-record').addEventListener('click', () => out.data && download(`${out.data.filename}.json`, out.data.record));
  $('import-go').addEventListener('click', importFromBox);
  $('import-file').addEventListener('change', async e => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    if (file.size > 4000000) { // (a backup of many games: py/hiddenchess/app/backup.py)
      $('import-error').textContent = 'This file is larger than a backup of games (4 MB at most).';
      $('import-error').hidden = false;
      return;
    }
    $('import-text').value = await file.text();
    e.target.value = '';
  });
  window.addEventListener('hashchange', () => app.ready && openReplayLink());
}
