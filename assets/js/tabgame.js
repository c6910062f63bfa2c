// Hidden Chess -- which of the games kept on this device this tab shows (issue 26). Every game has
// its own storage key, "hiddenchess.game.<ID>" (py/hiddenchess/app/library.py); a tab remembers
// its game in sessionStorage, so a reload of the tab shows the same game even while another tab
// plays another one. A new tab opens the game last opened on this device ("hiddenchess.last").
// (tabGame and saveKey live in dom.js: the reload's early preview needs them before this loads.)

import { saveKey, tabGame } from './dom.js';

export { saveKey, tabGame };

const TAB_KEY = 'hiddenchess:tab-game';
const ID = /^[0-9A-Za-z_-]{1,64}$/;

/** Remember the game this tab shows (after every state). */
export function rememberTabGame(id) {
  if (!id || !ID.test(id)) return;
  try {
    if (window.sessionStorage.getItem(TAB_KEY) !== id) window.sessionStorage.setItem(TAB_KEY, id);
  } catch {
    // no sessionStorage: a reload opens the device's last game
  }
}
