// Hidden Chess -- catching up through the relays' store (issue #26), the relay side: run by
// bench/store_catchup.py with the messages of a game (a JSON file: [[role, text], ...]) and a
// local relay. Two publishers (the host's and the guest's devices, the page's own StoreLink of
// assets/js/signal/store.js) publish their messages; then, ROUNDS times, a fresh StoreLink of the
// guest's device (the same keys: a page opened again) fetches them, checks every signature,
// decrypts and hands the batch over. Prints one JSON line: the publish time and the fetch times.
//   node --experimental-websocket bench/store_catchup.mjs --relay ws://127.0.0.1:PORT --messages FILE [--rounds 5]

import { readFileSync } from 'node:fs';
import { StoreLink } from '../assets/js/signal/store.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const relay = arg('--relay', null);
const messages = JSON.parse(readFileSync(arg('--messages', ''), 'utf8'));
const ROUNDS = Number(arg('--rounds', 5));
const secret = 'a1'.repeat(16);
const gameId = 'benchgame0000001';
const tokens = { host: 'b2'.repeat(16), guest: 'c3'.repeat(16) };

function link(role, onmessages = null) {
  return new StoreLink({ secret, gameId, role, token: tokens[role], relays: [relay], onmessages });
}

const until = (cond, what, ms = 30000) => new Promise((resolve, reject) => {
  const t0 = Date.now();
  const timer = setInterval(() => {
    if (cond()) {
      clearInterval(timer);
      resolve(Date.now() - t0);
    } else if (Date.now() - t0 > ms) {
      clearInterval(timer);
      reject(new Error(`timed out: ${what}`));
    }
  }, 5);
});

const t0 = Date.now();
const pubs = { host: link('host'), guest: link('guest') };
await until(() => pubs.host.state === 'ready' && pubs.guest.state === 'ready', 'publishers ready');
for (const [role, text] of messages) pubs[role].publish([text]);
await until(() => pubs.host.unconfirmed() === 0 && pubs.guest.unconfirmed() === 0 && pubs.host.waiting.size + pubs.guest.waiting.size === 0 && pubs.host.mine.size + pubs.guest.mine.size >= messages.length, 'published');
const publishMs = Date.now() - t0;
pubs.host.leave();
pubs.guest.leave();

const fetchMs = [];
let got = 0;
for (let r = 0; r < ROUNDS; r++) {
  const start = Date.now();
  let batch = null;
  const l = link('guest', (texts, open) => {
    if (open) batch = texts;
  });
  await until(() => batch !== null, 'the first batch');
  fetchMs.push(Date.now() - start);
  got = batch.length;
  l.leave();
}
console.log(JSON.stringify({ messages: messages.length, received: got, publish_ms: publishMs, fetch_ms: fetchMs }));
process.exit(0);
