// Hostile lobby clients of a red team (tests/browser/test_peer_sybil.py runs the ghost). Same wire format as
// lobby_hostile.mjs, but these complete more of the protocol, with a FRESH key each time a key
// has been "used up" by a victim's back-off (a sybil: each key costs one 14-bit proof of work).
//
//   locker   proposes to every seeker it sees, from a fresh key with its own proven ticket, as
//            often as --every ms; when accepted, sends nothing more (or with --check 1 a check,
//            which renews the victim's hold once, then nothing). The victim holds that acceptance
//            LOCK_MS (4 s, 8 s after a check) and answers every other proposal busy, and its own
//            offers are cancelled when it accepts. With --seek 1 each key also seeks in the lobby
//            (from its creation, every 6 s), as an honest page does.
//   ghost    seeks with --count fresh keys (valid P-256 ECDH keys); answers every proposal with
//            accept, every check with ready; after the confirm it is "paired" and does nothing
//            (never joins the room). The key is then retired and a fresh one seeks.
//            With --propose 1 it also proposes (propose/check/confirm) from fresh keys.
//   cancels  a flood of validly signed (own fresh key) cancel batches to each seeker seen, each
//            with a random commitment: each needs a signature check at the victim (Lobby.relevant
//            says SIGNED for a cancel of a proposal not heard).
//   replay   remembers every proven seek it sees and republishes them all every --every ms
//            (to pages that joined later: seekers that left long ago come back)
//
//   node --experimental-websocket tests/browser/lobby_hostile2.mjs --relay ws://... --kind locker
//        [--count 8] [--every 500] [--check 0|1] [--propose 0|1] [--seek 0|1]

import { hex, sha256 } from '../../assets/js/peer/bytes.js';
import { lobbyTopic, playerTopic, SEEK_POW_BITS } from '../../assets/js/signal/quick.js';
import { EVENT_KIND } from '../../assets/js/signal/nostr.js';
import { lobbyEvent, relayEvents } from './lobby_hostile.mjs';

const NOBLE = new URL('../../assets/vendor/noble/secp256k1.js', import.meta.url).href;
const rnd = n => hex(crypto.getRandomValues(new Uint8Array(n)));
const b64u = bytes => Buffer.from(bytes).toString('base64url');
const digest = text => hex(sha256(new TextEncoder().encode(text)));

