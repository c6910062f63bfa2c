// Hidden Chess -- the "thinking" dots (app.css .thinking-dots): the computer thinking, a
// connection being prepared, a friend or a quick-play opponent awaited. They pulse in discrete
// beats set here, a few a second, instead of an infinite CSS animation. That animation kept the
// compositor drawing 60 frames a second for as long as the dots showed: a page waiting for an
// opponent took about a tenth of a core more for it on a machine without GPU compositing, and a
// thinking computer lost as much from its worker's core (docs/PLAYING.md, "Battery").

export const BEAT_MS = 400;

/** Step every shown set of dots to the next beat every BEAT_MS (nothing while the tab is
 * hidden, and nothing to draw for dots that are not shown). Returns the interval's id. */
export function startDots(doc = document) {
  const dots = doc.getElementsByClassName('thinking-dots'); // (live: dots added later count too)
  let beat = 0;
  return setInterval(() => {
    if (doc.hidden || !dots.length) return;
    beat = (beat + 1) % 3;
    for (const el of dots) if (el.getClientRects().length) el.dataset.beat = String(beat);
  }, BEAT_MS);
}
