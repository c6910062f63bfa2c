// Hidden Chess -- one-click invites (assets/signal.js): the signaling server setting, the peer
// ids of games, the one-click part of invite links, and the tokens that let exactly one friend
// take an invite.

export const SETTINGS_KEY = "hiddenchess:signal";
export const TOKENS_KEY = "hiddenchess:signal:tokens";
const ICE_KEY = "hiddenchess:ice";
const DEFAULT_ICE = [{ urls: "stun:stun.l.google.com:19302" }];
const MAX_REMEMBERED = 40;          // tokens kept (oldest dropped first)
export const TAKEN_MESSAGE = "This game has already been taken: another friend joined it first.";

// ------------------------------------------------------------------ settings

/** Normalised settings, or throws Error("...") saying which field is wrong. */
export function validateSettings(raw) {
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
export function getSettings() {
  let text = null;
  try { text = localStorage.getItem(SETTINGS_KEY); } catch (_) { return null; }
  if (!text) return null;
  try { return validateSettings(JSON.parse(text)); } catch (_) { return null; }
}

/** Save (validated; throws with a clear message) or, with null, switch one-click mode off. */
export function setSettings(raw) {
  if (raw == null) {
    localStorage.removeItem(SETTINGS_KEY);
    return null;
  }
  const settings = validateSettings(raw);
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
  return settings;
}

export function enabled() { return getSettings() !== null; }

/** "ws://host:port/path" for messages. */
export function describe(settings) {
  return `${settings.secure ? "wss" : "ws"}://${settings.host}:${settings.port}${settings.path}`;
}

export function iceServers() {
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
export function peerIdFor(gameId) {
  const id = String(gameId == null ? "" : gameId);
  if (!/^[A-Za-z0-9_-]{6,64}$/.test(id)) {
    throw new Error(`cannot derive a peer id from the game id "${id}"`);
  }
  if (/^[A-Za-z0-9]+$/.test(id)) return "hc-" + id;
  return "hc-x-" + Array.from(id, (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
}

export function isPeerId(id) {
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
export function peerFromHash(hash) {
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
export function linkParams(peerId, settings) {
  if (!isPeerId(peerId)) throw new Error(`"${peerId}" is not a Hidden Chess invite id`);
  const s = settings ? validateSettings(settings) : requireSettings();
  return `peer=${peerId}&sig=${b64u(JSON.stringify([s.host, s.port, s.path, s.secure ? 1 : 0]))}`;
}

/**
 * One-click data of an invite link or fragment: null when it has no valid "peer=", else
 * {peerId, settings, error}: settings = the link's server ("sig="), or this page's own
 * setting when the link names none; null (with error = a sentence) when neither is usable.
 */
export function fromHash(hash) {
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

export function randomHex(bytes) {
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

export function token(slot, create) {
  const all = loadTokens();
  if (typeof all[slot] === "string") return all[slot];
  if (!create) return null;
  return rememberToken(slot, randomHex(16));
}

export function rememberToken(slot, value) {
  const all = loadTokens();
  delete all[slot];
  all[slot] = value;
  const keys = Object.keys(all);
  for (const key of keys.slice(0, Math.max(0, keys.length - MAX_REMEMBERED))) delete all[key];
  try { localStorage.setItem(TOKENS_KEY, JSON.stringify(all)); } catch (_) { /* full: in memory */ }
  return value;
}

/** Forget the tokens of a finished game (the host's accepted friend, the guest's own). */
export function forget(peerId) {
  const all = loadTokens();
  delete all["host:" + peerId];
  delete all["guest:" + peerId];
  try { localStorage.setItem(TOKENS_KEY, JSON.stringify(all)); } catch (_) { /* ignore */ }
}

export function requireSettings() {
  const settings = getSettings();
  if (!settings) throw new Error("no signaling server is configured (one-click invites are off)");
  return settings;
}

