// Hidden Chess -- which of the games kept on this device this tab shows (issue 26). Every game has
// its own storage key, "hiddenchess.game.<ID>" (py/hiddenchess/app/library.py); a tab remembers
// its game in sessionStorage, so a reload of the tab shows the same game even while another tab
// plays another one. A new tab opens the game last opened on this device ("hiddenchess.last").

const TAB_KEY = 'hiddenchess:tab-game';
const LAST_KEY = 'hiddenchess.last';
const ID = /^[0-9A-Za-z_-]{1,64}$/;

/** This tab's game id, or null (a new tab: Python opens the device's last game). */
export function tabGame() {
  try {
    const id = window.sessionStorage.getItem(TAB_KEY);
    return id && ID.test(id) ? id : null;
  } catch {
    return null;
  }
}

/** Remember the game this tab shows (after every state). */
export function rememberTabGame(id) {
  if (!id || !ID.test(id)) return;
  try {
    if (window.sessionStorage.getItem(TAB_KEY) !== id) window.sessionStorage.setItem(TAB_KEY, id);
  } catch {
    // no sessionStorage: a reload opens the device's last game
  }
}

/** The storage key of the game this tab shows (before Python is up: the one it will open). */
export function saveKey(id = null) {
  let game = id || tabGame();
  if (!game) {
    try {
      game = window.localStorage.getItem(LAST_KEY);
    } catch {
      game = null;
    }
  }
  return game && ID.test(game) ? `hiddenchess.game.${game}` : 'hiddenchess.current';
}
