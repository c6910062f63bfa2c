// Hidden Chess -- NIP-13 proof of work on Nostr events (issue #24): a quick-play seek costs its
// sender a fraction of a second of hashing, so that a flood of seeks (or of fake seekers) is
// expensive while one honest seek is cheap. Pure: sha-256 from bytes.js, no network.
//
// An event with proof of work carries the tag ["nonce", "<n>", "<target bits>"]; its id (the
// sha-256 of its serialisation, NIP-01) starts with at least `target` zero bits. mine() yields to
// the page every few thousand hashes (it never blocks the page for long).

import { hex, sha256, utf8 } from './bytes.js';

/** The number of leading zero bits of a hex id. */
export function zeroBits(idHex) {
  let n = 0;
  for (const ch of idHex) {
    const v = parseInt(ch, 16);
    if (v === 0) {
      n += 4;
      continue;
    }
    return n + Math.clz32(v) - 28;
  }
  return n;
}

/** The NIP-01 serialisation of an event (what its id hashes). */
export const serialize = ev => JSON.stringify([0, ev.pubkey, ev.created_at, ev.kind, ev.tags, ev.content]);

/** The id (hex) an event must have. */
export const eventId = ev => hex(sha256(utf8(serialize(ev))));

/** The proof of work an event proves: min(its id's zero bits, its committed target), 0 without a nonce tag. */
export function powBits(ev) {
  const tag = Array.isArray(ev.tags) ? ev.tags.find(t => Array.isArray(t) && t[0] === 'nonce') : null;
  if (!tag || typeof ev.id !== 'string') return 0;
  const target = Number(tag[2]);
  if (!Number.isInteger(target)) return 0;
  return Math.min(zeroBits(ev.id), target);
}

/** Find a nonce for `ev` (without id/sig; its tags get ["nonce", n, bits]) whose id has `bits`
 * zero bits. Returns the event with its id. `slice`: hashes between two yields to the page. */
export async function mine(ev, bits, { slice = 4000, yieldFn = () => new Promise(r => setTimeout(r, 0)) } = {}) {
  const tags = [...ev.tags.filter(t => t[0] !== 'nonce'), ['nonce', '0', String(bits)]];
  const base = { ...ev, tags };
  // The serialisation around the nonce's digits, so each try only rebuilds one string.
  const marker = '"nonce","0"';
  const text = serialize(base);
  const at = text.indexOf(marker) + '"nonce","'.length;
  const head = text.slice(0, at);
  const tail = text.slice(at + 1);
  let nonce = Math.floor(Math.random() * 1e9);
  for (;;) {
    for (let i = 0; i < slice; i++, nonce++) {
      const h = sha256(utf8(head + nonce + tail));
      if (byteZeroBits(h) >= bits) {
        tags[tags.length - 1] = ['nonce', String(nonce), String(bits)];
        return { ...base, tags, id: hex(h) };
      }
    }
    await yieldFn();
  }
}

function byteZeroBits(h) {
  let n = 0;
  for (const b of h) {
    if (b === 0) {
      n += 8;
      continue;
    }
    return n + Math.clz32(b) - 24;
  }
  return n;
}
