// Hidden Chess -- the relays' store (issue #26) against hostile relay events, in Node against the
// real local relay (run by tests/test_store_hostile.py with --relay ws://...): a device publishes
// its messages through assets/js/signal/store.js; a stranger who does NOT know the room secret,
// one who does (a third device with the link), and raw junk publish on the same tag; the
// friend's page opens and must hand over exactly the honest messages (a long one in parts); a
// stranger with the link who backdates an event in the guest's role. Prints one JSON line.

import { RelayPool } from '../../assets/js/signal/nostr.js';
import { STORE_KIND, StoreLink, envelopes, open, seal, storeKeys, CHUNK_CHARS } from '../../assets/js/signal/store.js';
import { eventId } from '../../assets/js/peer/pow.js';

const arg = name => process.argv[process.argv.indexOf(name) + 1];
const relay = arg('--relay');
const secret = '5e'.repeat(16);
const gameId = 'hostiletest00001';
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const until = async (cond, ms = 20000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await sleep(10);
  }
};

const out = {};
// Envelopes: a long message goes in parts; a wrong key or tag does not open.
const keys = await storeKeys(secret, gameId, 'aa'.repeat(16));
const other = await storeKeys('77'.repeat(16), gameId, 'aa'.repeat(16));
const long = JSON.stringify({ t: 'x', pad: 'y'.repeat(CHUNK_CHARS * 2 + 5) });
out.parts = envelopes('host', long).length;
const sealed = await seal(keys.aes, keys.tag, { r: 'host', m: 'hello' });
out.opens = (await open(keys.aes, keys.tag, sealed)).m;
out.wrongKey = await open(other.aes, keys.tag, sealed);
out.wrongTag = await open(keys.aes, other.tag, sealed);
out.junk = await open(keys.aes, keys.tag, 'not base64 at all!');
out.otherGameTag = (await storeKeys(secret, 'anothergame00001', 'aa'.repeat(16))).tag !== keys.tag;

// The honest host publishes three messages (one long).
const honest = ['{"n":1}', long, '{"n":3}'];
const host = new StoreLink({ secret, gameId, role: 'host', token: 'aa'.repeat(16), relays: [relay] });
await until(() => host.state === 'ready');
host.publish(honest);
await until(() => host.unconfirmed() === 0 && host.waiting.size === 0);

await sleep(1100); // (the others come later: a second of event time, as after an invite)
// A stranger without the secret: its own key, the same tag, content that does not decrypt.
const stranger = new RelayPool([relay], { kind: STORE_KIND, sinceS: null, maxPending: 50 });
await stranger.start();
await until(() => stranger.openCount() > 0);
stranger.publish(keys.tag, 'AAAA' + sealed.slice(4));
stranger.publish(keys.tag, 'x'.repeat(40000));
stranger.publish(keys.tag, sealed); // a replay of a real envelope under the stranger's key: "host" role, not the host's key
// A third device with the secret, in the host's role, later than the host (and a forged guest
// role under a key that then is not the guest's own).
const third = new StoreLink({ secret, gameId, role: 'host', token: 'cc'.repeat(16), relays: [relay] });
await until(() => third.state === 'ready');
third.publish(['{"n":1,"forged":true}']);
await until(() => third.unconfirmed() === 0 && third.waiting.size === 0);
await sleep(300);

// The guest opens: exactly the honest messages, in one batch.
let batch = null;
const guest = new StoreLink({ secret, gameId, role: 'guest', token: 'bb'.repeat(16), relays: [relay], onmessages: (texts, first) => { if (first) batch = texts; } });
await until(() => batch !== null);
out.received = batch;
out.honest = honest;
out.peerKey = guest.peerKey === host.pubkey;

