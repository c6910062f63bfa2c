// Hidden Chess -- quick play's batched lobby messages (issue #24; run by tests/test_lobby_batch.py
// with a local relay's address): peer/batch.js packs and unpacks within public relays' limits and
// refuses malformed batches; then, at a real local relay, a page (signal/quick.js) facing a
// hand-driven seeker refuses forged, oversized and junk batches without pairing or moving on, and
// pairs on a valid one; and two pages pair with each other. Prints one JSON line.
//   node --experimental-websocket tests/js/lobby_batch.mjs ws://127.0.0.1:PORT

import { hex, sha256 } from '../../assets/js/peer/bytes.js';
import { MAX_BATCH, MAX_BATCH_CHARS, pack, unpack } from '../../assets/js/peer/batch.js';
import { eventId, mine } from '../../assets/js/peer/pow.js';
import { EVENT_KIND } from '../../assets/js/signal/nostr.js';
import { QuickPlay, lobbyTopic, playerTopic } from '../../assets/js/signal/quick.js';
import { Lobby, OPEN, SIGNED, digest } from '../../assets/js/peer/lobby.js';

const relay = process.argv[2];
const noble = await import(new URL('../../assets/vendor/noble/secp256k1.js', import.meta.url).href);
if (!noble.hashes.sha256) noble.hashes.sha256 = sha256;
const { schnorr } = noble;
const rnd = n => hex(crypto.getRandomValues(new Uint8Array(n)));
const bytesOf = h => Uint8Array.from(h.match(/../g), b => parseInt(b, 16));
const newKey = () => {
  const { secretKey, publicKey } = schnorr.keygen();
  return { secretKey, pubkey: hex(publicKey) };
};
const KEY = 'B' + 'A'.repeat(86);
const BITS = 8;
const out = {};

// An event of `key` on `topics` with `content` (an object or a string), signed by `signer`
// (default: the same key).
async function event(key, topics, content, { signer = key, bits = 0 } = {}) {
  let ev = { pubkey: key.pubkey, created_at: Math.floor(Date.now() / 1000), kind: EVENT_KIND, tags: topics.map(t => ['x', t]),
    content: typeof content === 'string' ? content : JSON.stringify(content) };
  if (bits) ev = await mine(ev, bits, { slice: 2000 });
  else ev.id = eventId(ev);
  return { ...ev, sig: hex(schnorr.sign(bytesOf(ev.id), signer.secretKey)) };
}

