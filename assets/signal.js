/* Hidden Chess: optional one-click invites through a PeerJS PeerServer (issue #7).
 *
 * Without a signaling server, friends connect by exchanging two codes (assets/peer.js, the
 * default and the fallback).  When a PeerServer is configured (see README: `python3 build.py
 * signal` runs one), the invite link alone connects:
 *
 *   host:  const ch = HCSignal.host(gameId)   registers the peer id HCSignal.peerIdFor(gameId)
 *          and waits; link = page + "#join=<invite>.<offer>&" + HCSignal.linkParams(ch.peerId)
 *          ("peer=<id>&sig=<the server>": the friend's page needs no setting of its own; the
 *          manual offer stays in the link as the fallback)
 *   guest: const j = HCSignal.fromHash(location.hash)   null, or {peerId, settings, error}
 *          const ch = HCSignal.join(j.peerId, j.settings)   dials the host's id
 *
 * Both return a *channel*: an object with send(text), close(), and the handlers
 *   onopen()            the data channel is open (host: the accepted friend is connected)
 *   onmessage(text)     a message from the other side (strings only, in order)
 *   onclose(reason)     the channel closed (it reconnects by itself unless it was refused)
 *   onerror(error)      error = {kind, message}; kind "taken" (this game already has its
 *                       friend: final), "settings", "library" (final) or "server", "unreachable",
 *                       "id-taken" (retried by itself)
 *   onstatus(text)      a human-readable progress line ("waiting for your friend", ...)
 * plus .open (bool), .role ("host"|"guest"), .peerId, .settings, .reconnect().
 * They carry only strings: the chess protocol (py/hiddenchess/peer) and the heartbeat
 * (assets/peer.js) run on top, exactly as over the manual channel.
 *
 * Only one friend can take an invite.  The guest sends a random token (kept in localStorage
 * per game) in the connection metadata; the host accepts the first token it sees, remembers it
 * (localStorage, so a reloaded host still knows it), welcomes that friend on every reconnect
 * and answers any other connection with {"hcsignal":"taken"} and closes it.  The guest's
 * channel opens only after the host's {"hcsignal":"welcome"}; a refusal ends in
 * onerror({kind: "taken", message: HCSignal.TAKEN_MESSAGE}) and onclose("taken").
 *
 * Settings (the host's; a guest takes the server from the link): localStorage
 * "hiddenchess:signal" = {"host","port","path","secure"} (JSON); absent = one-click mode off.
 * ICE servers: the same "hiddenchess:ice" setting as assets/peer.js.  With HCPeer, a channel is
 * attached as a transport: new HCPeer.Peer({gameId}).attach(ch); HCPeer's onclose then ends
 * the channel too (close()), so a reconnect after that makes a new channel and a new Peer.
 * The PeerJS client (assets/vendor/peerjs/peerjs.min.js, vendored by build.py) is loaded only
 * when a channel is first created.  HCSignal.mountSettings(element) draws a small settings form.
 */