export async function start({ relay, kind, count = 8, topic, bits = SEEK_POW_BITS, everyMs = 500, check = false, propose = false, seek = false, log = () => {} }) {
  const noble = await import(NOBLE);
  if (!noble.hashes.sha256) noble.hashes.sha256 = sha256;
  const { schnorr } = noble;
  const stats = { kind, sent: 0, keys: 0, proposals: 0, accepted: 0, checks: 0, readies: 0, confirms: 0, pairedWith: 0, cancels: 0, replays: 0 };
  const ws = new WebSocket(relay);
  const subId = rnd(8);
  const watched = new Set([topic]);
  const send = frame => {
    if (ws.readyState === 1) {
      ws.send(frame);
      stats.sent += 1;
    }
  };
  const req = () => send(JSON.stringify(['REQ', subId, { kinds: [EVENT_KIND], '#x': [...watched], since: Math.floor(Date.now() / 1000) - 5 }]));
  const ecdhKey = async () => {
    const kp = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
    return b64u(new Uint8Array(await crypto.subtle.exportKey('raw', kp.publicKey)));
  };
  const newKey = async () => {
    const { secretKey, publicKey } = schnorr.keygen();
    stats.keys += 1;
    return { secretKey, pubkey: hex(publicKey), k: await ecdhKey() };
  };
  const event = (key, tpc, content, powBits = 0) => lobbyEvent(schnorr, key, tpc, content, powBits, 4000);
  const publish = ev => send(JSON.stringify(['EVENT', ev]));
  const seekEv = async key => event(key, topic, JSON.stringify({ t: 'seek', k: key.k }), bits);
  const direct = async (key, to, msgs, extra = {}) => publish(await event(key, [playerTopic(to)], JSON.stringify({ k: key.k, m: msgs, ...extra })));
  const listen = key => {
    watched.add(playerTopic(key.pubkey));
    req();
  };
  const handlers = [];
  ws.onmessage = relayEvents(handlers);
  ws.onerror = () => {};
  await new Promise(r => (ws.readyState === 1 ? r() : ws.addEventListener('open', () => r())));
  req();
  const timers = [];
  const every = (ms, f) => timers.push(setInterval(f, ms));
  const mineKeys = new Set(); // pubkeys of all our keys (not victims)
  const seekers = new Map(); // victim pubkey -> last seek event
  const onNew = []; // called with the pubkey of a seeker seen for the first time
  handlers.push((ev, m) => {
    if (m && m.t === 'seek' && !mineKeys.has(ev.pubkey)) {
      const isNew = !seekers.has(ev.pubkey);
      seekers.set(ev.pubkey, ev);
      if (isNew) for (const f of onNew) f(ev.pubkey);
    }
    if (m && m.t === 'gone') seekers.delete(ev.pubkey);
  });
  let settled = Promise.resolve();

  if (kind === 'locker') {
    // A pool of ready keys (each with its ticket) so that a fresh one is at hand at once.
    const ready = [];
    const filling = { busy: false };
    const fill = async () => {
      if (filling.busy) return;
      filling.busy = true;
      try {
        while (ready.length < count) {
          const key = await newKey();
          mineKeys.add(key.pubkey);
          key.ticket = await seekEv(key);
          listen(key);
          if (seek) publish(key.ticket); // (heard seeking in the lobby, as an honest page is)
          ready.push(key);
        }
      } finally {
        filling.busy = false;
      }
    };
    settled = fill();
    await settled;
    const current = new Map(); // victim -> key proposing to it now
    if (seek) {
      // Every key not used up seeks again, as a page does every 8 s: each stays a seeker heard in
      // the lobby, and ages there (a page trusts a key it has heard seek for long).
      every(6000, async () => {
        for (const k of [...ready, ...current.values()]) {
          if (k.used) continue;
          k.ticket = await seekEv(k);
          publish(k.ticket);
        }
      });
    }
    const keyFor = victim => {
      let k = current.get(victim);
      if (!k || k.used) {
        k = ready.shift();
        if (!k) return null;
        current.set(victim, k);
        fill();
      }
      return k;
    };
    const proposeTo = async victims => {
      for (const victim of victims) {
        const k = keyFor(victim);
        if (!k) continue;
        if (Date.now() / 1000 - k.ticket.created_at > 250) { // ticket about to expire: re-mine
          k.ticket = await seekEv(k);
        }
        stats.proposals += 1;
        await direct(k, victim, [{ t: 'propose', to: victim, c: rnd(32) }], { ticket: k.ticket });
      }
    };
    every(everyMs, () => proposeTo([...seekers.keys()]));
    onNew.push(victim => proposeTo([victim]));
    handlers.push(async (ev, m) => {
      if (!m || !Array.isArray(m.m)) return;
      for (const w of m.m) {
        if (w.t === 'propose') {
          // The victim proposes to one of our keys (a proposal made it a seeker there): accept and
          // stall (the victim then checks us and answers everyone else busy for CHECK_MS), and
          // retire the key, which the victim will give up.
          const k = [...current.values()].find(x => x.pubkey === w.to);
          if (!k || k.used) continue;
          k.used = true;
          stats.accepted += 1;
          await direct(k, ev.pubkey, [{ t: 'accept', to: ev.pubkey, c: w.c, r: rnd(16) }]);
          continue;
        }
        if (w.t !== 'accept') continue;
        const k = [...current.values()].find(x => x.pubkey === w.to);
        if (!k || k.used) continue;
        k.used = true; // the victim will back off this key: next time a fresh one
        stats.accepted += 1;
        log(`accepted by ${ev.pubkey.slice(0, 8)} at ${Date.now()}`);
        if (check) {
          stats.checks += 1;
          await direct(k, ev.pubkey, [{ t: 'check', to: ev.pubkey, c: w.c, n: rnd(16) }]);
        }
      }
    });
  } else if (kind === 'ghost') {
    const live = new Map(); // pubkey -> key
    const fresh = async () => {
      const key = await newKey();
      mineKeys.add(key.pubkey);
      live.set(key.pubkey, key);
      listen(key);
      key.seek = await seekEv(key);
      publish(key.seek);
    };
    settled = (async () => {
      for (let i = 0; i < count; i++) await fresh();
    })();
    const reseek = async () => {
      for (const k of [...live.values()]) {
        k.seek = await seekEv(k);
        publish(k.seek);
      }
    };
    every(6000, reseek);
    // A newcomer: our seekers' last seeks again at once (the newcomer's subscription missed them).
    onNew.push(() => {
      for (const k of live.values()) if (k.seek) publish(k.seek);
    });
    const offers = new Map(); // `${ours}|${victim}` -> {s, c}
    handlers.push(async (ev, m) => {
      if (!m || !Array.isArray(m.m) || mineKeys.has(ev.pubkey)) return;
      for (const w of m.m) {
        const k = live.get(w.to);
        if (!k) continue;
        if (w.t === 'propose') {
          stats.proposals += 1;
          await direct(k, ev.pubkey, [{ t: 'accept', to: ev.pubkey, c: w.c, r: rnd(16) }]);
        } else if (w.t === 'check') {
          stats.readies += 1;
          await direct(k, ev.pubkey, [{ t: 'ready', to: ev.pubkey, c: w.c, n: w.n }]);
        } else if (w.t === 'confirm') {
          stats.pairedWith += 1;
          log(`ghost ${k.pubkey.slice(0, 8)} paired (guest) with ${ev.pubkey.slice(0, 8)} at ${Date.now()}`);
          live.delete(k.pubkey);
          publish(await event(k, topic, JSON.stringify({ t: 'gone' })));
          fresh();
        } else if (w.t === 'accept') {
          const o = offers.get(`${k.pubkey}|${ev.pubkey}`);
          if (!o || o.c !== w.c) continue;
          o.n = rnd(16);
          stats.checks += 1;
          await direct(k, ev.pubkey, [{ t: 'check', to: ev.pubkey, c: w.c, n: o.n }]);
        } else if (w.t === 'ready') {
          const o = offers.get(`${k.pubkey}|${ev.pubkey}`);
          if (!o || o.c !== w.c || o.n !== w.n || o.done) continue;
          o.done = true;
          stats.confirms += 1;
          await direct(k, ev.pubkey, [{ t: 'confirm', to: ev.pubkey, c: w.c, s: o.s }]);
          stats.pairedWith += 1;
          log(`ghost ${k.pubkey.slice(0, 8)} paired (host) with ${ev.pubkey.slice(0, 8)} at ${Date.now()}`);
          live.delete(k.pubkey);
          publish(await event(k, topic, JSON.stringify({ t: 'gone' })));
          fresh();
        }
      }
    });
    if (propose) {
      const proposeTo = async victims => {
        const keys = [...live.values()];
        let i = 0;
        for (const victim of victims) {
          const k = keys[i++ % Math.max(1, keys.length)];
          if (!k || !k.seek) continue;
          const s = rnd(16);
          const c = digest(s);
          offers.set(`${k.pubkey}|${victim}`, { s, c });
          stats.proposals += 1;
          await direct(k, victim, [{ t: 'propose', to: victim, c }], { ticket: k.seek });
        }
      };
      every(everyMs, () => proposeTo([...seekers.keys()]));
      onNew.push(victim => proposeTo([victim]));
    }
  } else if (kind === 'busyamp') {
    // One key holds the victim (its proposal accepted, then silence); a second floods proposals
    // (each a new commitment, the same ticket): a page that holds an acceptance (or is paired and
    // connecting) answers each one busy, unchecked and without a rate limit (toldBusy only limits
    // keys in their back-off), one signed event per timer turn, on the victim's own relay budget.
    const holder = await newKey();
    const flooder = await newKey();
    for (const k of [holder, flooder]) {
      mineKeys.add(k.pubkey);
      k.ticket = await seekEv(k);
      listen(k);
    }
    let busies = 0;
    handlers.push((ev, m) => {
      if (m && Array.isArray(m.m)) for (const w of m.m) if (w.t === 'busy' && w.to === flooder.pubkey) busies += 1;
      stats.busiesReceived = busies;
    });
    const held = new Set();
    onNew.push(async victim => {
      held.add(victim);
      await direct(holder, victim, [{ t: 'propose', to: victim, c: rnd(32) }], { ticket: holder.ticket });
    });
    every(everyMs, async () => {
      for (const victim of held) {
        for (let i = 0; i < count; i++) {
          stats.proposals += 1;
          await direct(flooder, victim, [{ t: 'propose', to: victim, c: rnd(32) }], { ticket: flooder.ticket });
        }
      }
    });
  } else if (kind === 'cancels') {
    const key = await newKey();
    every(everyMs, async () => {
      for (const victim of seekers.keys()) {
        for (let i = 0; i < count; i++) {
          stats.cancels += 1;
          await direct(key, victim, [{ t: 'cancel', to: victim, c: rnd(32) }]);
        }
      }
    });
  } else if (kind === 'replay') {
    const all = new Map(); // id -> seek event (all seen, including those of players who left)
    handlers.push((ev, m) => {
      if (m && m.t === 'seek') all.set(ev.id, ev);
    });
    every(everyMs, () => {
      for (const ev of all.values()) {
        if (Date.now() / 1000 - ev.created_at > 290) continue;
        stats.replays += 1;
        publish(ev);
      }
    });
  } else {
    throw new Error(`unknown kind ${kind}`);
  }
  return { stats, settled, stop() { for (const t of timers) clearInterval(t); ws.close(); } };
}

const isMain = process.argv[1] && new URL(import.meta.url).pathname === new URL(`file://${process.argv[1]}`).pathname;
if (isMain) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const h = await start({
    relay: arg('--relay', null), kind: arg('--kind', 'locker'), count: Number(arg('--count', 8)),
    topic: lobbyTopic(arg('--variant', 'secret-pawn'), arg('--clock', '300+3')), bits: Number(arg('--bits', SEEK_POW_BITS)),
    everyMs: Number(arg('--every', 500)), check: arg('--check', '0') === '1', propose: arg('--propose', '0') === '1', seek: arg('--seek', '0') === '1',
    log: s => console.log(`log ${s}`),
  });
  console.log('ready');
  h.settled.then(() => console.log('seeking'));
  setInterval(() => console.log(`stats ${JSON.stringify(h.stats)}`), 5000);
}
