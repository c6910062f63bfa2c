// Hidden Chess -- the quick-play lobby's messages (issues #13, #24): what a well-formed one looks
// like, and the colour rule of the joint coin flip. The pairing rule is lobby.js (which re-exports
// these); peer/batch.js checks each message of a batch with validMessage.

import { hex, sha256, utf8 } from './bytes.js';

export const ID = /^[0-9a-f]{64}$/;
const H32 = /^[0-9a-f]{32}$/;
const H64 = /^[0-9a-f]{64}$/;
const KEY = /^[A-Za-z0-9_-]{40,120}$/;

export const digest = text => hex(sha256(utf8(text)));

/** The colour rule: true when the proposer plays White. */
export function proposerWhite(s, r) {
  return parseInt(digest(`${s}|${r}`).slice(0, 2), 16) % 2 === 0;
}

/** Whether `m` is a well-formed lobby message (anything else is ignored). `p` is the signer. */
export function validMessage(m) {
  if (!m || typeof m !== 'object' || Array.isArray(m) || !ID.test(m.p)) return false;
  if (m.t === 'seek') return KEY.test(m.k);
  if (m.t === 'gone') return true;
  if (!ID.test(m.to) || !H64.test(m.c)) return false;
  switch (m.t) {
    case 'propose':
      return KEY.test(m.k);
    case 'accept':
      return H32.test(m.r) && KEY.test(m.k);
    case 'check':
    case 'ready':
      return H32.test(m.n);
    case 'confirm':
      return H32.test(m.s);
    case 'busy':
    case 'cancel':
      return true;
    default:
      return false;
  }
}
