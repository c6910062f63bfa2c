// Hidden Chess -- one-click connections through public Nostr relays (issue #13), with Trystero
// (vendored: assets/vendor/trystero/, loaded on first use). No server of ours is involved.
//
// A *room* is named by a random secret that only the two players know: it travels in the
// invite link's fragment (#...&room=<secret>, never sent to any server) or, for quick play,
// is derived from the two players' ECDH keys (quick.js). From the secret come the Trystero room
// id and its password, so the relays see an opaque topic hash and encrypted SDP offers/answers
// (Trystero encrypts them with AES-GCM under a key derived from the password).
//
// new RoomLink({secret, role, token, expect, confirmed, relays, iceServers, onaccept, onconfirm})
//   Who the friend is: signal/handshake.js. role "host": the first guest that claims the game is
//   accepted (onaccept(token) lets the page remember its token), and once it has proved itself
//   (onconfirm()), only a page that proves it knows the pair's key opens the link; any other
//   device that claims the game is told "taken". `expect`: the friend's token already accepted
//   (after a reload) or, in quick play, the opponent's; `confirmed`: false while the host's guest
//   has not proved itself yet. role "guest": claims the game from the host, or, with `expect`,
//   proves itself. No token goes out in a hello. A connection Trystero replaced under the same
//   peer id closes the link on both pages and opens it again (a hello from the bound friend).
// link.channel() -> a channel for HCPeer.attach: send(text), close(), onopen/onmessage/onclose,
//   .open. The link lives as long as the game: channels come and go with the friend's
//   connection (HCPeer ends a channel when the friend is lost; the next one opens when the
//   friend is back), messages that arrive between two channels are kept for the next one.
// link.relayState() -> {open, total, failed}; link.noRelay() -> true when no relay is reachable;
// link.cutOff() -> true when none is any longer (this device's network gone, most likely);
// link.doubtful() -> true when no open relay answers (it may be gone: cutOff soon);
// link.answered: the other page's connection set-up has arrived (it is in the room);
// link.onchange(link) after every change of
//   link.state ("loading" | "connecting" | "open" | "taken" | "failed" | "left") or of the
//   relay count; link.leave().

import { parseLimited, checkText, MessageError } from '../peer/safejson.js';
import { MESSAGES } from '../peer/errors.js';
import { relayUrls } from './relays.js';
import { onRelayBack, relayBack } from './back.js';
import { dropIfDead, seenDropped, unanswered } from './alive.js';
import { reportFault } from '../fault.js';
import { Handshake, connectionFingerprints } from './handshake.js';
import { VENDOR } from '../vendor.js';

export const APP_ID = 'hidden-chess.v1';
export const TAKEN_MESSAGE = 'This game is already taken: another player opened this invite first.';
export const ICE_MESSAGE = MESSAGES.iceFailed;
const TRYSTERO_URL = new URL('trystero/nostr.mjs', VENDOR).href;
// (patched by build.py: retries a relay for ever, exports retryRelaysNow)
const TRYSTERO_UTILS_URL = new URL('trystero/core/utils.mjs', VENDOR).href;
const ROOMS_KEY = 'hiddenchess:rooms';
const MAX_SAVED_ROOMS = 30;
const MAX_QUEUE = 200; // messages kept between two channels
const CTL_MAX_CHARS = 2048;
const TOKEN = /^[0-9a-f]{32}$/;
// Trystero announces a room on joining (then once a minute): while the other player is away, the
// room is joined afresh every REFRESH_MS and as soon as a relay comes back after an outage, so
// that two pages that (re)started at different times find each other within seconds.
const REFRESH_MS = 15000;
const FAST_REFRESH_MS = 4000; // ...every 4 s for the first 30 s after a relay is back
const FAST_REFRESH_FOR_MS = 30000;
// A connection whose set-up was exchanged through the relays but that is not up this long after
// (or that failed before it was ever up): no direct path between the two networks (ICE) -- the
// page says so.
const ICE_FAIL_MS = 10000;

// The links of this page that are waiting for their friend (Trystero makes its connections with
// the configuration of the first room it joined, so a failure is told to every waiting link).
const LIVE = new Set();
const iceFailed = () => LIVE.forEach(link => link._iceFailed());
// The connections whose set-up was exchanged and that are still trying paths (ICE): the periodic
// re-join waits for them (it would close them: a slow path, e.g. through TURN, never came up, and a
// failing one was never told).
const TRYING = new Set();
const trying = () => [...TRYING].some(pc => Date.now() - pc.hcSince < ICE_FAIL_MS + 2000);