// A hostile relay floods the friend's page with the host's "messages" under broken signatures,
// more than the page keeps per visit (made small here): they are not counted, and the host's next
// real message still comes through.
{
  const later = [];
  const small = new StoreLink({ secret, gameId, role: 'guest', token: 'bb'.repeat(16), relays: [relay], maxEvents: 12,
    onmessages: (texts, first) => { if (!first) later.push(...texts); } });
  await until(() => small.opened && small.peerKey === host.pubkey);
  const signer = new RelayPool([], { kind: STORE_KIND, sinceS: null, secretKey: keys.signKey });
  await signer.start();
  for (let i = 0; i < 30; i++) {
    const ev = { ...signer.sign(keys.tag, await seal(keys.aes, keys.tag, { r: 'host', m: `{"junk":${i}}` })) };
    ev.sig = (ev.sig[0] === 'a' ? 'b' : 'a') + ev.sig.slice(1);
    small.pool._frame(JSON.stringify(['EVENT', small.pool.subId, ev]), 'ws://hostile.relay');
  }
  await until(() => !small.busy);
  host.publish(['{"n":4}']);
  await until(() => later.length > 0, 10000).catch(() => null);
  out.flooded = { later, count: small.count };
  small.leave();
  signer.close();
}

// "Sent" means a relay holds it. With no relay reachable, a message stays unconfirmed (the page
// keeps saying "Sending to the relays…"); with one of two reachable, that one's OK is enough.
const dead = 'ws://127.0.0.1:9';
const alone = new StoreLink({ secret, gameId: 'unsentgame000001', role: 'host', token: 'dd'.repeat(16), relays: [dead] });
alone.publish(['{"n":1}']);
await until(() => alone.signing === 0 && alone.waiting.size === 1);
await sleep(500);
out.unsent = alone.unconfirmed();
const half = new StoreLink({ secret, gameId: 'halfsentgame0001', role: 'host', token: 'dd'.repeat(16), relays: [dead, relay] });
half.publish(['{"n":1}']);
await until(() => half.signing === 0 && half.kept.size === 1);
out.halfSent = half.unconfirmed();
// A stranger with the link who backdates a guest-role event: the earliest key of the guest's role
// is then its own. A host page that knows its guest's token (the live link met it) binds the
// guest's key all the same; one that does not yet takes the stranger's, until it learns the token.
const game2 = 'backdatedgame001';
const realGuest = new StoreLink({ secret, gameId: game2, role: 'guest', token: 'bb'.repeat(16), relays: [relay] });
await until(() => realGuest.state === 'ready');
realGuest.publish(['{"g":1}']);
await until(() => realGuest.unconfirmed() === 0 && realGuest.waiting.size === 0);
const forger = await storeKeys(secret, game2, 'ee'.repeat(16));
const forgerPool = new RelayPool([relay], { kind: STORE_KIND, sinceS: null, maxPending: 50, secretKey: forger.signKey });
await forgerPool.start();
await until(() => forgerPool.openCount() > 0);
const forge = async (text, ageS) => {
  const ev = { pubkey: forgerPool.pubkey, created_at: Math.floor(Date.now() / 1000) - ageS, kind: STORE_KIND, tags: [['x', forger.tag]],
    content: await seal(forger.aes, forger.tag, { r: 'guest', m: text }) };
  ev.id = eventId(ev);
  forgerPool.sendEvent(forgerPool._sign(ev));
};
await forge('{"g":"forged"}', 3600);
await sleep(500);
const firstBatch = async opts => {
  let got = null;
  const l = new StoreLink({ secret, gameId: game2, role: 'host', token: 'aa'.repeat(16), relays: [relay], ...opts,
    onmessages: (texts, first) => { if (first) got = texts; else l.later.push(...texts); } });
  l.later = [];
  await until(() => got !== null);
  return [l, got];
};
const [blind, blindBatch] = await firstBatch({});
const [knowing, knowingBatch] = await firstBatch({ peerToken: 'bb'.repeat(16) });
out.backdated = {
  withoutToken: blindBatch, withToken: knowingBatch,
  withTokenKey: knowing.peerKey === realGuest.pubkey, withoutTokenKey: blind.peerKey === forgerPool.pubkey,
};
// (the blind page learns the token: from then on the guest's events count, the forger's do not)
await blind.knowFriend('bb'.repeat(16));
await forge('{"g":"forged2"}', 0);
realGuest.publish(['{"g":2}']);
await until(() => blind.later.length > 0 && knowing.later.length > 0);
await sleep(500);
out.backdated.learned = { key: blind.peerKey === realGuest.pubkey, later: blind.later, knowingLater: knowing.later };
forgerPool.close();

for (const l of [host, third, guest, alone, half, realGuest, blind, knowing]) l.leave();
stranger.close();
console.log(JSON.stringify(out));
process.exit(0);