// ---- 1. pack / unpack, pure ----
{
  const me = newKey();
  const ticket = await event(me, [lobbyTopic('secret-pawn', '300+3')], { t: 'seek', k: KEY }, { bits: BITS });
  const ids = Array.from({ length: 12 }, () => newKey().pubkey);
  const proposals = ids.map(to => ({ t: 'propose', p: me.pubkey, to, c: rnd(32), k: KEY }));
  const packed = pack(proposals, { key: KEY, ticket });
  const events = [];
  for (const b of packed) events.push(await event(me, b.to.map(playerTopic), b.content));
  out.pack = {
    events: packed.length,
    messages: packed.map(b => JSON.parse(b.content).m.length),
    maxTags: Math.max(...events.map(e => e.tags.length)),
    maxContent: Math.max(...packed.map(b => b.content.length)),
    maxEventBytes: Math.max(...events.map(e => JSON.stringify(e).length)),
    withTicket: packed.every(b => JSON.parse(b.content).ticket.id === ticket.id),
    limit: MAX_BATCH, limitChars: MAX_BATCH_CHARS,
  };
  // Every addressee finds its own proposal (and only its own), from the signer, with the key.
  let round = 0;
  for (const [i, to] of ids.entries()) {
    const j = packed.findIndex(b => b.to.includes(to));
    const got = unpack(events[j], JSON.parse(events[j].content), to, playerTopic);
    if (got && got.mine.length === 1 && got.mine[0].c === proposals[i].c && got.mine[0].p === me.pubkey &&
        got.mine[0].k === KEY && got.mine[0].to === to && got.ticket.id === ticket.id) round++;
  }
  out.roundTrip = round;
  // Busy answers: once per addressee and commitment, at most MAX_BATCH in all.
  const busy = [];
  for (let i = 0; i < 30; i++) busy.push({ t: 'busy', p: me.pubkey, to: ids[i % 12], c: 'c'.repeat(63) + (i % 12).toString(16) });
  const bp = pack(busy, { key: KEY });
  out.busy = { events: bp.length, messages: bp.reduce((a, b) => a + JSON.parse(b.content).m.length, 0), ticket: bp.some(b => 'ticket' in JSON.parse(b.content)) };
  // Malformed batches, each refused whole.
  const to = ids[0];
  const w = { t: 'accept', to, c: rnd(32), r: rnd(16) };
  const t = playerTopic(to);
  const bad = {
    tooMany: [[t], { k: KEY, m: Array.from({ length: MAX_BATCH + 1 }, () => w) }],
    unknownField: [[t], { k: KEY, m: [w], extra: 1 }],
    fieldInMessage: [[t], { k: KEY, m: [{ ...w, s: rnd(16) }] }],
    namesASender: [[t], { k: KEY, m: [{ ...w, p: to }] }],
    ownKeyInMessage: [[t], { k: KEY, m: [{ ...w, k: KEY }] }],
    proposalWithoutTicket: [[t], { k: KEY, m: [{ t: 'propose', to, c: rnd(32) }] }],
    ticketWithoutProposal: [[t], { k: KEY, m: [w], ticket }],
    tagOfNoAddressee: [[t, playerTopic(ids[1])], { k: KEY, m: [w] }],
    addresseeWithoutTag: [[t], { k: KEY, m: [w, { ...w, to: ids[1] }] }],
    empty: [[t], { k: KEY, m: [] }],
    notAList: [[t], { k: KEY, m: { 0: w } }],
    noKey: [[t], { m: [w] }],
    badKey: [[t], { k: 'x', m: [w] }],
    openType: [[t], { k: KEY, m: [{ t: 'seek', to }] }],
    unknownType: [[t], { k: KEY, m: [{ t: 'what', to, c: rnd(32) }] }],
    badCommitment: [[t], { k: KEY, m: [{ ...w, c: 'zz' }] }],
    badAddressee: [[t], { k: KEY, m: [{ ...w, to: 'me' }] }],
    tooLong: [[t], { k: KEY, m: [w], pad: 'x'.repeat(7000) }],
  };
  const refused = {};
  for (const [name, [topics, body]] of Object.entries(bad)) {
    const ev = await event(me, topics, body);
    refused[name] = unpack(ev, body, to, playerTopic) === null;
  }
  // a nonce tag besides the addressee's
  const evn = await event(me, [t], { k: KEY, m: [w] });
  evn.tags.push(['nonce', '1', '8']);
  refused.otherTag = unpack(evn, { k: KEY, m: [w] }, to, playerTopic) === null;
  const good = await event(me, [t], { k: KEY, m: [w] });
  refused.wellFormedAccepted = unpack(good, JSON.parse(good.content), to, playerTopic) !== null;
  out.refused = refused;
}