// Trystero catches what an action handler throws and only logs it: a fault of ours there (the
// channel's onopen runs the whole page's render) would leave the page half drawn without a trace.
// It is reported as the page's own uncaught error instead.
export const loud = fn => (...args) => {
  try {
    return fn(...args);
  } catch (e) {
    reportFault(e);
    return undefined;
  }
};

/** An RTCPeerConnection (given to Trystero) that tells the waiting links (`onFailed`) when ICE
 * fails: a connection whose set-up was exchanged that fails, or is not up ICE_FAIL_MS later,
 * without ever having been up. */
export function watchedConnection(onFailed = iceFailed, onRemote = null) {
  const Base = globalThis.RTCPeerConnection;
  if (!Base) return undefined;
  return class extends Base {
    constructor(config) {
      super(config);
      this.addEventListener('connectionstatechange', () => {
        if (this.connectionState === 'connected') {
          this.hcConnected = true;
          this.hcDone();
        }
        if (this.connectionState === 'failed') {
          this.hcDone();
          // A connection that was up and then failed lost its peer (a reload, a closed tab, a
          // network change): that says nothing about the paths between the two networks.
          if (!this.hcConnected) onFailed();
        }
      });
    }

    setRemoteDescription(description) {
      if (onRemote) onRemote();
      if (!this.hcTimer) {
        this.hcSince = Date.now();
        TRYING.add(this);
        this.hcTimer = setTimeout(() => {
          TRYING.delete(this);
          if (!this.hcConnected && this.connectionState !== 'closed') onFailed();
        }, ICE_FAIL_MS);
      }
      return super.setRemoteDescription(description);
    }

    hcDone() {
      clearTimeout(this.hcTimer);
      TRYING.delete(this);
    }

    close() {
      this.hcDone();
      super.close();
    }
  };
}

const lib = { promise: null };

/** The vendored Trystero (Nostr strategy), loaded once. */
export function loadTrystero() {
  if (!lib.promise) {
    lib.promise = Promise.all([import(TRYSTERO_URL), import(TRYSTERO_UTILS_URL)]).then(([t, utils]) => {
      lib.retryNow = utils.retryRelaysNow;
      return t;
    }).catch(e => {
      lib.promise = null;
      throw new Error(`could not load the relay library (assets/vendor/trystero): ${e.message || e}. Run \`python3 build.py build\`.`);
    });
  }
  return lib.promise;
}

export function randomHex(bytes) {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(data, b => b.toString(16).padStart(2, '0')).join('');
}

export const newSecret = () => randomHex(16);
export const newToken = () => randomHex(16);
export const isSecret = s => typeof s === 'string' && /^[0-9a-f]{32}$/.test(s);

async function sha256hex(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), b => b.toString(16).padStart(2, '0')).join('');
}

/** The Trystero room id and password of a secret (neither reveals the secret). */
export async function deriveRoom(secret) {
  return { roomId: (await sha256hex(`hiddenchess room|${secret}`)).slice(0, 40), password: await sha256hex(`hiddenchess key|${secret}`) };
}

// ---- what a page remembers of its rooms (per game id): {s: secret, r: role, t: own token, a: accepted
// token, c: false while the host's guest has not proved itself, x: taken by someone else, and the
// store path's k: the friend's key, w: how far its events were read}

function loadAll() {
  try {
    const all = JSON.parse(localStorage.getItem(ROOMS_KEY) || '{}');
    return all && typeof all === 'object' && !Array.isArray(all) ? all : {};
  } catch (e) {
    return {};
  }
}

/** Every room this page remembers: {game id: info} (the Games screen's check, games.js). */
export function loadRooms() {
  return loadAll();
}

export function loadRoom(gameId) {
  const r = loadAll()[gameId];
  return r && isSecret(r.s) && (r.r === 'host' || r.r === 'guest') && TOKEN.test(r.t) ? r : null;
}

export function saveRoom(gameId, info) {
  const all = loadAll();
  delete all[gameId];
  all[gameId] = info;
  const keys = Object.keys(all);
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_SAVED_ROOMS))) delete all[k];
  try {
    localStorage.setItem(ROOMS_KEY, JSON.stringify(all));
  } catch (e) {
    // storage full or off: a reload then needs the codes
  }
  return info;
}

// ---- the link

class Channel {
  constructor(link) {
    this.link = link;
    this.open = false;
    this.onopen = this.onmessage = this.onclose = null;
  }

