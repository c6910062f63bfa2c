// Hidden Chess -- offline use and updates. `python3 build.py dist` writes a deployable folder
// whose index.html names its build (<meta name="hc-build" content="<version>">) and whose sw.js
// (the service worker) keeps every file of that build in one versioned cache: after one visit the
// page loads with no network at all. A new deploy installs beside the old one; the page then
// offers "A new version is available: Reload", and the old cache is dropped only once the new
// version is the one running. The repository itself (content "dev", e.g. `build.py serve`) never
// registers the worker, so that edits show at once.

import { $ } from './dom.js';
import { app } from './state.js';

/** How often an open page asks the host whether a new version was deployed. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

/** The build this page is ("dev" when served from the repository). */
export function buildVersion() {
  const meta = document.querySelector('meta[name="hc-build"]');
  return (meta && meta.content) || 'dev';
}

/** How long the Reload button waits for the new version to take over before it reloads anyway. */
const TAKEOVER_WAIT_MS = 5000;
let reloading = false;
/** This tab's Reload button asked for the new version (another tab's did not ask for this one). */
let asked = false;

function reloadOnce() {
  if (reloading) return;
  reloading = true;
  location.reload();
}

// The notice under the page's own: its text and a Reload button (`onReload(button)`).
function updateNotice(words, onReload) {
  const old = $('update-notice');
  if (old) old.remove();
  const box = document.createElement('div');
  box.className = 'notice update-notice';
  box.id = 'update-notice';
  box.setAttribute('role', 'status');
  const text = document.createElement('span');
  text.textContent = words;
  const reload = document.createElement('button');
  reload.type = 'button';
  reload.className = 'btn btn-small btn-primary';
  reload.id = 'update-reload';
  reload.textContent = 'Reload';
  reload.addEventListener('click', () => onReload(reload));
  box.append(text, ' ', reload);
  $('notice').after(box);
  return box;
}

function showUpdate(registration) {
  if ($('update-notice')) return;
  const box = updateNotice('A new version of Hidden Chess is available.', reload => {
    reload.disabled = true;
    asked = true;
    const waiting = registration.waiting;
    if (!waiting) return location.reload();
    // The page reloads once the new version has taken over (controllerchange below), or in
    // any case a few seconds later: a button that does nothing is worse than a reload that
    // finds the old version still in charge (the notice then comes back).
    waiting.postMessage({ type: 'activate' });
    setTimeout(() => reloadOnce(), TAKEOVER_WAIT_MS);
  });
  const later = document.createElement('button');
  later.type = 'button';
  later.className = 'notice-close';
  later.setAttribute('aria-label', 'Not now (the new version loads next time)');
  later.textContent = '\u00d7';
  later.addEventListener('click', () => box.remove());
  box.append(later);
}

function showTakenOver() {
  updateNotice('A new version of Hidden Chess took over in another tab: reload once your set-up is confirmed.',
    () => reloadOnce());
}

function watch(registration, worker) {
  if (!worker) return;
  worker.addEventListener('statechange', () => {
    if (worker.state === 'installed' && navigator.serviceWorker.controller) showUpdate(registration);
  });
}

/** Until the page is playable (or 20 s at most): a first visit's service worker then fetches the
 * build's files mostly from the HTTP cache, instead of downloading them a second time while the
 * page itself still downloads Python. */
function playable() {
  return new Promise(resolve => {
    if (window.hcReady) return resolve();
    window.addEventListener('hc:ready', resolve, { once: true });
    setTimeout(resolve, 20000);
  });
}

/** Register the service worker of a deployed build (once the page is playable); offer a reload
 * when a newer one is ready. */
export async function startOffline() {
  if (buildVersion() === 'dev' || !('serviceWorker' in navigator)) return;
  await playable();
  const hadController = !!navigator.serviceWorker.controller;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    // A first visit's worker taking over changes nothing on screen; a new version does. A tab
    // whose player is setting up (pieces being placed, pawns being chosen: kept only in the page
    // until confirmed) is not reloaded under them when another tab asked: it says so instead.
    if (!hadController) return;
    if (asked || !(app.state && app.state.phase === 'setup')) reloadOnce();
    else showTakenOver();
  });
  let registration;
  try {
    registration = await navigator.serviceWorker.register('./sw.js');
  } catch (error) {
    console.warn('Hidden Chess: offline use is unavailable:', error);
    return;
  }
  if (registration.waiting && navigator.serviceWorker.controller) showUpdate(registration);
  watch(registration, registration.installing);
  registration.addEventListener('updatefound', () => watch(registration, registration.installing));
  // A tab left open for days still hears of a new deploy (the browser checks at each visit).
  setInterval(() => registration.update().catch(() => {}), UPDATE_CHECK_MS);
}
