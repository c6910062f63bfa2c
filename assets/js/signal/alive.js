// Hidden Chess -- a relay socket that died silently (QA of 2026-12-07: the network itself gone for
// a while, as in a tunnel or a lift). A TCP connection whose packets vanish (no reset) stays "open"
// for many minutes: the page went on counting the relay as reached ("Connecting through 1 of 1
// relay…") and sent its announcements into it, and once the network was back the socket came to
// life only at the kernel's next retransmission, which backs off (53 s apart after a 90 s cut):
// the two pages met again 30 s after the network's return, instead of the 7 s of a 20 s cut.
//
// A relay answers every EVENT ("OK") and every REQ ("EOSE"): a socket whose oldest such message
// has had no answer, nor any other message, for SILENT_MS, or that is still connecting after
// CONNECTING_MS, is dropped: closed, and its owner told at once (its onclose handler), so that it
// opens a new socket on its back-off (Trystero's: at most 10 s), which reaches the relay soon after
// the network is back.
//
// unanswered(ws) -> how long its oldest EVENT/REQ has waited for an answer (ms).
// dropIfDead(ws) -> true when it dropped `ws` now. Call it often (every 500 ms) while a dead
// socket matters: a link waiting for its friend (signal/room.js), a relay pool with subscriptions
// (signal/nostr.js: the quick-play lobby, the correspondence store). Nothing is sent to find out.

const SILENT_MS = 8000;
const CONNECTING_MS = 10000;
const ANSWERED = /^\s*\[\s*"(EVENT|REQ)"/;
const seen = new WeakMap(); // socket -> {born, asked: when its oldest unanswered EVENT/REQ went, or 0}

function watch(ws) {
  let s = seen.get(ws);
  if (s) return s;
  s = { born: Date.now(), asked: 0 };
  seen.set(ws, s);
  const send = ws.send;
  ws.send = function watchedSend(data) {
    if (!s.asked && typeof data === 'string' && ANSWERED.test(data.slice(0, 16))) s.asked = Date.now();
    return send.call(this, data);
  };
  ws.addEventListener('message', () => {
    s.asked = 0;
  });
  return s;
}

export function dropIfDead(ws) {
  if (!ws || typeof ws.send !== 'function' || typeof ws.addEventListener !== 'function' || ws.readyState > 1) return false;
  const s = watch(ws);
  const now = Date.now();
  const dead = ws.readyState === 1 ? s.asked && now - s.asked > SILENT_MS : now - s.born > CONNECTING_MS;
  if (!dead) return false;
  const onclose = ws.onclose;
  s.dropped = true;
  ws.onclose = ws.onmessage = ws.onopen = null;
  try {
    ws.close();
  } catch (e) {
    // closed already
  }
  if (onclose) onclose.call(ws);
  return true;
}

/** True when `ws` was closed by dropIfDead (no answer came), not by the relay or the browser. */
export function seenDropped(ws) {
  const s = ws && seen.get(ws);
  return !!s && !!s.dropped;
}

/** How long (ms) `ws`'s oldest EVENT or REQ has waited for an answer (0: none waits, or `ws` is
 * not watched yet: dropIfDead watches it from its first call). A relay answers in milliseconds: a
 * wait of a second or two says the socket may be dead before dropIfDead may say it is. */
export function unanswered(ws) {
  const s = ws && seen.get(ws);
  return s && s.asked && ws.readyState === 1 ? Date.now() - s.asked : 0;
}
