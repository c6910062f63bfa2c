// Hidden Chess -- Python starts at once (assets/js/pyodide-boot.js; PyScript then finds it
// started): on a return visit from its snapshot, once the board is drawn (main.js's
// "hc:board-drawn", or 1.5 s at most). Loaded by index.html as <script type="module" async>: a
// file, not an inline script, so that the page's Content-Security-Policy allows no inline script.

const drawn = new Promise(resolve => {
  addEventListener('hc:board-drawn', resolve, { once: true });
  setTimeout(resolve, 1500);
});
import('./pyodide-boot.js').then(boot => boot.startEarly(drawn)).catch(() => {});
