// Hidden Chess -- the "Relays and ICE servers" settings in the new-game dialog: which Nostr relays
// one-click invites and quick play use (public ones by default, or your own), the STUN servers
// of the WebRTC connection (assets/peer.js's setting) and a TURN server (its address, user name
// and password; stored in the same ICE setting), which strict networks need (issue #24).

/** The ICE list split into its TURN server (the first turn:/turns: entry) and the rest. */
export function splitTurn(list) {
  const isTurn = s => (Array.isArray(s.urls) ? s.urls : [s.urls]).some(u => /^turns?:/.test(u));
  const turn = list.find(isTurn) || null;
  return { turn, others: list.filter(s => s !== turn) };
}

/** The ICE list from the STUN list and the TURN fields (a TURN server needs its address; its
 * user name and password go with it). Throws Error with what is wrong. */
export function withTurn(others, url, username, credential) {
  url = (url || '').trim();
  if (!url) return others;
  if (!/^turns?:[^\s]+$/.test(url)) throw new Error(`"${url}" is not a TURN address (turn:host:3478 or turns:host:5349)`);
  const server = { urls: url };
  if (username) server.username = username.trim();
  if (credential) server.credential = credential;
  return [...others, server];
}

import HCPeer from '../../peer.js';
import { DEFAULT_RELAYS, RELAYS_KEY, relayUrls, setRelays } from './relays.js';

const STYLE = `
  .signal-settings { margin-top: 10px; font-size: 0.9rem; }
  .signal-settings summary { cursor: pointer; color: var(--text-dim, #aaa); }
  .signal-help { margin: 4px 0 8px; color: var(--text-dim, #aaa); font-size: 0.85rem; }
  .signal-field { display: flex; flex-direction: column; gap: 4px; margin: 6px 0; font-size: 0.85rem; }
  .signal-field textarea, .signal-field input { font: 0.8rem ui-monospace, monospace; width: 100%; box-sizing: border-box; }
  .signal-turn-login { display: flex; gap: 8px; }
  .signal-turn-login .signal-field { flex: 1; }
  .signal-actions { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
  .signal-status { font-size: 0.85rem; color: var(--text-dim, #aaa); }
  .signal-status.is-error { color: #ff8a80; }`;

/** The form's styles, once: a constructed style sheet, which the page's Content-Security-Policy
 * allows (style-src 'self' refuses a <style> element made by a script). */
let styled = false;
function addStyle() {
  if (styled) return;
  styled = true;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch {
    // (a browser without constructed style sheets: the form keeps the page's own styles)
  }
}

/** Draw the settings form into `element` (idempotent). */
export function mountSettings(element) {
  if (!element || element.dataset.hcRelays === '1') return;
  element.dataset.hcRelays = '1';
  addStyle();
  let custom = false;
  try {
    custom = localStorage.getItem(RELAYS_KEY) !== null;
  } catch {
    // (site data blocked: the public relays, and the page starts all the same)
  }
  element.innerHTML = `
    <details class="signal-settings">
      <summary>Relays and ICE servers</summary>
      <p class="signal-help">Invite links and quick play find the other device through public Nostr relays
        (they pass on the encrypted connection set-up, never the game). You can use your own relay instead.</p>
      <label class="signal-field">Relays, one per line (wss://…)
        <textarea data-field="relays" rows="3" spellcheck="false" autocomplete="off"></textarea></label>
      <label class="signal-field">STUN servers (JSON list, e.g. [{"urls":"stun:stun.example.org:3478"}]; [] for a local network only)
        <textarea data-field="ice" rows="2" spellcheck="false" autocomplete="off"></textarea></label>
      <p class="signal-help">A TURN server relays the game when your network blocks direct connections
        (some mobile, company or school networks). Either player's is enough.</p>
      <label class="signal-field">TURN server (turn:host:3478 or turns:host:5349)
        <input type="text" data-field="turn" spellcheck="false" autocomplete="off"></label>
      <div class="signal-turn-login">
        <label class="signal-field">TURN user name <input type="text" data-field="turn-user" spellcheck="false" autocomplete="off"></label>
        <label class="signal-field">TURN password <input type="password" data-field="turn-pass" autocomplete="off"></label>
      </div>
      <div class="signal-actions">
        <button type="button" class="btn" data-action="save">Save</button>
        <button type="button" class="btn" data-action="reset">Use the public relays</button>
        <span class="signal-status" role="status" aria-live="polite"></span>
      </div>
    </details>`;
  const relays = element.querySelector('[data-field="relays"]');
  const ice = element.querySelector('[data-field="ice"]');
  const turn = element.querySelector('[data-field="turn"]');
  const turnUser = element.querySelector('[data-field="turn-user"]');
  const turnPass = element.querySelector('[data-field="turn-pass"]');
  const status = element.querySelector('.signal-status');
  const fill = () => {
    relays.value = relayUrls().join('\n');
    const { turn: t, others } = splitTurn(HCPeer.iceServers());
    ice.value = JSON.stringify(others);
    turn.value = t ? [].concat(t.urls)[0] : '';
    turnUser.value = (t && t.username) || '';
    turnPass.value = (t && t.credential) || '';
  };
  fill();
  const say = (text, bad) => {
    status.textContent = text;
    status.classList.toggle('is-error', !!bad);
  };
  if (custom) say('Using your own relays.', false);
  element.querySelector('[data-action="save"]').addEventListener('click', () => {
    try {
      const list = setRelays(relays.value.split(/\s+/).filter(Boolean));
      let iceList;
      try {
        iceList = JSON.parse(ice.value || '[]');
      } catch (e) {
        throw new Error(`the STUN servers are not a JSON list (${e.message})`);
      }
      if (!Array.isArray(iceList)) throw new Error('the STUN servers are not a JSON list');
      HCPeer.setIceServers(withTurn(splitTurn(iceList).others, turn.value, turnUser.value, turnPass.value));
      fill();
      say(`Saved: ${list.length} relay${list.length === 1 ? '' : 's'}.`, false);
    } catch (e) {
      say(e.message.charAt(0).toUpperCase() + e.message.slice(1), true);
    }
  });
  element.querySelector('[data-action="reset"]').addEventListener('click', () => {
    try {
      setRelays(null);
    } catch (e) {
      say(`Not saved: ${e.message}.`, true);
      return;
    }
    fill();
    say(`Saved: the ${DEFAULT_RELAYS.length} public relays.`, false);
  });
}
