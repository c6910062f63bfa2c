// Hidden Chess -- "Your move" (issue 26): while this page is in the background and the friend's
// move arrives, the tab's title and icon change, and with the player's permission the system
// shows a notification. Looking at the page again puts the title and icon back.
//
// What a closed page cannot do: there is no push server of ours, so nothing reaches a page that is
// not open (in some tab, in the background or not). A friend's move made meanwhile arrives when
// the page opens the game again and the friends' pages connect; the Games screen then shows which
// games await you.

import { foeWords } from './dom.js';

const notice = { on: false, title: '', icon: null, iconHref: null, dotted: null, seen: null };

/** Whether this state is a game with a friend whose move is now this page's to make. */
function mine(st) {
  const p = st && st.peer;
  if (!p || !st.status || st.status.over) return false;
  if (st.phase === 'setup') return false;
  return st.turnColor === p.seat;
}

function iconLink() {
  return document.querySelector('link[rel~="icon"]');
}

// The page's icon with a dot in its corner (the SVG icon with a circle added).
async function dottedIcon(href) {
  if (notice.dotted) return notice.dotted;
  try {
    const text = await (await fetch(href)).text();
    const dot = '<circle cx="26" cy="6" r="6" fill="#d33" stroke="#fff" stroke-width="1.5"/>';
    const svg = text.replace(/<\/svg>\s*$/, `${dot}</svg>`);
    notice.dotted = `data:image/svg+xml,${encodeURIComponent(svg)}`;
  } catch {
    notice.dotted = null;
  }
  return notice.dotted;
}

function showAlert(st) {
  if (!notice.on) {
    notice.on = true;
    notice.title = document.title;
    const link = iconLink();
    notice.iconHref = link ? link.getAttribute('href') : null;
  }
  const list = st.moves || [];
  const last = list[list.length - 1];
  const variant = st.variant ? st.variant.name : 'Hidden Chess';
  document.title = `(Your move) ${notice.title}`;
  const link = iconLink();
  if (link && notice.iconHref) {
    dottedIcon(link.href).then(url => {
      if (url && notice.on) link.setAttribute('href', url);
    });
  }
  document.documentElement.dataset.yourMove = 'true';
  if ('Notification' in window && window.Notification.permission === 'granted') {
    try {
      const who = foeWords(st.peer && st.peer.stranger, 'Your friend');
      const body = last ? `${who} played ${last.san} (${variant}).` : `${who} moved (${variant}).`;
      const n = new window.Notification('Your move', { body, tag: `hiddenchess-${st.gameId}`, icon: notice.iconHref || undefined });
      n.onclick = () => {
        window.focus();
        n.close();
      };
    } catch {
      // (a browser that allows notifications only from a service worker: the title says it)
    }
  }
}

function clearAlert() {
  if (!notice.on) return;
  notice.on = false;
  document.title = notice.title;
  const link = iconLink();
  if (link && notice.iconHref) link.setAttribute('href', notice.iconHref);
  delete document.documentElement.dataset.yourMove;
}

/** After every state: a friend's move that makes it this page's turn while the page is hidden. */
export function renderYourMove(st) {
  const key = st && st.peer ? `${st.gameId}|${(st.moves || []).length}` : null;
  const before = notice.seen;
  notice.seen = key;
  if (!mine(st)) return;
  if (document.visibilityState !== 'hidden') return;
  if (before === null || before === key || before.split('|')[0] !== st.gameId) return; // nothing new arrived
  showAlert(st);
}

/** A sentence on the notifications' state, for the Games screen. */
export function permissionText() {
  if (!('Notification' in window)) return 'This browser shows no notifications: the tab’s title and icon tell you when it is your move.';
  const p = window.Notification.permission;
  if (p === 'granted') return 'Notifications are on: this device tells you when your friend moves while the page is in the background.';
  if (p === 'denied') return 'Notifications are blocked for this page (the browser’s site settings can allow them); the tab’s title and icon still change.';
  return 'While the page is in the background, its title and icon change when it is your move. Notifications can tell you too:';
}

export async function askPermission() {
  if (!('Notification' in window) || window.Notification.permission !== 'default') return;
  try {
    await window.Notification.requestPermission();
  } catch {
    // (an old browser's callback form, or refused: the text says what is on)
  }
}

export function startYourMove() {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') clearAlert();
  });
  window.addEventListener('focus', clearAlert);
}
