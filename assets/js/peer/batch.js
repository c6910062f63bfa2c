// Hidden Chess -- the quick-play lobby's directed messages on the wire (issue #24): pure, no
// network. The lobby (peer/lobby.js) answers each message and each tick with a few messages to
// other players (proposals to up to 12 seekers, the cancels of a round, busy answers...);
// signal/quick.js sends those of one turn as FEW signed events instead of one event each, since a
// signature (and its check at the other end) is what a lobby message costs.
//
// A batch is one Nostr event: one ["x", playerTopic(to)] tag per addressee (relays pass it to each
// addressee's subscription) and the content
//   {"k": <the sender's ECDH key>, "m": [{t, to, c, ...}, ...], "ticket": <its proven seek>}
// (`ticket` only when a proposal is in it). The sender of every message in it is the key that
// signed the event; a message never names its sender (no `p`) nor carries its own key (`k`).
// Within public relays' limits: at most MAX_BATCH messages and addressees (x tags) and
// MAX_BATCH_CHARS of content, so an event stays under 4 KB (strfry instances run with
// maxEventSize 4096 and maxNumTags 12; the defaults are 64 KB and 250).
//
// unpack() refuses a whole event that is not exactly that (unknown fields, too many messages or
// tags, a tag that is no addressee's or an addressee without its tag, a malformed message): an
// honest page never sends one, so nothing in it is worth a signature check.

import { validMessage } from './lobby-wire.js';

export const MAX_BATCH = 8; // messages in one event, and addressees (x tags)
export const MAX_BATCH_CHARS = 3000; // content of one event as packed (unpack allows MAX_UNPACK_CHARS)
export const MAX_UNPACK_CHARS = 6000;
const TYPES = new Set(['propose', 'accept', 'busy', 'check', 'ready', 'confirm', 'cancel']);
// The fields of each type, besides t and to (k: the batch's).
const FIELDS = { propose: ['c'], accept: ['c', 'r'], busy: ['c'], check: ['c', 'n'], ready: ['c', 'n'], confirm: ['c', 's'], cancel: ['c'] };
const KEY = /^[A-Za-z0-9_-]{40,120}$/;
const ID = /^[0-9a-f]{64}$/;

function wire(m) {
  const out = { t: m.t, to: m.to };
  for (const f of FIELDS[m.t]) out[f] = m[f];
  return out;
}

/** The directed messages `msgs` (from Lobby.handle/tick; seeks and gones are not for this) as
 * events to publish: [{to: [addressees], content: string}]. `key`: the sender's ECDH key; `ticket`:
 * its latest proven seek (sent with proposals). Busy answers are sent once per addressee and
 * commitment, and at most MAX_BATCH of them (a flood of copied proposals costs the page at most
 * one more event per turn; a proposer not answered times out). */
export function pack(msgs, { key, ticket = null }) {
  const out = [];
  let cur = null;
  const flush = () => {
    if (!cur) return;
    const content = { k: key, m: cur.m };
    if (cur.propose) content.ticket = ticket;
    out.push({ to: [...cur.to], content: JSON.stringify(content) });
    cur = null;
  };
  const base = JSON.stringify({ k: key, m: [] }).length + (ticket ? JSON.stringify(ticket).length + 10 : 0);
  const busy = new Set();
  for (const m of msgs) {
    if (!TYPES.has(m.t)) continue;
    if (m.t === 'busy') {
      const id = `${m.to}|${m.c}`;
      if (busy.has(id) || busy.size >= MAX_BATCH) continue;
      busy.add(id);
    }
    const w = wire(m);
    const chars = JSON.stringify(w).length + 1;
    if (cur && (cur.m.length >= MAX_BATCH || (!cur.to.has(m.to) && cur.to.size >= MAX_BATCH) || cur.chars + chars > MAX_BATCH_CHARS)) flush();
    if (!cur) cur = { m: [], to: new Set(), chars: base, propose: false };
    cur.m.push(w);
    cur.to.add(m.to);
    cur.chars += chars;
    if (m.t === 'propose') cur.propose = true;
  }
  flush();
  return out;
}

/** The messages of a batch event `ev` (well formed, its id checked) addressed to `me`, as the
 * lobby takes them ({...m, p: ev.pubkey, k}), and its ticket: {mine: [...], ticket}; null when
 * the event is not a well-formed batch. `topicOf(id)`: an addressee's topic (its x tag). `parsed`:
 * the content, parsed within limits by the caller. */
export function unpack(ev, parsed, me, topicOf) {
  const b = parsed;
  if (!b || typeof b !== 'object' || Array.isArray(b) || ev.content.length > MAX_UNPACK_CHARS) return null;
  for (const f of Object.keys(b)) if (f !== 'k' && f !== 'm' && f !== 'ticket') return null;
  if (typeof b.k !== 'string' || !KEY.test(b.k) || !Array.isArray(b.m) || b.m.length < 1 || b.m.length > MAX_BATCH) return null;
  const to = new Set();
  let proposes = false;
  for (const w of b.m) {
    if (!w || typeof w !== 'object' || Array.isArray(w) || !TYPES.has(w.t) || typeof w.to !== 'string' || !ID.test(w.to)) return null;
    const fields = FIELDS[w.t];
    for (const f of Object.keys(w)) if (f !== 't' && f !== 'to' && !fields.includes(f)) return null;
    if (!validMessage({ ...w, p: ev.pubkey, k: b.k })) return null;
    to.add(w.to);
    if (w.t === 'propose') proposes = true;
  }
  // A proposal carries its ticket; nothing else does.
  if (proposes !== (b.ticket !== undefined)) return null;
  // Exactly one x tag per addressee, and no other tags.
  if (ev.tags.length !== to.size) return null;
  const topics = new Set([...to].map(topicOf));
  for (const t of ev.tags) {
    if (t.length !== 2 || t[0] !== 'x' || !topics.delete(t[1])) return null;
  }
  const mine = b.m.filter(w => w.to === me).map(w => ({ ...w, p: ev.pubkey, k: b.k }));
  return { mine, ticket: proposes ? b.ticket : null };
}