// ---- 1b. the lobby handles unsigned only what it can answer busy or cancel ----
{
  const ids = ['1', '2', '3', '4'].map(d => d.repeat(64));
  let n = 0;
  const random = () => (++n).toString(16).padStart(32, '0');
  const a = new Lobby({ id: ids[0], key: KEY, random, now: 0 });
  const prop = { t: 'propose', p: ids[1], to: ids[0], c: 'a'.repeat(64), k: KEY };
  const r = {};
  r.wouldAcceptNeedsSignature = a.relevant(prop) === SIGNED;
  r.unsignedNotAccepted = a.handle(prop, 10, false).length === 0 && a.state === 'seeking' && !a.lock;
  const acc = a.handle(prop, 20, true);
  r.signedAccepted = a.state === 'locked' && acc.some(x => x.t === 'accept');
  const prop2 = { t: 'propose', p: ids[2], to: ids[0], c: 'b'.repeat(64), k: KEY };
  r.busyIsOpen = a.relevant(prop2) === OPEN;
  const busy = a.handle(prop2, 30, false);
  r.busyUnsigned = busy.length === 1 && busy[0].t === 'busy' && busy[0].to === ids[2] && a.lock.with === ids[1];
  // The cancel of a proposal answered busy changes nothing (not checked); the cancel of the
  // held one needs its proposer's signature (and another key's changes nothing).
  r.answeredCancelIgnored = a.relevant({ t: 'cancel', p: ids[2], to: ids[0], c: 'b'.repeat(64) }) === false;
  r.heldCancelSigned = a.relevant({ t: 'cancel', p: ids[1], to: ids[0], c: 'a'.repeat(64) }) === SIGNED;
  a.handle({ t: 'cancel', p: ids[3], to: ids[0], c: 'a'.repeat(64) }, 40, true);
  r.othersCancelKeepsLock = a.state === 'locked' && a.lock.with === ids[1];
  r.unsignedCancelIgnored = a.handle({ t: 'cancel', p: ids[1], to: ids[0], c: 'a'.repeat(64) }, 41, false).length === 0 && a.state === 'locked';
  a.handle({ t: 'cancel', p: ids[1], to: ids[0], c: 'a'.repeat(64) }, 42, true);
  r.signedCancelUnlocks = a.state === 'seeking' && !a.lock;
  // A cancel by another key does not cancel a proposal that arrives after it.
  const b = new Lobby({ id: ids[0], key: KEY, random, now: 0 });
  b.handle({ t: 'cancel', p: ids[3], to: ids[0], c: 'c'.repeat(64) }, 0, true);
  r.othersCancelDoesNotBlock = b.handle({ t: 'propose', p: ids[1], to: ids[0], c: 'c'.repeat(64), k: KEY }, 5, true).some(x => x.t === 'accept');
  out.lobby = r;
}

// ---- 2. a page against a hand-driven seeker, at the local relay ----
const wait = ms => new Promise(r => setTimeout(r, ms));
async function until(f, ms = 8000) {
  const t0 = Date.now();
  while (!f()) {
    if (Date.now() - t0 > ms) return false;
    await wait(20);
  }
  return true;
}

// A raw relay client: publishes events, collects the events of the topics it follows.
async function client(topics) {
  const ws = new WebSocket(relay);
  const got = [];
  ws.onmessage = e => {
    const msg = JSON.parse(String(e.data));
    if (msg[0] === 'EVENT') got.push(msg[2]);
  };
  await new Promise(r => ws.addEventListener('open', r));
  ws.send(JSON.stringify(['REQ', rnd(8), { kinds: [EVENT_KIND], '#x': topics, since: Math.floor(Date.now() / 1000) - 5 }]));
  await wait(100);
  return { got, publish: ev => ws.send(JSON.stringify(['EVENT', ev])), close: () => ws.close() };
}

