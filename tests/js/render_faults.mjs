// Hidden Chess -- a fault in one part of the page is reported, never swallowed, and never leaves
// the other parts undrawn (run by tests/test_render_faults.py). Seen in CI: the connection pill
// said "Through the relays" for 30 s while the channel was open, its state rendered but the pill
// not -- the render ran inside a Trystero message handler, which catches and only logs errors.
// Prints one JSON line.

const root = new URL('../../', import.meta.url);
const reported = [];
globalThis.reportError = e => reported.push(String(e && e.message));
const { onRender, render } = await import(new URL('assets/js/bridge.js', root).href);
const { loud } = await import(new URL('assets/js/signal/room.js', root).href);

const drawn = [];
onRender(st => drawn.push(`board ${st.n}`));
onRender(st => {
  if (st.n === 2) throw new Error('the board tray failed');
  drawn.push(`trays ${st.n}`);
});
onRender(st => drawn.push(`pill ${st.n}`));
render({ n: 1 });
render({ n: 2 });

// A handler given to Trystero: what it throws reaches the page's error report, and Trystero's own
// catch sees nothing.
let trysteroCaught = 0;
const handler = loud(() => {
  throw new Error('a renderer failed inside the channel handler');
});
try {
  handler('data', { peerId: 'x' });
} catch (e) {
  trysteroCaught++;
}
const fine = loud(x => x * 2)(21);

console.log(JSON.stringify({ drawn, reported, trysteroCaught, fine }));
