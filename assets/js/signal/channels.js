// Hidden Chess -- one-click invites (assets/signal.js): the PeerJS client (loaded on demand) and
// the host / guest channels over it.

import {
  TAKEN_MESSAGE, describe, iceServers, isPeerId, peerIdFor, randomHex, rememberToken, requireSettings, token,
  validateSettings,
} from './settings.js';

const WELCOME = JSON.stringify({ hcsignal: "welcome" });
const TAKEN = JSON.stringify({ hcsignal: "taken", message: TAKEN_MESSAGE });
const OPEN_TIMEOUT_MS = 20000;      // a dial that has not opened by then is retried
const WELCOME_TIMEOUT_MS = 10000;   // an open channel without the host's verdict is retried
const REFUSE_CLOSE_MS = 1500;       // the refusal is flushed before the host closes
const RETRY_MS = [1000, 2000, 3000, 5000, 8000, 10000];

export const LIBRARY_URL = new URL('../../vendor/peerjs/peerjs.min.js', import.meta.url).href;

// ------------------------------------------------------------------ the PeerJS client

const library = { promise: null }; // the PeerJS bundle being loaded

/** Load the vendored PeerJS bundle once; resolves to its Peer class. */
export function loadLibrary() {
  if (window.peerjs && window.peerjs.Peer) return Promise.resolve(window.peerjs.Peer);
  if (!library.promise) {
    library.promise = new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = LIBRARY_URL;
      tag.async = true;
      tag.onload = () => (window.peerjs && window.peerjs.Peer
        ? resolve(window.peerjs.Peer)
        : reject(new Error("assets/vendor/peerjs/peerjs.min.js did not define window.peerjs")));
      tag.onerror = () => {
        library.promise = null;
        reject(new Error("could not load the PeerJS client (assets/vendor/peerjs/peerjs.min.js): " +
                         "run `python3 build.py build`"));
      };
      document.head.appendChild(tag);
    });
  }
  return library.promise;
}

function peerOptions(settings) {
  const options = {
    host: settings.host,
    port: settings.port,
    path: settings.path,
    secure: settings.secure,
    debug: 0,
    config: { iceServers: iceServers() },
  };
  if (settings.key) options.key = settings.key;
  return options;
}

/** A clear sentence for a PeerJS error (err.type as documented by PeerJS). */
function explain(err, settings) {
  const where = describe(settings);
  switch (err && err.type) {
    case "unavailable-id":
      return { kind: "id-taken", message: "This game is already open on the signaling server " +
               "(another tab, or the previous page is still registered); retrying." };
    case "peer-unavailable":
      return { kind: "unreachable", message: "Your friend's page is not connected to the " +
               "signaling server (yet): keep both pages open; retrying." };
    case "invalid-key":
      return { kind: "settings", message: `The signaling server at ${where} refused the key.` };
    case "invalid-id":
      return { kind: "settings", message: "The game id is not a valid PeerJS id." };
    case "ssl-unavailable":
      return { kind: "settings", message: "This page needs a secure (wss) signaling server." };
    case "browser-incompatible":
      return { kind: "settings", message: "This browser does not support WebRTC data channels." };
    case "socket-error": case "socket-closed": case "network": case "server-error":
    case "disconnected":
      return { kind: "server", message: `Cannot reach the signaling server at ${where}` +
               (location.protocol === "https:" && !settings.secure
                 ? " (this page is https: the server must be secure, wss)" : "") +
               "; retrying." };
    default:
      return { kind: "server", message: `Signaling problem (${(err && err.type) || "unknown"}): ` +
               `${(err && err.message) || err}` };
  }
}

// ------------------------------------------------------------------ channels

/** The part shared by both sides: handlers, state, retry timer. */
class Channel {
  constructor(role, peerId, settings) {
    this.role = role;
    this.peerId = peerId;
    this.settings = settings;
    this.open = false;
    this.closed = false;       // closed for good (close() or a refusal)
    this.status = "";
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onerror = null;
    this.onstatus = null;
    this._peer = null;
    this._conn = null;
    this._timers = new Set();
    this._retries = 0;
  }

