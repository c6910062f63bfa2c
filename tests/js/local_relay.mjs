// Hidden Chess -- the local test relay behaves like a public one (run by tests/test_local_relay.py
// against tests/browser/nostr_relay.cjs started with --rate 1 --burst 10): an event goes only to
// the subscriptions whose filters match it; a connection that sends faster than its limit is
// answered OK false "rate-limited: ..." (and its events are not passed on); a message over 128 KB
// closes the connection. Prints one JSON line.
//   node tests/js/local_relay.mjs ws://127.0.0.1:PORT

import WebSocket from 'ws';
import { eventId } from '../../assets/js/peer/pow.js';
import { hex, sha256 } from '../../assets/js/peer/bytes.js';

const noble = await import('../../assets/vendor/noble/secp256k1.js');
if (!noble.hashes.sha256) noble.hashes.sha256 = sha256;
const { schnorr } = noble;
const url = process.argv[2];
const bytesOf = h => Uint8Array.from(h.match(/../g), b => parseInt(b, 16));
const { secretKey, publicKey } = schnorr.keygen();

function event(topic, content) {
  const ev = { pubkey: hex(publicKey), created_at: Math.floor(Date.now() / 1000), kind: 22913, tags: [['x', topic]], content };
  ev.id = eventId(ev);
  ev.sig = hex(schnorr.sign(bytesOf(ev.id), secretKey));
  return ev;
}

function client(onmessage = () => {}) {
  const ws = new WebSocket(url);
  const got = [];
  ws.on('message', data => {
    const msg = JSON.parse(String(data));
    got.push(msg);
    onmessage(msg);
  });
  return new Promise(resolve => ws.on('open', () => resolve({ ws, got })));
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

const a = await client();
const b = await client();
a.ws.send(JSON.stringify(['REQ', 'sa', { kinds: [22913], '#x': ['topic-a'] }]));
b.ws.send(JSON.stringify(['REQ', 'sb', { kinds: [22913], '#x': ['topic-b'] }]));
await sleep(300);

// 30 events as fast as possible from one connection: the first ones (the burst) pass.
const c = await client();
const events = Array.from({ length: 30 }, (_, i) => event('topic-a', `hello ${i}`));
for (const ev of events) c.ws.send(JSON.stringify(['EVENT', ev]));
await sleep(1500);
const oks = c.got.filter(m => m[0] === 'OK');
const accepted = oks.filter(m => m[2] === true).map(m => m[1]);
const refused = oks.filter(m => m[2] === false);
const toA = a.got.filter(m => m[0] === 'EVENT' && m[1] === 'sa').map(m => m[2].id);

// One message over 128 KB: the connection is closed (1009: too big).
const d = await client();
const closed = new Promise(resolve => d.ws.on('close', code => resolve(code)));
d.ws.send(JSON.stringify(['EVENT', event('topic-a', 'x'.repeat(140 * 1024))]));
const closeCode = await Promise.race([closed, sleep(5000).then(() => null)]);

console.log(JSON.stringify({
  answered: oks.length,
  accepted: accepted.length,
  refused: refused.length,
  refusedMessages: [...new Set(refused.map(m => String(m[3]).split(':')[0]))],
  refusedIdsAreTheEvents: refused.every(m => events.some(ev => ev.id === m[1])),
  aGotExactlyTheAccepted: toA.length === accepted.length && toA.every(id => accepted.includes(id)),
  bGot: b.got.filter(m => m[0] === 'EVENT').length,
  closeCode,
}));
for (const x of [a, b, c]) x.ws.close();
setTimeout(() => process.exit(0), 100);
