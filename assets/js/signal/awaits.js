// Hidden Chess -- ask the relays which correspondence games await you (issue #26), fetch only: the
// Games screen (assets/js/games.js) calls checkGames with peer/awaiting.js's gamesToCheck and
// reads the answer with its newsOf. Only the game on screen runs a StoreLink (store.js); this asks
// about the others once, cheaply: one subscription per relay with one filter per game (at most
// BATCH games in one REQ: relays cap filters), each for the friend's newest FILTER_LIMIT events on
// the game's opaque tag (by the friend's key once this device knows it), since a day before the
// newest event this device saw. Nothing is published and nothing is handed to the Session: opening
// the game fetches its messages as before.
//
// Every relay message is hostile: frames bounded, ids and signatures checked (nostr.js), the
// friend's key when known (else the key that spoke first in the friend's role), the envelope decrypted with the game's key (only the two players hold
// the room secret) and in the friend's role, a part of a long message ignored, the message read
// with limits (safejson.js), only its number, type and an answer's verdict kept. At most
// MAX_EVENTS events of each relay are looked at per round (a relay that floods uses up its own
// share, not the others'), and a round ends after WAIT_MS whatever the relays do. A game no relay
// answered about is left out of the answer (unknown: nothing is claimed).

import { RelayPool } from './nostr.js';
import { relayUrls } from './relays.js';
import { STORE_KIND, open, storeKeys } from './store.js';
import { parseLimited } from '../peer/safejson.js';
import { filterFor, newsOf } from '../peer/awaiting.js';

export const BATCH = 8;
export const WAIT_MS = 8000;
const GRACE_MS = 2000; // after the first relay said it sent all it holds, the others this long
const MAX_EVENTS = 200;
const MAX_FRAME_CHARS = 48 * 1024;

/** {id -> finding (newsOf: null or {kind, n, at})} for the games some relay answered about. */
export async function checkGames(checks, { relays = null, WebSocketImpl = globalThis.WebSocket, waitMs = WAIT_MS } = {}) {
  const urls = relays || relayUrls();
  const out = new Map();
  for (let i = 0; i < checks.length; i += BATCH) {
    const found = await round(checks.slice(i, i + BATCH), urls, WebSocketImpl, waitMs);
    for (const [id, news] of found) out.set(id, news);
  }
  return out;
}

/** A message's number, type and verdict, or null (not a message of this game). */
function readMessage(text, gameId) {
  let msg;
  try {
    msg = parseLimited(text, { maxDepth: 6 });
  } catch (e) {
    return null;
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg) || msg.g !== gameId) return null;
  if (!Number.isInteger(msg.n) || msg.n < 1 || typeof msg.t !== 'string' || msg.t.length > 16) return null;
  return { n: msg.n, t: msg.t, ok: typeof msg.ok === 'boolean' ? msg.ok : null };
}

async function round(checks, urls, WebSocketImpl, waitMs) {
  const byTag = new Map();
  for (const check of checks) {
    try {
      const keys = await storeKeys(check.secret, check.gameId, check.token);
      byTag.set(keys.tag, { check, keys, messages: [] });
    } catch (e) {
      // (a room this browser cannot derive keys for: not asked about)
    }
  }
  if (!byTag.size || !urls.length) return new Map();
  const eosed = new Set();
  const seen = new Map(); // url -> events looked at
  let busy = 0;
  let finish = null;
  const done = new Promise(resolve => { finish = resolve; });
  let grace = null;

  const onevent = (tag, ev, url) => {
    const entry = byTag.get(tag);
    const looked = seen.get(url) || 0;
    if (!entry || looked >= MAX_EVENTS) return false; // (not taken from this relay: another's copy may be)
    seen.set(url, looked + 1);
    look(entry, tag, ev);
    return true;
  };
  const look = async (entry, tag, ev) => {
    const { check, keys } = entry;
    if (check.peerKey && ev.pubkey !== check.peerKey) return; // (another key: not the friend)
    busy += 1;
    try {
      if (!(await pool.verify(ev))) return;
      const env = await open(keys.aes, tag, ev.content);
      if (!env || env.r !== check.friendRole || env.p !== undefined) return;
      const msg = readMessage(env.m, check.gameId);
      if (msg) entry.messages.push({ ...msg, at: ev.created_at, key: ev.pubkey });
    } finally {
      busy -= 1;
    }
  };
  const oneose = url => {
    eosed.add(url);
    if (eosed.size >= urls.length) finish();
    else if (!grace) grace = setTimeout(finish, GRACE_MS);
  };
  const pool = new RelayPool(urls, {
    WebSocketImpl, kind: STORE_KIND, sinceS: null, maxFrameChars: MAX_FRAME_CHARS, maxPending: 0, onevent, oneose,
  });
  const filters = [...byTag].map(([tag, { check }]) => filterFor(check, tag, STORE_KIND));
  for (const tag of byTag.keys()) pool.topics.add(tag);
  pool._req = ws => pool._send(ws, JSON.stringify(['REQ', pool.subId, ...filters]));
  const timer = setTimeout(finish, waitMs);
  try {
    await pool.start();
    await done;
    // (events still being checked finish first, briefly)
    for (let i = 0; i < 50 && busy; i++) await new Promise(resolve => setTimeout(resolve, 20));
  } catch (e) {
    eosed.clear(); // the relays cannot be used here: nothing is known
  } finally {
    clearTimeout(timer);
    clearTimeout(grace);
    pool.close();
  }
  const out = new Map();
  if (!eosed.size) return out;
  for (const { check, messages } of byTag.values()) out.set(check.id, newsOf(check, check.peerKey ? messages : theFriends(messages)));
  return out;
}

/** The friend's key not known yet: the messages of the key that spoke first for the friend's role
 * (the honest friend published first, as store.js binds it); two keys at once: none. */
function theFriends(messages) {
  if (!messages.length) return messages;
  const first = Math.min(...messages.map(m => m.at));
  const keys = new Set(messages.filter(m => m.at === first).map(m => m.key));
  if (keys.size !== 1) return [];
  const [key] = keys;
  return messages.filter(m => m.key === key);
}
