// Hidden Chess -- one-click invites (assets/signal.js): the small settings form in the new-game
// dialog (which signaling server to use, and a test of it).

import { describe, getSettings, setSettings } from './settings.js';
import { probe } from './channels.js';

// ------------------------------------------------------------------ settings form

const STYLE = `
  .signal-settings { margin-top: 10px; font-size: 0.9rem; }
  .signal-settings summary { cursor: pointer; color: var(--text-dim, #aaa); }
  .signal-settings[open] summary { margin-bottom: 6px; }
  .signal-help { margin: 4px 0 8px; color: var(--text-dim, #aaa); font-size: 0.85rem; }
  .signal-settings .signal-fields { margin: 8px 0; align-items: flex-end; }
  .signal-settings .signal-fields input[type="number"] { width: 90px; }
  .signal-settings .signal-fields input[type="checkbox"] { width: 18px; height: 18px; padding: 0; }
  .signal-settings .signal-fields label.toggle { flex-direction: row; align-self: center;
    color: var(--text, inherit); }
  .signal-actions { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
  .signal-status { font-size: 0.85rem; color: var(--text-dim, #aaa); }
  .signal-status.is-error { color: #ff8a80; }`;

/** Draw the "One-click invites" settings form into `element` (idempotent). */
export function mountSettings(element) {
  if (!element || element.dataset.hcSignal === "1") return;
  element.dataset.hcSignal = "1";
  if (!document.getElementById("hc-signal-style")) {
    const style = document.createElement("style");
    style.id = "hc-signal-style";
    style.textContent = STYLE;
    document.head.appendChild(style);
  }
  const current = getSettings();
  element.innerHTML = `
    <details class="signal-settings"${current ? " open" : ""}>
      <summary>One-click invites (signaling server)</summary>
      <p class="signal-help">Optional. With a PeerJS server (e.g. <code>python3 build.py signal</code>)
        the invite link alone connects; without one, you exchange two codes.</p>
      <label class="toggle"><input type="checkbox" data-field="on"> <span>Use a signaling server</span></label>
      <div class="signal-fields custom-clock">
        <label>Host <input type="text" data-field="host" autocomplete="off" spellcheck="false"></label>
        <label>Port <input type="number" data-field="port" min="1" max="65535" inputmode="numeric"></label>
        <label>Path <input type="text" data-field="path" autocomplete="off" spellcheck="false"></label>
        <label class="toggle"><input type="checkbox" data-field="secure"> <span>Secure (wss)</span></label>
      </div>
      <div class="signal-actions">
        <button type="button" class="btn" data-action="save">Save</button>
        <button type="button" class="btn" data-action="test">Test</button>
        <span class="signal-status" role="status" aria-live="polite"></span>
      </div>
    </details>`;
  const field = (name) => element.querySelector(`[data-field="${name}"]`);
  const status = element.querySelector(".signal-status");
  const shown = current || { host: location.hostname || "127.0.0.1", port: 9000, path: "/", secure: false };
  field("on").checked = !!current;
  field("host").value = shown.host;
  field("port").value = String(shown.port);
  field("path").value = shown.path;
  field("secure").checked = !!shown.secure;
  // Enter in a field must not submit the surrounding form (it would start a game).
  element.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.tagName === "INPUT") event.preventDefault();
  });
  const read = () => ({ host: field("host").value, port: field("port").value,
                        path: field("path").value, secure: field("secure").checked });
  const say = (text, bad) => {
    status.textContent = text.charAt(0).toUpperCase() + text.slice(1); status.classList.toggle("is-error", !!bad); };
  element.querySelector('[data-action="save"]').addEventListener("click", () => {
    try {
      if (field("on").checked) {
        const saved = setSettings(read());
        say(`Saved: one-click invites through ${describe(saved)}.`, false);
      } else {
        setSettings(null);
        say("Saved: one-click invites are off (invites use codes).", false);
      }
    } catch (error) {
      say(error.message, true);
    }
  });
  element.querySelector('[data-action="test"]').addEventListener("click", () => {
    say("Testing...", false);
    probe(read()).then(() => say("The signaling server answers.", false),
                       (error) => say(error.message, true));
  });
}

