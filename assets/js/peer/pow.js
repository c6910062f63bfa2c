// Hidden Chess -- NIP-13 proof of work on Nostr events (issue #24): a quick-play seek costs its
// sender a fraction of a second of hashing, so that a flood of seeks (or of fake seekers) is
// expensive while one honest seek is cheap. Pure: sha-256 from bytes.js, no network.
//
// An event with proof of work carries the tag ["nonce", "<n>", "<target bits>"]; its id (the
// sha-256 of its serialisation, NIP-01) starts with at least `target` zero bits. mine() yields to
// the page every 12,000 tries (about 20 ms: it never blocks the page for long).

import { hex, sha256, sha256Block, sha256Digest, sha256Init, sha256Padded, utf8 } from './bytes.js';

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

// A nonce of NONCE_DIGITS digits keeps the serialisation's length from one try to the next, so
// the blocks before the nonce are hashed once (the "midstate") and each try hashes only the
// blocks from the one the nonce starts in: half the blocks of a seek, and no string or array
// built per try: about eight times as many tries a second as hashing the whole event each time.
const NONCE_DIGITS = 10;
const NONCE_FIRST = 1e9;
const NONCE_SPAN = 8e9; // (a start below 9e9: the nonce keeps its ten digits)

/** Find a nonce for `ev` (without id/sig; its tags get ["nonce", n, bits]) whose id has `bits`
 * zero bits. Returns the event with its id. `slice`: hashes between two yields to the page. */
export async function mine(ev, bits, { slice = 12000, yieldFn = () => new Promise(r => setTimeout(r, 0)) } = {}) {
  const tags = [...ev.tags.filter(t => t[0] !== 'nonce'), ['nonce', '0', String(bits)]];
  const base = { ...ev, tags };
  const marker = '"nonce","0"';
  const text = serialize(base);
  const at = text.indexOf(marker) + '"nonce","'.length;
  const head = utf8(text.slice(0, at));
  const tail = utf8(text.slice(at + 1));
  const len = head.length + NONCE_DIGITS + tail.length;
  const start = head.length - (head.length % 64); // the block the nonce starts in
  const mid = sha256Init();
  const w = new Uint32Array(64);
  for (let off = 0; off < start; off += 64) sha256Block(mid, head, off, w);
  const rest = new Uint8Array(len - start);
  rest.set(head.subarray(start));
  rest.set(tail, head.length - start + NONCE_DIGITS);
  const msg = sha256Padded(rest, len);
  const digits = head.length - start;
  const h = new Uint32Array(8);
  let nonce = NONCE_FIRST + Math.floor(Math.random() * NONCE_SPAN);
  for (;;) {
    for (let i = 0; i < slice; i++, nonce++) {
      for (let k = NONCE_DIGITS - 1, n = nonce; k >= 0; k--) {
        const d = n % 10;
        msg[digits + k] = 48 + d;
        n = (n - d) / 10;
      }
      h.set(mid);
      for (let off = 0; off < msg.length; off += 64) sha256Block(h, msg, off, w);
      if (wordZeroBits(h) >= bits) {
        tags[tags.length - 1] = ['nonce', String(nonce), String(bits)];
        return { ...base, tags, id: hex(sha256Digest(h)) };
      }
    }
    await yieldFn();
  }
}

function wordZeroBits(h) {
  let n = 0;
  for (const word of h) {
    if (word === 0) {
      n += 32;
      continue;
    }
    return n + Math.clz32(word);
  }
  return n;
}
