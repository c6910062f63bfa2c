// Hidden Chess -- a hostile quick-play lobby client (issue #24), for the browser tests
// (test_peer_hostile.py, next to nostr_relay.cjs) and bench/matchmaking.mjs. It speaks the lobby's
// protocol (assets/js/peer/lobby.js over signal/quick.js's events) on a Nostr relay, badly:
//
//   silent    seekers with a valid proof of work that never answer anything
//   flood     seeks as fast as it can: most without enough proof of work, under fresh keys
//   accepter  seekers that accept every proposal at once and then vanish (a fresh key each time)
//   forger    reads the proposals sent to the seekers it sees and answers them "in the name" of
//             the addressee: content claiming to be from it, and events with its public key but
//             a signature by another key; and copies proposals (the proposer's key and ticket,
//             its own signature) to other seekers
//   junk      garbage: not JSON, too big, wrong kinds, bad ids, unknown types, random addressees;
//             and malformed batches (peer/batch.js) to the seekers it sees: too many messages,
//             unknown fields, tags that are not the addressees', a proposal without its ticket
//   odd       validly signed events of odd shapes (dated ahead and back, topics mixed, nested to
//             the limit, another kind, another event's id) and replays of the honest players'
//
//   node --experimental-websocket tests/browser/lobby_hostile.mjs --relay ws://... --kind silent
//        [--count 30] [--variant secret-pawn --clock 300+3] [--bits 15] [--every 100] [--lag 5000]
//   (count: keys for silent and accepter; seeks or junk frames every `every` ms for flood and junk)
//
// Prints "ready" once connected, "seeking" once its attack is in the lobby (the silent seekers'
// and accepters' first seeks published), then "stats {json}" every 5 s (what it sent); runs until
// killed.
// The module also exports start({relay, kind, count, topic, bits}) for the bench (one process).

import { hex, sha256 } from '../../assets/js/peer/bytes.js';
import { mine, eventId } from '../../assets/js/peer/pow.js';
import { lobbyTopic, playerTopic, SEEK_POW_BITS } from '../../assets/js/signal/quick.js';
import { MAX_BATCH } from '../../assets/js/peer/batch.js';
import { EVENT_KIND } from '../../assets/js/signal/nostr.js';

const NOBLE = new URL('../../assets/vendor/noble/secp256k1.js', import.meta.url).href;
const rnd = n => hex(crypto.getRandomValues(new Uint8Array(n)));
const bytesOf = h => Uint8Array.from(h.match(/../g), b => parseInt(b, 16));
const FAKE_K = 'B' + 'A'.repeat(86); // looks like a key, is not a P-256 point

/** A socket's message handler: each relay EVENT, its content parsed, goes to every f(ev, content)
 * of `handlers` (anything else is dropped). Shared with lobby_hostile2.mjs. */
/** `ev` signed by `key` ({secretKey, pubkey}) with noble's `schnorr`. */
export const signed = (schnorr, key, ev) => ({ ...ev, sig: hex(schnorr.sign(bytesOf(ev.id), key.secretKey)) });

/** A signed lobby event of `key` on the topic(s) `tpc`, with `powBits` of proof of work (mined in
 * slices of `slice` hashes, so that the client's other timers still run). */
export async function lobbyEvent(schnorr, key, tpc, content, powBits = 0, slice = 2000) {
  const tags = (Array.isArray(tpc) ? tpc : [tpc]).map(t => ['x', t]);
  let ev = { pubkey: key.pubkey, created_at: Math.floor(Date.now() / 1000), kind: EVENT_KIND, tags, content };
  if (powBits) ev = await mine(ev, powBits, { slice });
  else ev.id = eventId(ev);
  return signed(schnorr, key, ev);
}

export function relayEvents(handlers) {
  return e => {
    let msg;
    try {
      msg = JSON.parse(String(e.data));
    } catch (err) {
      return;
    }
    if (!Array.isArray(msg) || msg[0] !== 'EVENT') return;
    const ev = msg[2];
    let m;
    try {
      m = JSON.parse(ev.content);
    } catch (err) {
      return;
    }
    for (const f of handlers) f(ev, m);
  };
}

