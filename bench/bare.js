// bench/page.py's reference for a cold start (issue 16): the vendored Pyodide's bare
// loadPyodide(), nothing else; `playable` is when it resolves. (A file, not an inline script:
// the server's Content-Security-Policy refuses inline scripts, as on the deployed site.)
import { loadPyodide } from '../assets/vendor/pyodide/pyodide.mjs';

await loadPyodide();
window.hcReady = true;