  send(text) {
    if (!this.open || this.link.channelRef !== this) throw new Error('the connection to the other player is not open');
    this.link.sendMsg(text);
  }

  close() {
    if (this.link.channelRef === this) this.link.channelRef = null;
    this.open = false;
  }
}

export class RoomLink {
  constructor({ secret, role, token, expect = null, confirmed = true, relays = null, iceServers = [], onaccept = null, onconfirm = null }) {
    if (!isSecret(secret)) throw new Error('the room secret is damaged');
    if (!TOKEN.test(token)) throw new Error('the device token is damaged');
    this.secret = secret;
    this.role = role;
    this.token = token;
    this.relays = relays || relayUrls();
    this.iceServers = iceServers;
    this.onaccept = onaccept;
    this.onconfirm = onconfirm;
    this._handshake(expect, confirmed);
    this.onchange = null;
    this.oncontrol = null; // (message, peerId) for control kinds the link does not handle (quick play's invite)
    this.state = 'loading';
    this.error = '';
    this.bound = null; // the Trystero peer id of the other player (after hello/welcome)
    this.channelRef = null;
    this.queue = [];
    this.room = null;
    this.trystero = null;
    this.left = false;
    this.started = Date.now();
    this.failedRelays = new Set(); // relays whose socket was seen closed (refused or dropped)
    this.reachedAt = 0; // when a relay was last seen open (0: never yet)
    this.silent = new Set(); // relays whose last socket went silent (dropped by alive.js), not refused
    this._lastCount = -1;
    this._poll = setInterval(() => this._checkRelays(), 500);
    // Back online, or the page shown again: every relay that is down is tried at once.
    this._wake = () => {
      if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return;
      if (lib.retryNow) lib.retryNow();
    };
    addEventListener('online', this._wake);
    document.addEventListener('visibilitychange', this._wake);
    // (another socket of the page reached a relay again: Trystero's waiting sockets try now)
    this._offBack = onRelayBack(() => lib.retryNow && lib.retryNow());
    LIVE.add(this);
    this._start();
  }

  _handshake(expect, confirmed) {
    const link = this;
    this.handshake = new Handshake({
      secret: this.secret, role: this.role, token: this.token, expect, confirmed,
      link: {
        get bound() {
          return link.bound;
        },
        send: (message, peerId) => this._sendCtl(message, peerId),
        bind: peerId => !this.left && this._bind(peerId),
        unbind: () => !this.left && this._unbind(),
        fingerprints: peerId => connectionFingerprints(this.room && this.room.getPeers()[peerId]),
        accepted: token => this.onaccept && this.onaccept(token),
        confirmed: () => this.onconfirm && this.onconfirm(),
        taken: () => !this.left && this._taken(),
      },
    });
  }

  /** The friend's token, once known. */
  get expect() {
    return this.handshake.expect;
  }

  _set(state, error = '') {
    this.state = state;
    this.error = error;
    this._changed();
  }

  _changed() {
    if (this.onchange) {
      try {
        this.onchange(this);
      } catch (e) {
        console.error(e);
      }
    }
  }

  async _start() {
    let t;
    try {
      t = await loadTrystero();
    } catch (e) {
      this._set('failed', e.message);
      return;
    }
    if (this.left) return;
    this.trystero = t;
    this.derived = await deriveRoom(this.secret);
    if (this.left) return;
    this._join();
    this._set('connecting');
  }

  _join() {
    const { roomId, password } = this.derived;
    this.joinedAt = Date.now();
    const room = this.trystero.joinRoom({
      appId: APP_ID,
      password,
      relayConfig: { urls: this.relays, warnOnRelayFailure: false },
      rtcConfig: { iceServers: this.iceServers },
      // (the other page's set-up arrived: only the two pages know the room's password)
      rtcPolyfill: watchedConnection(undefined, () => { this.answered = true; }),
    }, roomId, { onJoinError: e => this._joinError(e) });
    this.room = room;
    this.ctl = room.makeAction('hcctl');
    this.msg = room.makeAction('hcmsg');
    this.ctl.onMessage = loud((data, meta) => this._control(data, meta && meta.peerId));
    this.msg.onMessage = loud((data, meta) => this._message(data, meta && meta.peerId));
    room.onPeerJoin = loud(id => this._joined(id));
    room.onPeerLeave = loud(id => {
      if (id === this.bound) this._unbind();
    });
  }