{
  const variant = 'standard';
  const clock = `${Math.floor(Math.random() * 1e6)}+0`; // a lobby of this run alone
  const topic = lobbyTopic(variant, clock);
  const m = newKey(); // the hand-driven seeker
  const other = newKey(); // a stranger with its own key
  const c = await client([playerTopic(m.pubkey)]);
  let onpaired = null;
  const page = new QuickPlay({ variant, clock, relays: [relay], powBits: BITS, failed: new Set(), onpaired: (q, pair) => (onpaired = pair) });
  await page.start();
  // The seeker's ECDH key (a real P-256 point: the page derives the room secret from it).
  const ecdh = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
  const mk = Buffer.from(await crypto.subtle.exportKey('raw', ecdh.publicKey)).toString('base64url');
  // What a relay passes on, as it is (a hostile relay passes what an honest one refuses: a
  // forged signature).
  const deliver = ev => page.pool._frame(JSON.stringify(['EVENT', page.pool.subId, ev]), relay);
  // (the same event, its signature broken: what a hostile relay can pass on first)
  const brokenCopy = ev => ({ ...ev, sig: ev.sig.slice(0, -2) + (ev.sig.endsWith('00') ? '01' : '00') });
  // The seeker seeks (with proof of work; again until the page has subscribed): the page
  // proposes to it, in a batch.
  const proposal = () => c.got.find(e => e.pubkey === page.id && JSON.parse(e.content).m.some(w => w.t === 'propose'));
  let proposed = false;
  let seek = null;
  for (let i = 0; i < 10 && !proposed; i++) {
    seek = await event(m, [topic], { t: 'seek', k: mk }, { bits: BITS });
    c.publish(seek);
    proposed = await until(proposal, 1000);
  }
  const prop = proposal();
  const body = JSON.parse(prop.content);
  const w = body.m.find(x => x.t === 'propose' && x.to === m.pubkey);
  out.proposalBatch = { proposed, tags: prop.tags.length, ticketIsItsSeek: body.ticket && body.ticket.pubkey === page.id, mine: !!w };
  const back = playerTopic(page.id);
  const accept = { t: 'accept', to: page.id, c: w.c, r: rnd(16) };
  const offer = () => page.lobby.offers.get(m.pubkey);
  const steps = {};
  const before = () => ({ rejected: page.rejected, verified: page.pool.verified });
  // Wait for what a step must lead to (a rejection counted, a message published), not a fixed
  // time; a step that must lead to nothing waits 300 ms.
  const settle = (f = null) => (f ? until(f, 5000) : wait(300));
  // The seek again, its signature changed (a hostile relay: the pool sees a new copy): it does
  // not count as the seeker heard from again (a seeker that left would be kept alive).
  await wait(20);
  const heardAt = page.lobby.seekers.get(m.pubkey).at;
  deliver(brokenCopy(seek));
  await settle();
  steps.seekCopyRefreshesNothing = page.lobby.seekers.get(m.pubkey).at === heardAt;
  // a. the seeker's key on the event, signed by another key (passed on by a hostile relay; the
  // local relay, like a public one, refuses it)
  let b0 = before();
  deliver(await event(m, [back], { k: mk, m: [accept] }, { signer: other }));
  await settle(() => page.rejected > b0.rejected);
  steps.forged = page.rejected === b0.rejected + 1 && page.pool.verified === b0.verified + 1 && offer() && offer().stage === 'proposed';
  // and the same signed by the stranger with its own key (no offer to it: not even checked)
  b0 = before();
  c.publish(await event(other, [back], { k: mk, m: [accept] }));
  await settle();
  steps.stranger = page.pool.verified === b0.verified && offer().stage === 'proposed';
  // b. signed by the seeker, but too many messages
  b0 = before();
  c.publish(await event(m, [back], { k: mk, m: Array.from({ length: MAX_BATCH + 1 }, () => accept) }));
  await settle(() => page.rejected > b0.rejected);
  steps.oversized = page.rejected === b0.rejected + 1 && page.pool.verified === b0.verified && offer().stage === 'proposed';
  // c. junk: unknown fields, a tag that is not the addressee's, not JSON
  b0 = before();
  c.publish(await event(m, [back], { k: mk, m: [accept], extra: [1, 2] }));
  c.publish(await event(m, [back, playerTopic(other.pubkey)], { k: mk, m: [accept] }));
  c.publish(await event(m, [back], '{"k": "' + mk + '", "m": ['));
  await settle(() => page.rejected >= b0.rejected + 3);
  steps.junk = page.rejected === b0.rejected + 3 && page.pool.verified === b0.verified && offer().stage === 'proposed';
  // d. an accept for another commitment, signed: answered cancel, not taken (and not checked)
  b0 = before();
  c.publish(await event(m, [back], { k: mk, m: [{ ...accept, c: rnd(32) }] }));
  await until(() => c.got.some(e => e.pubkey === page.id && JSON.parse(e.content).m.some(x => x.t === 'cancel')), 3000);
  steps.wrongCommitment = page.pool.verified === b0.verified && offer().stage === 'proposed';
  // e. the valid accept, but a hostile relay passes a copy of it with a broken signature first
  // (the same id): refused, and it does not keep the real one out when the relay brings it
  const valid = await event(m, [back], { k: mk, m: [accept] });
  b0 = before();
  deliver(brokenCopy(valid));
  await settle(() => page.rejected > b0.rejected);
  steps.brokenCopyRefused = page.rejected === b0.rejected + 1 && offer().stage === 'proposed';
  // the real one: the page checks the seeker is there; its ready pairs them
  b0 = before();
  c.publish(valid);
  const check = () => c.got.map(e => e.pubkey === page.id && JSON.parse(e.content).m.find(x => x.t === 'check')).find(Boolean);
  steps.checked = await until(check, 3000);
  const ck = check();
  c.publish(await event(m, [back], { k: mk, m: [{ t: 'ready', to: page.id, c: w.c, n: ck && ck.n }] }));
  steps.paired = await until(() => onpaired, 3000);
  steps.pairedWith = !!onpaired && onpaired.opponent === m.pubkey && onpaired.role === 'host' && /^[0-9a-f]{32}$/.test(onpaired.secret);
  const confirm = () => c.got.map(e => e.pubkey === page.id && JSON.parse(e.content).m.find(x => x.t === 'confirm')).find(Boolean);
  steps.confirmOpens = (await until(confirm, 3000)) && digest(confirm().s) === w.c;
  // Checked since the valid accept: it and the ready.
  steps.signaturesChecked = page.pool.verified - b0.verified;
  // f. paired now: a proposal copied in the stranger's name (its proven seek as the ticket, a
  // signature not its own) is answered busy, to the stranger, without a signature check.
  const ticket = await event(other, [topic], { t: 'seek', k: mk }, { bits: BITS });
  b0 = { ...before(), published: page.published, signed: page.pool.signed };
  deliver(await event(other, [back], { k: mk, m: [{ t: 'propose', to: page.id, c: rnd(32) }], ticket }, { signer: m }));
  await settle(() => page.published > b0.published && page.pool.signed > b0.signed);
  steps.copiedProposalBusyUnchecked = page.published === b0.published + 1 && page.pool.signed === b0.signed + 1 &&
    page.pool.verified === b0.verified && page.lobby.pair.opponent === m.pubkey;
  out.page = steps;
  page.cancel();
  c.close();
}

// ---- 3. two pages (and a third on the same lobby) pair with each other ----
{
  const variant = 'standard';
  const clock = `${Math.floor(Math.random() * 1e6)}+1`;
  const pages = [];
  const paired = [];
  for (let i = 0; i < 3; i++) {
    const qp = new QuickPlay({ variant, clock, relays: [relay], powBits: BITS, failed: new Set(), onpaired: (q, pair) => paired.push([q, pair]) });
    await qp.start();
    pages.push(qp);
  }
  await until(() => paired.length >= 2, 20000);
  await wait(500);
  const [[qa, pa], [qb, pb]] = paired.length >= 2 ? paired : [[null, {}], [null, {}]];
  out.two = {
    paired: paired.length,
    mutual: !!qa && pa.opponent === qb.id && pb.opponent === qa.id,
    sameSecret: !!qa && pa.secret === pb.secret,
    colours: !!qa && pa.white !== pb.white,
    third: pages.find(p => p !== qa && p !== qb).lobby.state,
    events: pages.map(p => p.events), messages: pages.map(p => p.published), verified: pages.map(p => p.pool.verified),
  };
  for (const p of pages) p.cancel();
}

console.log(JSON.stringify(out));
setTimeout(() => process.exit(0), 500);