(function () {
  "use strict";

  const SETTINGS_KEY = "hiddenchess:signal";
  const TOKENS_KEY = "hiddenchess:signal:tokens";
  const ICE_KEY = "hiddenchess:ice";
  const DEFAULT_ICE = [{ urls: "stun:stun.l.google.com:19302" }];
  const MAX_REMEMBERED = 40;          // tokens kept (oldest dropped first)
  const TAKEN_MESSAGE = "This game has already been taken: another friend joined it first.";
  const WELCOME = JSON.stringify({ hcsignal: "welcome" });
  const TAKEN = JSON.stringify({ hcsignal: "taken", message: TAKEN_MESSAGE });
  const OPEN_TIMEOUT_MS = 20000;      // a dial that has not opened by then is retried
  const WELCOME_TIMEOUT_MS = 10000;   // an open channel without the host's verdict is retried
  const REFUSE_CLOSE_MS = 1500;       // the refusal is flushed before the host closes
  const RETRY_MS = [1000, 2000, 3000, 5000, 8000, 10000];

  const script = document.currentScript;
  const LIBRARY_URL = new URL("vendor/peerjs/peerjs.min.js",
                              script && script.src ? script.src : location.href).href;

  // ------------------------------------------------------------------ settings

  /** Normalised settings, or throws Error("...") saying which field is wrong. */
  function validateSettings(raw) {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      throw new Error("the signaling settings must be an object {host, port, path, secure}");
    }
    let host = String(raw.host == null ? "" : raw.host).trim();
    if (host === "") host = location.hostname;
    if (/^[0-9a-fA-F:]+$/.test(host) && host.includes(":")) host = "[" + host + "]"; // bare IPv6
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$/.test(host)) {
      throw new Error(`the signaling server host "${host}" is not a host name or address`);
    }
    const port = Number(raw.port == null || raw.port === "" ? 9000 : raw.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`the signaling server port must be a whole number from 1 to 65535, not "${raw.port}"`);
    }
    let path = String(raw.path == null || raw.path === "" ? "/" : raw.path).trim();
    if (!path.startsWith("/")) path = "/" + path;
    if (!/^\/[A-Za-z0-9._~\/-]*$/.test(path)) {
      throw new Error(`the signaling server path "${path}" may only hold letters, digits and . _ ~ / -`);
    }
    const secure = raw.secure === true || raw.secure === "true" || raw.secure === "on";
    const out = { host, port, path, secure };
    if (raw.key != null && raw.key !== "" && raw.key !== "peerjs") {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(String(raw.key))) {
        throw new Error("the signaling server key may only hold letters, digits, _ and -");
      }
      out.key = String(raw.key);
    }
    return out;
  }

  /** The configured server, or null when one-click mode is off (or the setting is broken). */
  function getSettings() {
    let text = null;
    try { text = localStorage.getItem(SETTINGS_KEY); } catch (_) { return null; }
    if (!text) return null;
    try { return validateSettings(JSON.parse(text)); } catch (_) { return null; }
  }

  /** Save (validated; throws with a clear message) or, with null, switch one-click mode off. */
  function setSettings(raw) {
    if (raw == null) {
      localStorage.removeItem(SETTINGS_KEY);
      return null;
    }
    const settings = validateSettings(raw);
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
    return settings;
  }

  function enabled() { return getSettings() !== null; }

  /** "ws://host:port/path" for messages. */
  function describe(settings) {
    return `${settings.secure ? "wss" : "ws"}://${settings.host}:${settings.port}${settings.path}`;
  }

  function iceServers() {
    if (window.HCPeer && typeof window.HCPeer.iceServers === "function") {
      try { return window.HCPeer.iceServers(); } catch (_) { /* fall through */ }
    }
    try {
      const text = localStorage.getItem(ICE_KEY);
      if (text) {
        const list = JSON.parse(text);
        if (Array.isArray(list)) return list;
      }
    } catch (_) { /* default */ }
    return DEFAULT_ICE;
  }

  // ------------------------------------------------------------------ ids, links, tokens

  /** The PeerServer id a host registers for a game (one id per game id, never shared):
   * "hc-<game id>" when the id is letters and digits, else "hc-x-<hex of the id>" (PeerJS ids
   * may not hold "_" or "-" freely). Game ids are [A-Za-z0-9_-]{6,64} (py/hiddenchess/peer). */
  function peerIdFor(gameId) {
    const id = String(gameId == null ? "" : gameId);
    if (!/^[A-Za-z0-9_-]{6,64}$/.test(id)) {
      throw new Error(`cannot derive a peer id from the game id "${id}"`);
    }
    if (/^[A-Za-z0-9]+$/.test(id)) return "hc-" + id;
    return "hc-x-" + Array.from(id, (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
  }

  function isPeerId(id) {
    return typeof id === "string" && /^hc-([A-Za-z0-9]{6,64}|x-[0-9a-f]{12,128})$/.test(id);
  }

  function hashParam(hash, name) {
    let text = String(hash == null ? location.hash : hash);
    if (text.includes("#")) text = text.slice(text.indexOf("#") + 1);
    for (const part of text.split("&")) {
      const eq = part.indexOf("=");
      if (eq > 0 && part.slice(0, eq) === name) {
        try { return decodeURIComponent(part.slice(eq + 1)); } catch (_) { return null; }
      }
    }
    return null;
  }

  /** The "peer=" parameter of a "#join=...&peer=..." fragment or link (or null). */
  function peerFromHash(hash) {
    const id = hashParam(hash, "peer");
    return isPeerId(id) ? id : null;
  }

  function b64u(text) {
    const bytes = new TextEncoder().encode(text);
    let bin = "";
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function unb64u(text) {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  }

  /**
   * What the host appends to its invite link's fragment: "peer=<id>&sig=<server>", the server
   * being base64url(JSON [host, port, path, secure 0/1]), so that the friend's page needs no
   * setting of its own: "#join=<invite>.<offer>&" + HCSignal.linkParams(peerId).
   */
  function linkParams(peerId, settings) {
    if (!isPeerId(peerId)) throw new Error(`"${peerId}" is not a Hidden Chess invite id`);
    const s = settings ? validateSettings(settings) : requireSettings();
    return `peer=${peerId}&sig=${b64u(JSON.stringify([s.host, s.port, s.path, s.secure ? 1 : 0]))}`;
  }

  /**
   * One-click data of an invite link or fragment: null when it has no valid "peer=", else
   * {peerId, settings, error}: settings = the link's server ("sig="), or this page's own
   * setting when the link names none; null (with error = a sentence) when neither is usable.
   */
  function fromHash(hash) {
    const peerId = peerFromHash(hash);
    if (!peerId) return null;
    const sig = hashParam(hash, "sig");
    if (sig) {
      try {
        const [host, port, path, secure] = JSON.parse(unb64u(sig));
        return { peerId, settings: validateSettings({ host, port, path, secure: secure === 1 }), error: null };
      } catch (error) {
        return { peerId, settings: null,
                 error: "The link's signaling server is damaged: " + (error.message || error) };
      }
    }
    const own = getSettings();
    return { peerId, settings: own,
             error: own ? null : "This link is for one-click invites, but it names no signaling server " +
                                 "and none is set on this page." };
  }

  function randomHex(bytes) {
    const data = new Uint8Array(bytes);
    crypto.getRandomValues(data);
    return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function loadTokens() {
    try {
      const value = JSON.parse(localStorage.getItem(TOKENS_KEY) || "{}");
      return value && typeof value === "object" && !Array.isArray(value) ? value : {};
    } catch (_) { return {}; }
  }

  function token(slot, create) {
    const all = loadTokens();
    if (typeof all[slot] === "string") return all[slot];
    if (!create) return null;
    return rememberToken(slot, randomHex(16));
  }

  function rememberToken(slot, value) {
    const all = loadTokens();
    delete all[slot];
    all[slot] = value;
    const keys = Object.keys(all);
    for (const key of keys.slice(0, Math.max(0, keys.length - MAX_REMEMBERED))) delete all[key];
    try { localStorage.setItem(TOKENS_KEY, JSON.stringify(all)); } catch (_) { /* full: in memory */ }
    return value;
  }

  /** Forget the tokens of a finished game (the host's accepted friend, the guest's own). */
  function forget(peerId) {
    const all = loadTokens();
    delete all["host:" + peerId];
    delete all["guest:" + peerId];
    try { localStorage.setItem(TOKENS_KEY, JSON.stringify(all)); } catch (_) { /* ignore */ }
  }

  // ------------------------------------------------------------------ the PeerJS client

  let libraryPromise = null;

  /** Load the vendored PeerJS bundle once; resolves to its Peer class. */
  function loadLibrary() {
    if (window.peerjs && window.peerjs.Peer) return Promise.resolve(window.peerjs.Peer);
    if (!libraryPromise) {
      libraryPromise = new Promise((resolve, reject) => {
        const tag = document.createElement("script");
        tag.src = LIBRARY_URL;
        tag.async = true;
        tag.onload = () => (window.peerjs && window.peerjs.Peer
          ? resolve(window.peerjs.Peer)
          : reject(new Error("assets/vendor/peerjs/peerjs.min.js did not define window.peerjs")));
        tag.onerror = () => {
          libraryPromise = null;
          reject(new Error("could not load the PeerJS client (assets/vendor/peerjs/peerjs.min.js): " +
                           "run `python3 build.py build`"));
        };
        document.head.appendChild(tag);
      });
    }
    return libraryPromise;
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

  function requireSettings() {
    const settings = getSettings();
    if (!settings) throw new Error("no signaling server is configured (one-click invites are off)");
    return settings;
  }

  /** Register the game's peer id and wait for the friend: a host channel. */
  function host(gameId, settings) {
    return new HostChannel(gameId, settings ? validateSettings(settings) : requireSettings());
  }

  /** Dial the host's peer id (from the invite link): a guest channel. */
  function join(peerId, settings) {
    return new GuestChannel(peerId, settings ? validateSettings(settings) : requireSettings());
  }

  /** Try the server: resolves "ok" or rejects with a clear Error (for the settings form). */
  function probe(settings, timeoutMs = 8000) {
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

  // ------------------------------------------------------------------ settings form

  const STYLE = `
    .signal-settings { margin-top: 10px; font-size: 0.9rem; }
    .signal-settings summary { cursor: pointer; color: var(--text-dim, #aaa); }
    .signal-settings[open] summary { margin-bottom: 6px; }
    .signal-help { margin: 4px 0 8px; color: var(--text-dim, #aaa); font-size: 0.85rem; }
    .signal-settings .signal-fields { margin: 8px 0; align-items: flex-end; }
    .signal-settings .signal-fields input[type="number"] { width: 90px; }
    .signal-settings .signal-fields input[type="checkbox"] { width: 18px; height: 18px; padding: 0; }
    .signal-settings .signal-fields label.toggle { flex-direction: row; align-self: center;
      color: var(--text, inherit); }
    .signal-actions { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
    .signal-status { font-size: 0.85rem; color: var(--text-dim, #aaa); }
    .signal-status.is-error { color: #ff8a80; }`;

  /** Draw the "One-click invites" settings form into `element` (idempotent). */
  function mountSettings(element) {
    if (!element || element.dataset.hcSignal === "1") return;
    element.dataset.hcSignal = "1";
    if (!document.getElementById("hc-signal-style")) {
      const style = document.createElement("style");
      style.id = "hc-signal-style";
      style.textContent = STYLE;
      document.head.appendChild(style);
    }
    const current = getSettings();
    element.innerHTML = `
      <details class="signal-settings"${current ? " open" : ""}>
        <summary>One-click invites (signaling server)</summary>
        <p class="signal-help">Optional. With a PeerJS server (e.g. <code>python3 build.py signal</code>)
          the invite link alone connects; without one, you exchange two codes.</p>
        <label class="toggle"><input type="checkbox" data-field="on"> <span>Use a signaling server</span></label>
        <div class="signal-fields custom-clock">
          <label>Host <input type="text" data-field="host" autocomplete="off" spellcheck="false"></label>
          <label>Port <input type="number" data-field="port" min="1" max="65535" inputmode="numeric"></label>
          <label>Path <input type="text" data-field="path" autocomplete="off" spellcheck="false"></label>
          <label class="toggle"><input type="checkbox" data-field="secure"> <span>Secure (wss)</span></label>
        </div>
        <div class="signal-actions">
          <button type="button" class="btn" data-action="save">Save</button>
          <button type="button" class="btn" data-action="test">Test</button>
          <span class="signal-status" role="status" aria-live="polite"></span>
        </div>
      </details>`;
    const field = (name) => element.querySelector(`[data-field="${name}"]`);
    const status = element.querySelector(".signal-status");
    const shown = current || { host: location.hostname || "127.0.0.1", port: 9000, path: "/", secure: false };
    field("on").checked = !!current;
    field("host").value = shown.host;
    field("port").value = String(shown.port);
    field("path").value = shown.path;
    field("secure").checked = !!shown.secure;
    // Enter in a field must not submit the surrounding form (it would start a game).
    element.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.target.tagName === "INPUT") event.preventDefault();
    });
    const read = () => ({ host: field("host").value, port: field("port").value,
                          path: field("path").value, secure: field("secure").checked });
    const say = (text, bad) => {
      status.textContent = text.charAt(0).toUpperCase() + text.slice(1); status.classList.toggle("is-error", !!bad); };
    element.querySelector('[data-action="save"]').addEventListener("click", () => {
      try {
        if (field("on").checked) {
          const saved = setSettings(read());
          say(`Saved: one-click invites through ${describe(saved)}.`, false);
        } else {
          setSettings(null);
          say("Saved: one-click invites are off (invites use codes).", false);
        }
      } catch (error) {
        say(error.message, true);
      }
    });
    element.querySelector('[data-action="test"]').addEventListener("click", () => {
      say("Testing...", false);
      probe(read()).then(() => say("The signaling server answers.", false),
                         (error) => say(error.message, true));
    });
  }

  // The page's slot (index.html, in the new-game dialog's friend options), if there is one.
  mountSettings(document.getElementById("signal-settings"));

  window.HCSignal = Object.freeze({
    SETTINGS_KEY, TOKENS_KEY, TAKEN_MESSAGE, LIBRARY_URL,
    validateSettings, getSettings, setSettings, enabled, describe,
    peerIdFor, peerFromHash, linkParams, fromHash, forget, loadLibrary, host, join, probe, mountSettings,
  });
})();