  /** Trystero made a connection to peer `id` active. It does so again for a peer whose connection
   * it replaced (a second one set up under the same id: "peer replaced"), and reports no leave
   * before: what went over the old connection meanwhile may be lost. So the link to the friend
   * closes and opens again on both pages, through the handshake's hello and proofs, and the
   * game's pages resync. */
  _joined(id) {
    this.handshake.joined(id);
  }

  /** The friend Trystero no longer has a connection to (a replacement that never became active
   * leaves the id gone with no leave reported: messages to it vanish while the page still shows
   * "connected"). Two looks in a row, a second apart: the link closes, and the rejoins find the
   * friend again. */
  _checkBound() {
    const peers = this.bound && this.room ? this.room.getPeers() : null;
    if (!peers || Object.prototype.hasOwnProperty.call(peers, this.bound)) {
      this._gone = 0;
      return;
    }
    this._gone = (this._gone || 0) + 1;
    if (this._gone >= 2) {
      this._gone = 0;
      this._unbind();
    }
  }

  /** Trystero's errors: "could not connect to peer ... after exchanging SDP" means the two pages
   * found each other through the relays but no direct path worked (ICE failed). */
  _joinError(e) {
    const text = String((e && e.error) || '');
    if (/could not connect to peer/.test(text)) this._iceFailed();
  }

  _iceFailed() {
    if (this.left || this.bound || this.iceFailed) return;
    this.iceFailed = true;
    this._changed();
  }

  /** Leave the Trystero room and join it again (new announcements on every relay). */
  async _rejoin() {
    const old = this.room;
    if (!old || this.rejoining) return;
    this.rejoining = true;
    this.room = null;
    old.onPeerJoin = old.onPeerLeave = null;
    try {
      await old.leave();
    } catch (e) {
      // gone already
    }
    this.rejoining = false;
    if (!this.left && !this.room) this._join();
  }

  /** How many of the relays this page is connected to (`open`), and how many of them have
   * refused or dropped a connection since this link started (`failed`). */
  relayState() {
    const total = this.relays.length;
    if (!this.trystero) return { open: 0, total, failed: 0 };
    const sockets = this.trystero.getRelaySockets();
    let open = 0;
    for (const url of this.relays) {
      const ws = sockets[url] || sockets[`${url}/`];
      if (ws && ws.readyState === 1) open++;
      if (ws && ws.readyState === 1) this.silent.delete(url);
      if (ws && ws.readyState === 3) this.failedRelays.add(url);
      // (refused: something answered, the network works -- unless the browser knows it has none)
      if (ws && ws.readyState === 3 && !seenDropped(ws)) this.silent.delete(url);
    }
    return { open, total, failed: this.failedRelays.size };
  }

  /** True when no relay is open and either every relay has refused or dropped a connection
   * (offline, or every relay down: the page need not wait) or `afterMs` have passed. */
  noRelay(afterMs = 5000) {
    const { open, total, failed } = this.relayState();
    return open === 0 && (failed >= total || Date.now() - this.started >= afterMs);
  }

  /** True when a relay was open in this link's life, none is now (`noRelay`), and every one went
   * silent rather than refusing (a relay down refuses at once): this device's network went, most
   * likely (a tunnel, a lift). The link reconnects by itself once it is back. */
  cutOff() {
    return !!this.reachedAt && this.noRelay() && this.relays.every(url => this.silent.has(url));
  }

  /** True when every open relay socket has left a message unanswered for `ms` (none open: false):
   * the network may be gone, though the sockets do not say so yet (alive.js). */
  doubtful(ms = 1500) {
    const sockets = this.trystero ? this.trystero.getRelaySockets() : {};
    const open = this.relays.map(url => sockets[url] || sockets[`${url}/`]).filter(ws => ws && ws.readyState === 1);
    return open.length > 0 && open.every(ws => unanswered(ws) >= ms);
  }

