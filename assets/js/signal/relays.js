// Hidden Chess -- the relay setting: which Nostr relays one-click invites and quick play use to
// find the other device (assets/js/signal/room.js, quick.js). The defaults are public relays;
// a player or host may set its own relay instead.
// Stored in localStorage "hiddenchess:relays" as a JSON array of ws:// or wss:// URLs.
// The ICE (STUN/TURN) servers stay assets/peer.js's "hiddenchess:ice" setting.

export const RELAYS_KEY = 'hiddenchess:relays';
// Ten well-known public relays run by different operators (a few of Trystero's list and the
// largest general-purpose ones): a page uses whichever answer, so a few that are down, rate-limit
// or block ephemeral events cost nothing.
export const DEFAULT_RELAYS = Object.freeze([
  'wss://nos.lol',
  'wss://relay.damus.io',
  'wss://relay.primal.net',
  'wss://relay.nostr.band',
  'wss://nostr.mom',
  'wss://relay.snort.social',
  'wss://offchain.pub',
  'wss://purplerelay.com',
  'wss://relay.mostr.pub',
  'wss://nostr.data.haus',
]);
export const MAX_RELAYS = 12;

/** A clean list of relay URLs, or throws Error saying which entry is wrong. */
export function validateRelays(list) {
  if (!Array.isArray(list) || list.length === 0) throw new Error('give at least one relay (ws:// or wss:// address)');
  if (list.length > MAX_RELAYS) throw new Error(`at most ${MAX_RELAYS} relays`);
  const out = [];
  for (const raw of list) {
    const text = String(raw == null ? '' : raw).trim();
    let url;
    try {
      url = new URL(text);
    } catch (e) {
      throw new Error(`"${text}" is not a relay address (wss://host or ws://host:port)`);
    }
    if (url.protocol !== 'wss:' && url.protocol !== 'ws:') throw new Error(`"${text}" must start with wss:// (or ws:// for a relay on your own network)`);
    if (url.username || url.password || url.hash) throw new Error(`"${text}" may not carry a user name, password or #fragment`);
    const clean = url.href.replace(/\/$/, '');
    if (!out.includes(clean)) out.push(clean);
  }
  return out;
}

/** The relays to use: the setting, or the public defaults. */
export function relayUrls() {
  try {
    const text = localStorage.getItem(RELAYS_KEY);
    if (text) return validateRelays(JSON.parse(text));
  } catch (e) {
    console.warn(`Hidden Chess: ignoring the setting ${RELAYS_KEY} (${e.message}); using the public relays.`);
  }
  return [...DEFAULT_RELAYS];
}

/** Save a list (validated; throws) or, with null, go back to the public relays. */
export function setRelays(list) {
  const clean = list == null ? null : validateRelays(list);
  try {
    if (clean === null) localStorage.removeItem(RELAYS_KEY);
    else localStorage.setItem(RELAYS_KEY, JSON.stringify(clean));
  } catch {
    throw new Error('this browser keeps no data for this page (site data blocked, or its storage full)');
  }
  return clean === null ? [...DEFAULT_RELAYS] : clean;
}

/** "3 of 5 relays" in words for the page. */
export function relayWords(open, total) {
  return `${open} of ${total} relay${total === 1 ? '' : 's'}`;
}
