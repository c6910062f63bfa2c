// The seeks' proof of work (assets/js/peer/pow.js): the miner hashes the blocks before the nonce
// once and only the rest per try, so its ids must still be the events' own (NIP-01) wherever the
// nonce falls in a block, whatever the content (multi-byte UTF-8 too); and sha-256 (bytes.js),
// now built on the same block function, must agree with Node's. Prints one line of JSON.
import { createHash, randomBytes } from 'node:crypto';
import { hex, sha256 } from '../../assets/js/peer/bytes.js';
import { eventId, mine, powBits, serialize } from '../../assets/js/peer/pow.js';

const out = { sha256: [], mined: [] };
for (let n = 0; n <= 300; n += 1) {
  const bytes = randomBytes(n);
  const ours = hex(sha256(new Uint8Array(bytes)));
  if (ours !== createHash('sha256').update(bytes).digest('hex')) out.sha256.push(n);
}
const noYield = { yieldFn: async () => {} };
for (let extra = 0; extra < 72; extra += 3) {
  for (const content of ['x'.repeat(extra), 'é♞'.repeat(extra)]) {
    const ev = { pubkey: 'ab'.repeat(32), created_at: 1790000000 + extra, kind: 20000,
      tags: [['x', 'cd'.repeat(32)], ['t', 'y'.repeat(extra)], ['nonce', 'old', '3']], content };
    const bits = 10;
    const got = await mine(ev, bits, noYield);
    const text = serialize(got);
    const nonces = got.tags.filter(t => t[0] === 'nonce');
    const at = text.indexOf('"nonce","');
    out.mined.push({
      ok: got.id === eventId(got) && powBits(got) >= bits && nonces.length === 1 && nonces[0][2] === String(bits)
        && got.tags[0][1] === 'cd'.repeat(32) && got.content === content,
      nonceOffset: (Buffer.byteLength(text.slice(0, at)) + 9) % 64,
    });
  }
}
// a small event: the nonce in its first block (no block hashed ahead)
const small = await mine({ pubkey: 'a', created_at: 1, kind: 1, tags: [], content: '' }, 8, noYield);
out.small = small.id === eventId(small) && powBits(small) >= 8;
console.log(JSON.stringify(out));
