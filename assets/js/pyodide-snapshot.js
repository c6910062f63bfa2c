// Hidden Chess -- the background worker that makes an interpreter snapshot (see pyodide-boot.js).
// Started by pyodide-boot.js a few seconds after a start without a snapshot; gets {role, key}, answers
// with what happened ("stored", "present", "not stored: QuotaExceededError", "error: ...").

import { makeSnapshot } from './pyodide-boot.js';

self.onmessage = async ({ data }) => {
  let outcome;
  try {
    outcome = await makeSnapshot(data && data.role === 'worker' ? 'worker' : 'page', data && data.key);
  } catch (err) {
    outcome = `error: ${err && err.message ? err.message : err}`;
  }
  self.postMessage(outcome);
};