  send(text) {
    if (typeof text !== "string") throw new TypeError("HCSignal channels carry strings only");
    if (!this.open || !this._conn) throw new Error("the connection to your friend is not open");
    this._conn.send(text);
  }

  /** Close for good: the connection, the registration and every retry. */
  close() {
    if (this.closed) return;
    this.closed = true;
    this._clearTimers();
    const wasOpen = this.open;
    this.open = false;
    const conn = this._conn;
    this._conn = null;
    if (conn) { try { conn.close(); } catch (_) { /* already closed */ } }
    if (this._peer) { try { this._peer.destroy(); } catch (_) { /* ignore */ } this._peer = null; }
    if (wasOpen) this._emit("onclose", "closed");
  }

  _emit(name, ...args) {
    const handler = this[name];
    if (typeof handler === "function") {
      try { handler.apply(this, args); } catch (error) { console.error(error); }
    }
  }

  _setStatus(text) {
    this.status = text;
    this._emit("onstatus", text);
  }

  _error(error) { this._emit("onerror", error); }

  _later(fn, ms) {
    const id = setTimeout(() => { this._timers.delete(id); if (!this.closed) fn(); }, ms);
    this._timers.add(id);
    return id;
  }

  _clearTimers() {
    for (const id of this._timers) clearTimeout(id);
    this._timers.clear();
  }

  _retryDelay() {
    const ms = RETRY_MS[Math.min(this._retries, RETRY_MS.length - 1)];
    this._retries += 1;
    return ms;
  }

  /** Watch a DataConnection's RTCPeerConnection: "failed"/"closed" close the channel. */
  _watch(conn, onDead) {
    const pc = conn.peerConnection;
    if (!pc || !pc.addEventListener) return;
    pc.addEventListener("connectionstatechange", () => {
      if (pc.connectionState === "failed" || pc.connectionState === "closed") onDead();
    });
  }

  /** Make a PeerJS Peer (library loaded first); reports library/settings errors. */
  async _newPeer(id) {
    let Peer;
    try {
      Peer = await loadLibrary();
    } catch (error) {
      this._error({ kind: "library", message: error.message });
      this.close();
      return null;
    }
    if (this.closed) return null;
    return new Peer(id, peerOptions(this.settings));
  }
}

/** Host side: registers the game's peer id and accepts exactly one friend. */
class HostChannel extends Channel {
  constructor(gameId, settings) {
    super("host", peerIdFor(gameId), settings);
    this.gameId = gameId;
    this._start();
  }

  /** Re-register now (e.g. after the signaling server came back). */
  reconnect() {
    if (this.closed) return;
    this._clearTimers();
    this._retries = 0;
    if (this._peer && !this._peer.destroyed && this._peer.disconnected) {
      this._peer.reconnect();
    } else if (!this._peer || this._peer.destroyed) {
      this._start();
    }
  }

  async _start() {
    this._setStatus(`Registering the game with the signaling server ${describe(this.settings)}...`);
    const peer = await this._newPeer(this.peerId);
    if (!peer) return;
    this._peer = peer;
    peer.on("open", () => {
      this._retries = 0;
      this._setStatus(this.open ? "Connected to your friend."
                                : "Waiting for your friend to open the invite link...");
    });
    peer.on("connection", (conn) => this._incoming(conn));
    peer.on("disconnected", () => {
      // Lost the server but not the friend: keep the connection, re-register later.
      if (this.closed || peer !== this._peer) return;
      this._later(() => { if (peer === this._peer && peer.disconnected && !peer.destroyed) peer.reconnect(); },
                  this._retryDelay());
    });
    peer.on("error", (err) => {
      if (this.closed || peer !== this._peer) return;
      if (err.type === "peer-unavailable") return;  // not ours to dial
      const problem = explain(err, this.settings);
      this._setStatus(problem.message);
      this._error(problem);
      if (problem.kind === "settings") return;
      if (peer.destroyed) {
        this._peer = null;
        this._later(() => this._start(), this._retryDelay());
      }
    });
  }