export async function start({ relay, kind, count = 30, topic, bits = SEEK_POW_BITS, everyMs = 100, lag = 0, WebSocketImpl = globalThis.WebSocket }) {
  const noble = await import(NOBLE);
  if (!noble.hashes.sha256) noble.hashes.sha256 = sha256;
  const { schnorr } = noble;
  const stats = { kind, sent: 0, proposals: 0, accepts: 0, forged: 0, seeks: 0 };
  const ws = new WebSocketImpl(relay);
  const subId = rnd(8);
  const watched = new Set([topic]);
  const pending = [];
  const send = frame => {
    if (ws.readyState === 1) {
      ws.send(frame);
      stats.sent += 1;
    } else if (pending.length < 1000) pending.push(frame);
  };
  const req = () => send(JSON.stringify(['REQ', subId, { kinds: [EVENT_KIND], '#x': [...watched], since: Math.floor(Date.now() / 1000) - 5 }]));
  const newKey = () => {
    const { secretKey, publicKey } = schnorr.keygen();
    return { secretKey, pubkey: hex(publicKey) };
  };
  const sign = async (key, ev) => signed(schnorr, key, ev);
  const event = (key, tpc, content, powBits = 0) => lobbyEvent(schnorr, key, tpc, content, powBits, 2000);
  const publish = ev => send(JSON.stringify(['EVENT', ev]));
  const seek = async key => {
    stats.seeks += 1;
    publish(await event(key, topic, JSON.stringify(lag ? { t: 'seek', k: FAKE_K, l: lag } : { t: 'seek', k: FAKE_K }), bits));
  };
  const onEvent = [];
  // The proposals of a batch (peer/batch.js).
  const proposals = m => (m && Array.isArray(m.m) ? m.m.filter(w => w && w.t === 'propose' && typeof w.to === 'string') : []);
  ws.onopen = () => {
    req();
    for (const f of pending.splice(0)) send(f);
  };
  ws.onmessage = relayEvents(onEvent);
  ws.onerror = () => {};
  const timers = [];
  const every = (ms, f) => timers.push(setInterval(f, ms));
  // Resolves once the attack is in the lobby: the silent seekers' and accepters' first seeks
  // published (each a proof of work); the other kinds attack from the start.
  let settled = Promise.resolve();
  await new Promise(r => {
    if (ws.readyState === 1) r();
    else ws.addEventListener('open', () => r());
  });

  if (kind === 'silent') {
    const keys = Array.from({ length: count }, newKey);
    let busy = false;
    const round = async () => {
      if (busy) return;
      busy = true;
      try {
        for (const k of keys) await seek(k);
      } finally {
        busy = false;
      }
    };
    settled = round();
    every(6000, round);
  } else if (kind === 'flood') {
    // Unproven seeks (too little work) from fresh keys, as fast as the socket takes them, and now
    // and then a proven one (what the flooder's computer can afford).
    every(everyMs, async () => {
      for (let i = 0; i < count; i++) {
        const k = newKey();
        const ev = await event(k, topic, JSON.stringify({ t: 'seek', k: FAKE_K }), 4);
        publish(ev);
        stats.seeks += 1;
      }
    });
    let busy = false;
    every(1000, async () => {
      if (busy) return;
      busy = true;
      try {
        await seek(newKey());
      } finally {
        busy = false;
      }
    });
  } else if (kind === 'accepter') {
    // Seekers that accept every proposal and never answer again; each key is used once.
    const live = new Map(); // pubkey -> key
    const fresh = async () => {
      const k = newKey();
      live.set(k.pubkey, k);
      watched.add(playerTopic(k.pubkey));
      req();
      await seek(k);
    };
    settled = (async () => {
      for (let i = 0; i < count; i++) await fresh();
    })();
    every(6000, async () => {
      for (const k of [...live.values()]) await seek(k);
    });
    onEvent.push(async (ev, m) => {
      for (const w of proposals(m)) {
        if (!live.has(w.to)) continue;
        const k = live.get(w.to);
        stats.proposals += 1;
        live.delete(k.pubkey);
        publish(await event(k, playerTopic(ev.pubkey), JSON.stringify({ k: FAKE_K, m: [{ t: 'accept', to: ev.pubkey, c: w.c, r: rnd(16) }] })));
        stats.accepts += 1;
        fresh();
      }
    });
  } else if (kind === 'forger') {
    // Sees every seeker, reads the proposals addressed to them, answers in their name.
    const me = newKey();
    const seekers = [];
    onEvent.push(async (ev, m) => {
      if (m.t === 'seek') {
        const t = playerTopic(ev.pubkey);
        if (!watched.has(t)) {
          watched.add(t);
          seekers.push(ev.pubkey);
          req();
        }
        return;
      }
      for (const w of proposals(m)) {
        stats.proposals += 1;
        const back = playerTopic(ev.pubkey);
        const accept = { t: 'accept', to: ev.pubkey, c: w.c, r: rnd(16) };
        // 1. signed by the forger, claiming (in the content) to come from the addressee
        publish(await event(me, back, JSON.stringify({ k: FAKE_K, m: [{ ...accept, p: w.to }] })));
        // 2. the addressee's public key on the event, the forger's signature (an accept, then a
        // busy: either would stop the proposer waiting on that seeker)
        for (const body of [accept, { t: 'busy', to: ev.pubkey, c: w.c }]) {
          const ev2 = { pubkey: w.to, created_at: Math.floor(Date.now() / 1000), kind: EVENT_KIND, tags: [['x', back]], content: JSON.stringify({ k: FAKE_K, m: [body] }) };
          ev2.id = eventId(ev2);
          publish(await sign(me, ev2));
          // 3. the same with an id that is not the hash of the event
          publish({ ...ev2, id: rnd(32), sig: rnd(64) });
        }
        // 4. a forged ready for the proposer's commitment, and a cancel to the addressee in the
        // proposer's name
        publish(await event(me, back, JSON.stringify({ k: FAKE_K, m: [{ t: 'ready', to: ev.pubkey, c: w.c, n: rnd(16) }] })));
        const ev3 = { pubkey: ev.pubkey, created_at: Math.floor(Date.now() / 1000), kind: EVENT_KIND, tags: [['x', playerTopic(w.to)]], content: JSON.stringify({ k: FAKE_K, m: [{ t: 'cancel', to: w.to, c: w.c }] }) };
        ev3.id = eventId(ev3);
        publish(await sign(me, ev3));
        stats.forged += 6;
      }
      // 5. the proposal copied (the proposer's key and ticket, the forger's signature) to a few
      // other seekers, with commitments of its own
      const { ticket } = m;
      if (ticket && Array.isArray(m.m) && m.m.some(w => w && w.t === 'propose')) {
        const to = seekers.filter(id => id !== ev.pubkey).slice(-MAX_BATCH);
        if (!to.length) return;
        const ev4 = { pubkey: ev.pubkey, created_at: Math.floor(Date.now() / 1000), kind: EVENT_KIND, tags: to.map(id => ['x', playerTopic(id)]),
          content: JSON.stringify({ k: FAKE_K, m: to.map(id => ({ t: 'propose', to: id, c: rnd(32) })), ticket }) };
        ev4.id = eventId(ev4);
        publish(await sign(me, ev4));
        stats.forged += 1;
      }
    });
  } else if (kind === 'junk') {
    const seen = [];
    onEvent.push(ev => {
      if (typeof ev.pubkey === 'string' && seen.length < 200 && !seen.includes(ev.pubkey)) seen.push(ev.pubkey);
    });
    const junk = [
      () => 'not json',
      () => JSON.stringify(['EVENT', { nonsense: true }]),
      () => JSON.stringify(['EVENT', { id: rnd(32), pubkey: rnd(32), sig: rnd(64), created_at: 1, kind: EVENT_KIND, tags: [['x', topic]], content: '{"t":"seek"' }]),
      () => JSON.stringify(['EVENT', { id: rnd(32), pubkey: rnd(32), sig: rnd(64), created_at: 1, kind: EVENT_KIND, tags: [['x', topic]], content: 'x'.repeat(9000) }]),
    ];
    every(everyMs, async () => {
      for (let i = 0; i < count; i++) send(junk[i % junk.length]());
      const k = newKey();
      const bodies = [
        { t: 'seek' }, { t: 'seek', k: 5 }, { t: 'what', to: rnd(32) }, [1, 2, 3], { t: 'propose', to: rnd(32), c: rnd(32), k: FAKE_K },
        { t: 'accept', to: rnd(32), c: rnd(32), r: rnd(16), k: FAKE_K }, { t: 'confirm', to: rnd(32), c: rnd(32), s: rnd(16) },
        { t: 'seek', k: FAKE_K, deep: [[[[[[[[[[1]]]]]]]]]] },
      ];
      for (const b of bodies) publish(await event(k, topic, JSON.stringify(b)));
      // Malformed batches to the seekers seen.
      if (!seen.length) return;
      const to = seen[Math.floor(Math.random() * seen.length)];
      const t = playerTopic(to);
      const w = { t: 'accept', to, c: rnd(32), r: rnd(16) };
      const batches = [
        [t, { k: FAKE_K, m: Array.from({ length: MAX_BATCH + 1 }, () => w) }], // too many
        [t, { k: FAKE_K, m: [w], extra: 1 }], // unknown field
        [t, { k: FAKE_K, m: [{ ...w, p: to }] }], // a message naming a sender
        [t, { k: FAKE_K, m: [{ t: 'propose', to, c: rnd(32) }] }], // a proposal without its ticket
        [[t, playerTopic(rnd(32))], { k: FAKE_K, m: [w] }], // a tag that is no addressee's
        [t, { k: FAKE_K, m: [w, { ...w, to: rnd(32) }] }], // an addressee without its tag
        [t, { k: FAKE_K, m: {} }], [t, { m: [w] }], [t, { k: FAKE_K, m: [] }], [t, { k: FAKE_K, m: [{ t: 'seek', to }] }],
        [t, { k: FAKE_K, m: [w], pad: 'x'.repeat(7000) }], // too long
      ];
      for (const [tpc, body] of batches) publish(await event(k, tpc, JSON.stringify(body)));
    });
  } else if (kind === 'odd') {
    // Validly signed events of odd shapes (a red team, 2026-12-07), and replays of what the honest
    // players send: each round, for each seeker seen,
    //  - proven seeks dated 299 s ahead and 299 s back (inside the 300 s a ticket may be off);
    //  - a proven seek tagged with the lobby's topic AND the seeker's own (in both orders);
    //  - a seek nested as deep as allowed and padded to the size limit; one nested deeper;
    //  - a batch to the seeker that also carries the lobby's topic; one of another kind;
    //  - an event with an honest player's id (another event's) and other content;
    //  - every honest batch and seek seen lately, published again as it was.
    const seen = new Map(); // seeker -> its latest seek event
    const honest = new Map(); // id -> an honest event seen (batches and seeks), for replay
    const key = newKey();
    onEvent.push((ev, m) => {
      if (ev.pubkey === key.pubkey) return;
      honest.set(ev.id, ev);
      if (honest.size > 200) honest.delete(honest.keys().next().value);
      if (m && m.t === 'seek' && !seen.has(ev.pubkey)) {
        seen.set(ev.pubkey, ev);
        watched.add(playerTopic(ev.pubkey));
        req();
      }
    });
    const dated = async (tags, content, shift, bits2 = bits) => {
      let ev = { pubkey: key.pubkey, created_at: Math.floor(Date.now() / 1000) + shift, kind: EVENT_KIND, tags, content };
      ev = await mine(ev, bits2, { slice: 2000 });
      return sign(key, ev);
    };
    let busy = false;
    every(Math.max(everyMs, 1000), async () => {
      if (busy) return;
      busy = true;
      try {
        const seek = JSON.stringify({ t: 'seek', k: FAKE_K });
        for (const shift of [299, -299]) publish(await dated([['x', topic]], seek, shift));
        for (const [victim, sev] of seen) {
          const mine2 = playerTopic(victim);
          publish(await dated([['x', topic], ['x', mine2]], seek, 0));
          publish(await dated([['x', mine2], ['x', topic]], seek, 0));
          const deep = { t: 'seek', k: FAKE_K, d: [[[{ p: 'y'.repeat(3900) }]]] };
          publish(await dated([['x', topic]], JSON.stringify(deep), 0));
          publish(await dated([['x', topic]], JSON.stringify({ t: 'seek', k: FAKE_K, d: [[[[[[[1]]]]]]] }), 0));
          const accept = { k: FAKE_K, m: [{ t: 'accept', to: victim, c: rnd(32), r: rnd(16) }] };
          publish(await event(key, [mine2, topic], JSON.stringify(accept)));
          const other = { pubkey: key.pubkey, created_at: Math.floor(Date.now() / 1000), kind: EVENT_KIND + 1, tags: [['x', mine2]], content: JSON.stringify(accept) };
          other.id = eventId(other);
          publish(await sign(key, other));
          publish({ ...sev, content: seek.replace('seek', 'seek ') }); // its id, other content
          stats.forged += 8;
        }
        for (const ev of honest.values()) if (Date.now() / 1000 - ev.created_at < 60) publish(ev);
        stats.seeks += 2;
      } finally {
        busy = false;
      }
    });
  } else {
    throw new Error(`unknown hostile kind ${kind}`);
  }
  return {
    stats,
    settled,
    stop() {
      for (const t of timers) clearInterval(t);
      try {
        ws.close();
      } catch (e) {
        // closed
      }
    },
  };
}

const isMain = process.argv[1] && new URL(import.meta.url).pathname === new URL(`file://${process.argv[1]}`).pathname;
if (isMain) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const variant = arg('--variant', 'secret-pawn');
  const clock = arg('--clock', '300+3');
  const h = await start({
    relay: arg('--relay', null), kind: arg('--kind', 'silent'), count: Number(arg('--count', 30)),
    topic: lobbyTopic(variant, clock), bits: Number(arg('--bits', SEEK_POW_BITS)), everyMs: Number(arg('--every', 100)),
    lag: Number(arg('--lag', 0)),
  });
  console.log('ready');
  h.settled.then(() => console.log('seeking'));
  setInterval(() => console.log(`stats ${JSON.stringify(h.stats)}`), 5000);
}