  _checkRelays() {
    if (this.left) return;
    this._checkBound();
    // (friend away: a relay socket the network dropped silently is noticed and replaced, alive.js)
    const sockets = !this.bound && this.trystero ? this.trystero.getRelaySockets() : {};
    for (const url of this.relays) {
      if (!dropIfDead(sockets[url] || sockets[`${url}/`])) continue;
      this.failedRelays.add(url);
      this.silent.add(url);
    }
    const { open } = this.relayState();
    if (open > 0) this.reachedAt = Date.now();
    // (Trystero's socket reached a relay again: the page's other sockets try now)
    if (open > 0 && this._lastOpen === 0) relayBack();
    // A relay back (after a drop, or reached late: the page started during an outage): the room is
    // joined afresh at once, then more often for a while. Two pages back from an outage often met
    // at once, but about one time in three not until the next join (15 s later; seen in the
    // real-time outage bench), and the page that had started during the outage needs its own
    // joins: the other page's alone left it at 16 s. (Not after a quick first open: a new invite
    // waits for a friend who has not got the link yet.)
    const back = open > 0 && this._lastOpen === 0 && Date.now() - this.joinedAt > 2000;
    if (back) this._fastUntil = Date.now() + FAST_REFRESH_FOR_MS;
    if (this.room && !this.bound && this.trystero) {
      const every = Date.now() < (this._fastUntil || 0) ? FAST_REFRESH_MS : REFRESH_MS;
      if (back || (Date.now() - this.joinedAt > every && !trying())) this._rejoin();
    }
    this._lastOpen = open;
    const late = this.noRelay();
    const key = open * 2 + (late ? 1 : 0);
    if (key !== this._lastCount) {
      this._lastCount = key;
      this._changed();
    }
  }

  _sendCtl(obj, target) {
    if (!this.ctl || this.left || !this.room) return;
    this.ctl.send(JSON.stringify(obj), { target }).catch(() => {
      // the peer left meanwhile: onPeerLeave follows
    });
  }

  sendMsg(text) {
    if (!this.bound || !this.room) throw new Error('the other player is not connected');
    this.msg.send(text, { target: this.bound }).catch(() => {});
  }

  _control(data, peerId) {
    let m;
    try {
      m = parseLimited(data, { maxChars: CTL_MAX_CHARS, maxDepth: 4 });
    } catch (e) {
      return; // not ours, or hostile: ignored
    }
    if (!m || typeof m !== 'object' || Array.isArray(m) || typeof m.k !== 'string') return;
    if (this.handshake.control(m, peerId)) return;
    if (peerId === this.bound && this.oncontrol) this.oncontrol(m, peerId);
  }

  _taken() {
    this._set('taken', TAKEN_MESSAGE);
    const ch = this.channelRef;
    this.leave();
    if (ch && ch.onclose) ch.onclose('taken');
  }

  _bind(peerId) {
    if (this.bound === peerId) return;
    if (this.bound) this._unbind();
    this.bound = peerId;
    this.iceFailed = false;
    this._set('open');
    const ch = this.channelRef;
    if (ch && !ch.open) {
      ch.open = true;
      if (ch.onopen) ch.onopen();
      this._flush();
    }
  }

  _unbind() {
    this.bound = null;
    this.queue = [];
    const ch = this.channelRef;
    this.channelRef = null;
    if (!this.left) this._set('connecting');
    if (ch && ch.open) {
      ch.open = false;
      if (ch.onclose) ch.onclose('lost');
    }
  }

  _message(data, peerId) {
    if (peerId !== this.bound) return;
    try {
      checkText(data);
    } catch (e) {
      if (!(e instanceof MessageError)) throw e;
      console.warn(`Hidden Chess: a message from the other device was refused: ${e.message}`);
      return;
    }
    const ch = this.channelRef;
    if (ch && ch.open && ch.onmessage) ch.onmessage(data);
    else if (this.queue.length < MAX_QUEUE) this.queue.push(data);
  }

  _flush() {
    const ch = this.channelRef;
    while (this.queue.length && ch && ch.open && this.channelRef === ch) {
      const data = this.queue.shift();
      if (ch.onmessage) ch.onmessage(data);
    }
  }

  /** A new channel over this room (the previous one is detached). */
  channel() {
    if (this.channelRef) this.channelRef.close();
    const ch = new Channel(this);
    this.channelRef = ch;
    if (this.bound) {
      // Opens after the caller has wired its handlers (never inside the caller's own call), then
      // delivers what arrived meanwhile.
      setTimeout(() => {
        if (this.channelRef !== ch || !this.bound || ch.open) return;
        ch.open = true;
        if (ch.onopen) ch.onopen();
        this._flush();
      }, 0);
    }
    return ch;
  }

  /** Send a control message to the other player (quick play's invite). */
  control(obj) {
    if (this.bound) this._sendCtl(obj, this.bound);
  }

  leave() {
    if (this.left) return;
    this.left = true;
    clearInterval(this._poll);
    LIVE.delete(this);
    this._offBack();
    removeEventListener('online', this._wake);
    document.removeEventListener('visibilitychange', this._wake);
    this.channelRef = null;
    this.bound = null;
    if (this.room) this.room.leave().catch(() => {});
    if (this.state !== 'taken' && this.state !== 'failed') this._set('left');
  }
}