  _incoming(conn) {
    const meta = conn.metadata || {};
    const theirs = typeof meta.token === "string" && /^[0-9a-f]{32}$/.test(meta.token)
      ? meta.token : null;
    const slot = "host:" + this.peerId;
    let accepted = token(slot, false);
    if (theirs && accepted === null) accepted = rememberToken(slot, theirs);
    if (!theirs || theirs !== accepted) {
      this._refuse(conn);
      return;
    }
    conn.on("open", () => {
      if (this.closed) { conn.close(); return; }
      const old = this._conn;
      this._conn = conn;
      if (old && old !== conn) { try { old.close(); } catch (_) { /* gone */ } }
      conn.send(WELCOME);
      this.open = true;
      this._setStatus("Connected to your friend.");
      this._emit("onopen");
    });
    conn.on("data", (data) => {
      if (conn === this._conn && typeof data === "string") this._emit("onmessage", data);
    });
    const dead = () => {
      if (conn !== this._conn) return;
      this._conn = null;
      this.open = false;
      try { conn.close(); } catch (_) { /* already */ }
      this._setStatus("Your friend disconnected; waiting for them to come back...");
      this._emit("onclose", "disconnected");
    };
    conn.on("close", dead);
    conn.on("error", () => { /* a close follows */ });
    this._watch(conn, dead);
  }

  _refuse(conn) {
    conn.on("open", () => {
      try { conn.send(TAKEN); } catch (_) { /* closing anyway */ }
      setTimeout(() => { try { conn.close(); } catch (_) { /* gone */ } }, REFUSE_CLOSE_MS);
    });
    conn.on("error", () => { /* refused anyway */ });
  }
}

/** Guest side: dials the host's peer id until it is welcomed (or refused). */
class GuestChannel extends Channel {
  constructor(peerId, settings) {
    if (!isPeerId(peerId)) throw new Error(`"${peerId}" is not a Hidden Chess invite id`);
    super("guest", peerId, settings);
    this.token = token("guest:" + peerId, true);
    this._dialTimer = null;
    this._start();
  }

  /** Dial again now (after a drop the channel also does this by itself). */
  reconnect() {
    if (this.closed) return;
    this._clearTimers();
    this._retries = 0;
    this._dropConn();
    if (this._peer && !this._peer.destroyed && !this._peer.disconnected && this._peer.open) this._dial();
    else this._restartPeer(0);
  }

  async _start() {
    this._setStatus(`Connecting to the signaling server ${describe(this.settings)}...`);
    const peer = await this._newPeer("hc-g" + randomHex(12));
    if (!peer) return;
    this._peer = peer;
    peer.on("open", () => { if (peer === this._peer) this._dial(); });
    peer.on("disconnected", () => {
      if (this.closed || peer !== this._peer) return;
      // Connected friends stay connected; a later redial needs the server again.
      this._later(() => {
        if (peer === this._peer && peer.disconnected && !peer.destroyed) peer.reconnect();
      }, this._retryDelay());
    });
    peer.on("error", (err) => {
      if (this.closed || peer !== this._peer) return;
      const problem = explain(err, this.settings);
      if (problem.kind === "settings") {
        this._setStatus(problem.message);
        this._error(problem);
        return;
      }
      if (err.type === "peer-unavailable") {
        this._dropConn();
        this._setStatus(problem.message);
        this._error(problem);
        this._later(() => this._dial(), this._retryDelay());
        return;
      }
      this._setStatus(problem.message);
      this._error(problem);
      if (peer.destroyed) this._restartPeer(this._retryDelay());
    });
  }

  _restartPeer(delay) {
    if (this._peer) { try { this._peer.destroy(); } catch (_) { /* ignore */ } }
    this._peer = null;
    this._later(() => this._start(), delay);
  }

