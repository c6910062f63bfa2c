// Hidden Chess -- a relay is back (issue #24): the page has several sockets to the same relays
// (Trystero's for one-click rooms, the lobby's and the correspondence store's pools), each
// retrying on its own back-off of up to 10 s. When one of them reaches a relay again after a
// refusal or a drop, the relay is back: every socket still waiting tries at once, instead of
// waiting out its own back-off (a friend game came back after an outage 6-18 s after the relay,
// as long as its slowest socket's next try).
//
// onRelayBack(fn) -> unsubscribe; relayBack(url) tells every listener.

import { reportFault } from '../fault.js';

const listeners = new Set();

export function onRelayBack(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function relayBack(url = '') {
  for (const fn of [...listeners]) {
    try {
      fn(url);
    } catch (e) {
      reportFault(e);
    }
  }
}
