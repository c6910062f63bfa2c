// Hidden Chess -- the "Relays and ICE servers" settings in the new-game dialog: which Nostr relays
// one-click invites and quick play use (public ones by default, or your own), and the STUN/TURN
// servers of the WebRTC connection (assets/peer.js's setting).

import HCPeer from '../../peer.js';
import { DEFAULT_RELAYS, RELAYS_KEY, relayUrls, setRelays } from './relays.js';

const STYLE = `
  .signal-settings { margin-top: 10px; font-size: 0.9rem; }
  .signal-settings summary { cursor: pointer; color: var(--text-dim, #aaa); }
  .signal-help { margin: 4px 0 8px; color: var(--text-dim, #aaa); font-size: 0.85rem; }
  .signal-field { display: flex; flex-direction: column; gap: 4px; margin: 6px 0; font-size: 0.85rem; }
  .signal-field textarea { font: 0.8rem ui-monospace, monospace; width: 100%; box-sizing: border-box; }
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
  const custom = localStorage.getItem(RELAYS_KEY) !== null;
  element.innerHTML = `
    <details class="signal-settings">
      <summary>Relays and ICE servers</summary>
      <p class="signal-help">Invite links and quick play find the other device through public Nostr relays
        (they pass on the encrypted connection set-up, never the game). You can use your own relay instead.</p>
      <label class="signal-field">Relays, one per line (wss://…)
        <textarea data-field="relays" rows="3" spellcheck="false" autocomplete="off"></textarea></label>
      <label class="signal-field">ICE servers (JSON list, e.g. [{"urls":"stun:stun.example.org:3478"}]; [] for a local network only)
        <textarea data-field="ice" rows="2" spellcheck="false" autocomplete="off"></textarea></label>
      <div class="signal-actions">
        <button type="button" class="btn" data-action="save">Save</button>
        <button type="button" class="btn" data-action="reset">Use the public relays</button>
        <span class="signal-status" role="status" aria-live="polite"></span>
      </div>
    </details>`;
  const relays = element.querySelector('[data-field="relays"]');
  const ice = element.querySelector('[data-field="ice"]');
  const status = element.querySelector('.signal-status');
  const fill = () => {
    relays.value = relayUrls().join('\n');
    ice.value = JSON.stringify(HCPeer.iceServers());
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
        throw new Error(`the ICE servers are not a JSON list (${e.message})`);
      }
      HCPeer.setIceServers(iceList);
      fill();
      say(`Saved: ${list.length} relay${list.length === 1 ? '' : 's'}.`, false);
    } catch (e) {
      say(e.message.charAt(0).toUpperCase() + e.message.slice(1), true);
    }
  });
  element.querySelector('[data-action="reset"]').addEventListener('click', () => {
    setRelays(null);
    fill();
    say(`Saved: the ${DEFAULT_RELAYS.length} public relays.`, false);
  });
}