  _dropConn() {
    const conn = this._conn;
    this._conn = null;
    if (conn) { try { conn.close(); } catch (_) { /* gone */ } }
  }

  _dial() {
    if (this.closed || this._conn) return;
    const peer = this._peer;
    if (!peer || peer.destroyed) { this._restartPeer(0); return; }
    if (peer.disconnected || !peer.open) return;  // the "open"/reconnect path dials again
    this._setStatus("Calling your friend's page...");
    const conn = peer.connect(this.peerId, {
      reliable: true, serialization: "raw", metadata: { hc: 1, token: this.token },
    });
    if (!conn) { this._later(() => this._dial(), this._retryDelay()); return; }
    this._conn = conn;
    let welcomed = false;
    const openTimer = this._later(() => {
      if (conn === this._conn && !welcomed) {
        this._dropConn();
        this._setStatus("No direct connection to your friend yet (firewall?); retrying...");
        this._dial();
      }
    }, OPEN_TIMEOUT_MS);
    conn.on("open", () => {
      if (conn !== this._conn) return;
      this._later(() => {
        if (conn === this._conn && !welcomed) { this._dropConn(); this._dial(); }
      }, WELCOME_TIMEOUT_MS);
    });
    conn.on("data", (data) => {
      if (conn !== this._conn || typeof data !== "string") return;
      if (!welcomed) {
        let verdict = null;
        try { verdict = JSON.parse(data).hcsignal; } catch (_) { /* not a verdict */ }
        if (verdict === "welcome") {
          welcomed = true;
          clearTimeout(openTimer);
          this._retries = 0;
          this.open = true;
          this._setStatus("Connected to your friend.");
          this._emit("onopen");
        } else if (verdict === "taken") {
          this._setStatus(TAKEN_MESSAGE);
          this._error({ kind: "taken", message: TAKEN_MESSAGE });
          this.closed = true;
          this._clearTimers();
          this._conn = null;
          try { conn.close(); } catch (_) { /* gone */ }
          if (this._peer) { try { this._peer.destroy(); } catch (_) { /* ignore */ } this._peer = null; }
          this._emit("onclose", "taken");
        }
        return;  // nothing passes before the verdict
      }
      this._emit("onmessage", data);
    });
    const dead = () => {
      if (conn !== this._conn) return;
      this._conn = null;
      try { conn.close(); } catch (_) { /* already */ }
      if (welcomed) {
        this.open = false;
        this._setStatus("The connection to your friend dropped; reconnecting...");
        this._emit("onclose", "disconnected");
      }
      this._later(() => this._dial(), this._retryDelay());
    };
    conn.on("close", dead);
    conn.on("error", () => { /* a close (or the open timeout) follows */ });
    this._watch(conn, dead);
  }
}

export function host(gameId, settings) {
  return new HostChannel(gameId, settings ? validateSettings(settings) : requireSettings());
}

/** Dial the host's peer id (from the invite link): a guest channel. */
export function join(peerId, settings) {
  return new GuestChannel(peerId, settings ? validateSettings(settings) : requireSettings());
}

/** Try the server: resolves "ok" or rejects with a clear Error (for the settings form). */
export function probe(settings, timeoutMs = 8000) {
  let checked;
  try { checked = validateSettings(settings); } catch (error) { return Promise.reject(error); }
  return loadLibrary().then((Peer) => new Promise((resolve, reject) => {
    const peer = new Peer("hc-probe" + randomHex(8), peerOptions(checked));
    const done = (error) => {
      clearTimeout(timer);
      try { peer.destroy(); } catch (_) { /* ignore */ }
      if (error) reject(error); else resolve("ok");
    };
    const timer = setTimeout(() => done(new Error(`no answer from ${describe(checked)}`)), timeoutMs);
    peer.on("open", () => done(null));
    peer.on("error", (err) => done(new Error(explain(err, checked).message.replace(/; retrying\.$/, "."))));
  }));
}
