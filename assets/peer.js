// Hidden Chess -- peer.js: the thin WebRTC adapter of "Invite a friend" (issue #7).
//
// It moves strings between two browsers and knows nothing of chess: the protocol (commitments,
// the hash-chained log, the audit) is Python (py/hiddenchess/peer/). What lives here:
//
//   * one RTCPeerConnection with one ordered RTCDataChannel ("hc");
//   * the compact offer / answer codes: instead of a raw SDP (~1 kB), only what the other side
//     needs to rebuild one -- ICE ufrag/pwd, the DTLS sha-256 fingerprint, the setup role and
//     the candidates -- packed in binary with a game tag and a checksum, then base64url
//     (about 100-200 characters). The SDP is rebuilt from a fixed data-channel template.
//   * a heartbeat: "hc:ping" every 2 s, answered "hc:pong" (never delivered as a message);
//     the connection is "lost" after 6 s of silence, when the connection state becomes
//     "failed", stays "disconnected" for 3 s (it often heals by itself), or the channel closes.
//   * the ICE servers setting: localStorage "hiddenchess:ice" (a JSON array of RTCIceServer,
//     e.g. [{"urls":"stun:stun.example.org:3478"}], or [] for LAN play only); default: one
//     public STUN server, needed only for play across the internet.
//
// API (window.HCPeer):
//
//   const peer = new HCPeer.Peer({gameId});         // options: iceServers, heartbeatMs, lostMs
//   peer.onopen = () => ...;                        // the channel is open
//   peer.onmessage = text => ...;                   // a message from the other side
//   peer.onclose = reason => ...;                   // "closed" | "lost" (once, then peer is dead)
//   peer.onstatus = status => ...;                  // see STATUSES
//   host:   const {code} = await peer.host();       // compact offer; send it in the invite link
//           await peer.accept(answerCode);          // the friend's answer; then onopen
//   guest:  const {code} = await peer.join(offer);  // compact answer; the friend pastes it; onopen
//   peer.send(text); peer.close();
//   peer.attach(channel)                            // any other transport (one-click signaling):
//           an object with send(text) whose onmessage / onclose / onopen properties peer.js sets
//           (onmessage receives a string or an event with .data); readyState === 'open' or
//           open === true when it is open already. Heartbeat and statuses work the same.
//
//   HCPeer.inviteLink(base, invite, offerCode) / HCPeer.parseLink(text) -> {invite, offer}
//   HCPeer.decode(code) -> the code's fields (throws HCPeer.CodeError with .kind and a message)
//   HCPeer.iceServers() / HCPeer.setIceServers(list|null)
//
// Code errors (CodeError.kind): "mangled" (damaged: checksum or format), "another-invite" (made
// for another game), "stale" (an answer to an invite this page no longer has open: the page was
// reloaded or a newer link was made), "used" (the invite is taken: an answer was already
// accepted), "wrong-kind" (an answer where an invite is expected or the reverse).

const CODE_VERSION = 1;
const KIND_OFFER = 0;
const KIND_ANSWER = 1;
const SETUPS = ['actpass', 'active', 'passive'];
const CAND_TYPES = ['host', 'srflx', 'relay', 'prflx'];
const ADDR_IPV4 = 0;
const ADDR_IPV6 = 1;
const ADDR_MDNS_UUID = 2; // "<uuid>.local" as 16 bytes
const ADDR_NAME = 3; // any other name, length-prefixed ASCII
const MAX_CODE_BYTES = 150; // -> at most 200 base64url characters
const ICE_KEY = 'hiddenchess:ice';
const DEFAULT_ICE = [{ urls: 'stun:stun.l.google.com:19302' }];
const PING = 'hc:ping';
const DISCONNECTED_GRACE_MS = 3000;
const PONG = 'hc:pong';

const STATUSES = {
  idle: 'nothing started',
  inviting: 'offer made, waiting for the answer',
  joining: 'answer made, waiting for the host to enter it',
  connecting: 'answer entered, connecting',
  open: 'connected',
  weak: 'connected, but the other side has been silent for a few seconds',
  lost: 'connection lost',
  closed: 'closed',
};

class CodeError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'CodeError';
    this.kind = kind;
  }
}

const MESSAGES = {
  mangled: 'This code is damaged: a character is missing or was changed. Copy it again, completely.',
  another: 'This code belongs to another invite (another game). Use the code made for this game.',
  stale:
    'This answer was made for an older invite link: this page was reloaded or a new link was made since. ' +
    'Send your friend the current link and paste the answer it gives.',
  used: 'This invite is already taken: a friend has joined with it, and a second answer cannot join the game.',
  answerNotOffer: 'This is an answer code, not an invite: paste it on the page that made the invite.',
  offerNotAnswer: 'This is an invite link or code, not an answer: your friend opens it and sends you back the answer.',
};

// ------------------------------------------------------------------------------ sha-256
// Synchronous, so that codes work in every context (crypto.subtle needs https or localhost).

const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

function sha256(bytes) {
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const len = bytes.length;
  const total = Math.ceil((len + 9) / 64) * 64;
  const msg = new Uint8Array(total);
  msg.set(bytes);
  msg[len] = 0x80;
  const bits = len * 8;
  const view = new DataView(msg.buffer);
  view.setUint32(total - 8, Math.floor(bits / 0x100000000));
  view.setUint32(total - 4, bits >>> 0);
  const w = new Uint32Array(64);
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K256[i] + w[i]) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(i * 4, h[i]);
  return out;
}

const utf8 = s => new TextEncoder().encode(s);
const hex = bytes => Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');

// ------------------------------------------------------------------------------ base64url

function b64uEncode(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function b64uDecode(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new CodeError('mangled', MESSAGES.mangled);
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// ------------------------------------------------------------------------------ addresses

function parseIPv4(text) {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every(p => /^\d{1,3}$/.test(p) && Number(p) < 256)) return null;
  return parts.map(Number);
}

function parseIPv6(text) {
  if (!/^[0-9a-fA-F:]+$/.test(text)) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = h => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return null;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!all.every(g => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const out = [];
  for (const g of all) {
    const v = parseInt(g, 16);
    out.push(v >> 8, v & 255);
  }
  return out;
}

function formatIPv6(bytes) {
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(':');
}

const UUID_LOCAL = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\.local$/;

// ------------------------------------------------------------------------------ SDP

/** The fields of a local SDP that the other side needs (data channel only). */
function parseSdp(sdp) {
  const get = re => {
    const m = sdp.match(re);
    return m ? m[1].trim() : null;
  };
  const ufrag = get(/^a=ice-ufrag:(.+)$/m);
  const pwd = get(/^a=ice-pwd:(.+)$/m);
  const fp = get(/^a=fingerprint:sha-256 (.+)$/im);
  const setup = get(/^a=setup:(.+)$/m);
  if (!ufrag || !pwd || !fp || !setup) throw new Error('the local session description lacks ICE or DTLS fields');
  const fingerprint = fp.split(':').map(x => parseInt(x, 16));
  if (fingerprint.length !== 32 || fingerprint.some(Number.isNaN)) throw new Error('unexpected DTLS fingerprint');
  const candidates = [];
  for (const m of sdp.matchAll(/^a=(candidate:.+)$/gm)) {
    const c = parseCandidate(m[1]);
    if (c) candidates.push(c);
  }
  return { ufrag, pwd, fingerprint, setup, candidates };
}

/** {type, address, port} of a UDP component-1 candidate line, or null for one we do not carry. */
function parseCandidate(line) {
  const f = line.replace(/^candidate:/, '').trim().split(/\s+/);
  if (f.length < 8 || f[1] !== '1' || f[2].toLowerCase() !== 'udp' || f[6] !== 'typ') return null;
  const type = f[7];
  if (!CAND_TYPES.includes(type)) return null;
  const port = Number(f[5]);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return null;
  return { type, address: f[4], port };
}

function candidateLine(c, index) {
  const typeIndex = CAND_TYPES.indexOf(c.type);
  const pref = [126, 100, 0, 110][typeIndex];
  const priority = pref * 2 ** 24 + (65535 - index) * 256 + 255;
  const related = c.type === 'host' ? '' : ' raddr 0.0.0.0 rport 0';
  return `a=candidate:${index + 1} 1 udp ${priority} ${c.address} ${c.port} typ ${c.type}${related}`;
}

/** A complete data-channel SDP from a code's fields. */
function buildSdp(info) {
  const fp = Array.from(info.fingerprint, b => b.toString(16).toUpperCase().padStart(2, '0')).join(':');
  const lines = [
    'v=0',
    `o=- ${1000000 + (info.fingerprint[0] << 16) + (info.fingerprint[1] << 8) + info.fingerprint[2]} 2 IN IP4 127.0.0.1`,
    's=-',
    't=0 0',
    'a=group:BUNDLE 0',
    'a=msid-semantic: WMS',
    'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
    'c=IN IP4 0.0.0.0',
    ...info.candidates.map(candidateLine),
    'a=end-of-candidates',
    `a=ice-ufrag:${info.ufrag}`,
    `a=ice-pwd:${info.pwd}`,
    'a=ice-options:trickle',
    `a=fingerprint:sha-256 ${fp}`,
    `a=setup:${info.setup}`,
    'a=mid:0',
    'a=sctp-port:5000',
    'a=max-message-size:262144',
  ];
  return lines.join('\r\n') + '\r\n';
}

// ------------------------------------------------------------------------------ codes

/** 4 bytes naming the game: the first bytes of sha-256(game id). */
function gameTag(gameId) {
  return sha256(utf8(`hc-game|${gameId}`)).slice(0, 4);
}

/** 4 bytes naming one offer (its ICE ufrag and DTLS fingerprint). */
function offerTag(info) {
  return sha256(new Uint8Array([...utf8(`hc-offer|${info.ufrag}|`), ...info.fingerprint])).slice(0, 4);
}

const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

function encodeCandidate(c) {
  const type = CAND_TYPES.indexOf(c.type);
  const v4 = parseIPv4(c.address);
  const v6 = v4 ? null : parseIPv6(c.address);
  const uuid = UUID_LOCAL.exec(c.address.toLowerCase());
  let kind, addr;
  if (v4) [kind, addr] = [ADDR_IPV4, v4];
  else if (v6) [kind, addr] = [ADDR_IPV6, v6];
  else if (uuid) [kind, addr] = [ADDR_MDNS_UUID, Array.from(uuid.slice(1).join('').match(/../g), x => parseInt(x, 16))];
  else if (/^[A-Za-z0-9.-]{1,63}$/.test(c.address)) [kind, addr] = [ADDR_NAME, [c.address.length, ...utf8(c.address)]];
  else return null;
  return [(type << 4) | kind, ...addr, c.port >> 8, c.port & 255];
}

/** Candidates worth carrying first: IPv4 / mDNS host, then server-reflexive and relay, then IPv6. */
function candidateRank(c) {
  const v6 = parseIPv6(c.address) !== null;
  return (v6 ? 10 : 0) + ({ host: 0, srflx: 1, prflx: 2, relay: 3 }[c.type] ?? 4);
}

/**
 * The compact code: version|kind, game tag (4), [answer: offer tag (4)], setup, ufrag, pwd,
 * fingerprint (32), candidates, checksum (first 4 bytes of sha-256 of everything before).
 */
function encode({ kind, gameId, info, forOffer = null }) {
  const head = [(CODE_VERSION << 4) | kind, ...gameTag(gameId)];
  if (kind === KIND_ANSWER) head.push(...forOffer);
  const setup = SETUPS.indexOf(info.setup);
  if (setup < 0) throw new Error(`unexpected DTLS setup role ${info.setup}`);
  if (info.ufrag.length > 255 || info.pwd.length > 255) throw new Error('ICE credentials too long');
  head.push(setup, info.ufrag.length, ...utf8(info.ufrag), info.pwd.length, ...utf8(info.pwd), ...info.fingerprint);
  const cands = [];
  let size = head.length + 1 + 4;
  const sorted = [...info.candidates].sort((a, b) => candidateRank(a) - candidateRank(b));
  const seen = new Set();
  for (const c of sorted) {
    const bytes = encodeCandidate(c);
    const key = `${c.address}:${c.port}`;
    if (!bytes || seen.has(key) || cands.length >= 15) continue;
    if (size + bytes.length > MAX_CODE_BYTES && cands.length > 0) continue;
    seen.add(key);
    cands.push(bytes);
    size += bytes.length;
  }
  if (cands.length === 0) throw new Error('no network address was found for the connection (is the device online?)');
  const body = new Uint8Array([...head, cands.length, ...cands.flat()]);
  const sum = sha256(body).slice(0, 4);
  return b64uEncode(new Uint8Array([...body, ...sum]));
}

/** The fields of a code: {kind, version, gameTag, offerTag?, info}; throws CodeError("mangled"). */
function decode(code) {
  const text = String(code || '').replace(/\s+/g, '');
  if (!text) throw new CodeError('mangled', 'The code is empty: paste the whole code.');
  const bytes = b64uDecode(text);
  if (bytes.length < 10) throw new CodeError('mangled', MESSAGES.mangled);
  const body = bytes.slice(0, -4);
  if (!sameBytes(sha256(body).slice(0, 4), bytes.slice(-4))) throw new CodeError('mangled', MESSAGES.mangled);
  let pos = 0;
  const need = n => {
    if (pos + n > body.length) throw new CodeError('mangled', MESSAGES.mangled);
    const out = body.slice(pos, pos + n);
    pos += n;
    return out;
  };
  const [vk] = need(1);
  if (vk >> 4 !== CODE_VERSION) {
    throw new CodeError('mangled', 'This code was made by a different version of Hidden Chess: both players need the same version.');
  }
  const kind = vk & 15;
  if (kind !== KIND_OFFER && kind !== KIND_ANSWER) throw new CodeError('mangled', MESSAGES.mangled);
  const tag = need(4);
  const forOffer = kind === KIND_ANSWER ? need(4) : null;
  const setup = SETUPS[need(1)[0]];
  if (!setup) throw new CodeError('mangled', MESSAGES.mangled);
  const dec = new TextDecoder();
  const ufrag = dec.decode(need(need(1)[0]));
  const pwd = dec.decode(need(need(1)[0]));
  const fingerprint = need(32);
  const count = need(1)[0];
  const candidates = [];
  for (let i = 0; i < count; i++) {
    const [tk] = need(1);
    const type = CAND_TYPES[tk >> 4];
    const ak = tk & 15;
    let address;
    if (ak === ADDR_IPV4) address = Array.from(need(4)).join('.');
    else if (ak === ADDR_IPV6) address = formatIPv6(need(16));
    else if (ak === ADDR_MDNS_UUID) {
      const h = hex(need(16));
      address = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}.local`;
    } else if (ak === ADDR_NAME) address = dec.decode(need(need(1)[0]));
    else throw new CodeError('mangled', MESSAGES.mangled);
    const [hi, lo] = need(2);
    if (!type) throw new CodeError('mangled', MESSAGES.mangled);
    candidates.push({ type, address, port: (hi << 8) | lo });
  }
  if (pos !== body.length || !/^[\x21-\x7e]+$/.test(ufrag + pwd)) throw new CodeError('mangled', MESSAGES.mangled);
  return { kind, version: vk >> 4, gameTag: tag, offerTag: forOffer, info: { ufrag, pwd, fingerprint, setup, candidates } };
}

// ------------------------------------------------------------------------------ links

/** `<base>#join=<base64url(JSON invite)>.<offer code>` */
function inviteLink(base, invite, offerCode) {
  const url = String(base).split('#')[0];
  return `${url}#join=${b64uEncode(utf8(JSON.stringify(invite)))}.${offerCode}`;
}

/**
 * {invite, offer} from a whole invite link, its "#join=..." fragment or "<invite>.<offer>";
 * throws CodeError("mangled") when the text is not one.
 */
function parseLink(text) {
  let s = String(text || '').replace(/\s+/g, '');
  // A fragment may carry more parameters ("#join=...&peer=..." for one-click signaling).
  const frag = s.indexOf('#');
  if (frag >= 0) {
    const join = s.slice(frag + 1).split('&').find(p => p.startsWith('join='));
    s = join ? join.slice(5) : '';
  } else if (s.startsWith('join=')) {
    s = s.slice(5).split('&')[0];
  }
  const m = s.match(/^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/);
  if (!m) throw new CodeError('mangled', 'This is not an invite link: copy the whole link your friend sent.');
  let invite;
  try {
    invite = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b64uDecode(m[1])));
  } catch (e) {
    throw new CodeError('mangled', 'This invite link is damaged: copy it again, completely.');
  }
  if (!invite || typeof invite !== 'object' || typeof invite.g !== 'string' || !invite.g) {
    throw new CodeError('mangled', 'This invite link is damaged: copy it again, completely.');
  }
  const offer = decode(m[2]);
  if (offer.kind !== KIND_OFFER) throw new CodeError('wrong-kind', MESSAGES.answerNotOffer);
  if (!sameBytes(offer.gameTag, gameTag(invite.g))) {
    throw new CodeError('mangled', 'This invite link is damaged: its settings and its connection code do not belong together.');
  }
  return { invite, offer: m[2] };
}

// ------------------------------------------------------------------------------ settings

/** The ICE servers to use: localStorage "hiddenchess:ice" (JSON array) or the public STUN default. */
function iceServers() {
  let raw = null;
  try {
    raw = localStorage.getItem(ICE_KEY);
  } catch (e) {
    return DEFAULT_ICE;
  }
  if (raw === null) return DEFAULT_ICE;
  try {
    const list = JSON.parse(raw);
    if (Array.isArray(list) && list.every(validIceServer)) return list;
  } catch (e) {
    // fall through
  }
  console.warn(`Hidden Chess: ignoring the setting ${ICE_KEY} (not a JSON array of {urls: ...}); using the default.`);
  return DEFAULT_ICE;
}

function validIceServer(s) {
  if (!s || typeof s !== 'object') return false;
  const urls = Array.isArray(s.urls) ? s.urls : [s.urls];
  return urls.length > 0 && urls.every(u => typeof u === 'string' && /^(stun|stuns|turn|turns):/.test(u));
}

/** Store the ICE servers (an array) or forget the setting (null); throws on a bad list. */
function setIceServers(list) {
  if (list === null) {
    localStorage.removeItem(ICE_KEY);
    return;
  }
  if (!Array.isArray(list) || !list.every(validIceServer)) {
    throw new Error('ICE servers must be a list of {urls: "stun:host:port" | "turn:..." , username?, credential?}');
  }
  localStorage.setItem(ICE_KEY, JSON.stringify(list));
}

// ------------------------------------------------------------------------------ the peer

function waitForGathering(pc, timeoutMs) {
  return new Promise(resolve => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', check);
      resolve();
    }
    function check() {
      if (pc.iceGatheringState === 'complete') done();
    }
    pc.addEventListener('icegatheringstatechange', check);
  });
}

class Peer {
  /**
   * @param {object} opts gameId (required for codes), iceServers (default: the setting),
   *   heartbeatMs (2000), lostMs (6000), gatherMs (longest wait for ICE candidates, 5000)
   */
  constructor(opts = {}) {
    this.gameId = opts.gameId == null ? null : String(opts.gameId);
    this.iceServers = opts.iceServers || iceServers();
    this.heartbeatMs = opts.heartbeatMs || 2000;
    this.lostMs = opts.lostMs || 6000;
    this.gatherMs = opts.gatherMs || 5000;
    this.status = 'idle';
    this.pc = null;
    this.channel = null;
    this.myOfferTag = null; // host: the tag of the offer this page has open
    this.accepted = false; // host: an answer was accepted (the invite is taken)
    this.lastHeard = 0;
    this.timer = 0;
    this.ended = false;
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onstatus = null;
  }

  _setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    if (this.onstatus) this.onstatus(status);
  }

  _needGame() {
    if (!this.gameId) throw new Error('HCPeer: the Peer needs a gameId to make or read codes');
  }

  _newConnection() {
    if (this.pc || this.channel) throw new Error('HCPeer: this Peer is already in use; make a new one');
    const pc = new RTCPeerConnection({ iceServers: this.iceServers });
    this.pc = pc;
    pc.addEventListener('connectionstatechange', () => {
      const s = pc.connectionState;
      if (s === 'failed' || s === 'closed') return this._lose('lost');
      // "disconnected" often heals by itself within a second or two (ICE consent checks); it is
      // lost if it has not within DISCONNECTED_GRACE_MS (the heartbeat may decide sooner).
      clearTimeout(this._graceTimer);
      if (s === 'disconnected') {
        if (this.status === 'open') this._setStatus('weak');
        this._graceTimer = setTimeout(() => {
          if (pc.connectionState === 'disconnected') this._lose('lost');
        }, DISCONNECTED_GRACE_MS);
      }
    });
    return pc;
  }

  async _localInfo(pc, description) {
    await pc.setLocalDescription(description);
    await waitForGathering(pc, this.gatherMs);
    return parseSdp(pc.localDescription.sdp);
  }

  /** Host: make the offer. Returns {code}; then wait for accept(answer). */
  async host() {
    this._needGame();
    const pc = this._newConnection();
    this._wire(pc.createDataChannel('hc', { ordered: true }));
    const info = await this._localInfo(pc, await pc.createOffer());
    this.myOfferTag = offerTag(info);
    this._setStatus('inviting');
    return { code: encode({ kind: KIND_OFFER, gameId: this.gameId, info }) };
  }

  /** Guest: answer an offer code. Returns {code} (the answer for the host); then onopen. */
  async join(offerCode) {
    this._needGame();
    const offer = decode(offerCode);
    if (offer.kind !== KIND_OFFER) throw new CodeError('wrong-kind', MESSAGES.answerNotOffer);
    if (!sameBytes(offer.gameTag, gameTag(this.gameId))) throw new CodeError('another-invite', MESSAGES.another);
    const pc = this._newConnection();
    pc.addEventListener('datachannel', e => this._wire(e.channel));
    await pc.setRemoteDescription({ type: 'offer', sdp: buildSdp(offer.info) });
    const info = await this._localInfo(pc, await pc.createAnswer());
    this._setStatus('joining');
    return { code: encode({ kind: KIND_ANSWER, gameId: this.gameId, info, forOffer: offerTag(offer.info) }) };
  }

  /** Host: enter the friend's answer code (throws CodeError: mangled/another-invite/stale/used). */
  async accept(answerCode) {
    this._needGame();
    const answer = decode(answerCode);
    if (answer.kind !== KIND_ANSWER) throw new CodeError('wrong-kind', MESSAGES.offerNotAnswer);
    if (!sameBytes(answer.gameTag, gameTag(this.gameId))) throw new CodeError('another-invite', MESSAGES.another);
    if (!this.myOfferTag || !sameBytes(answer.offerTag, this.myOfferTag)) throw new CodeError('stale', MESSAGES.stale);
    if (this.accepted) throw new CodeError('used', MESSAGES.used);
    if (this.ended) throw new CodeError('stale', MESSAGES.stale);
    this.accepted = true;
    this._setStatus('connecting');
    try {
      await this.pc.setRemoteDescription({ type: 'answer', sdp: buildSdp(answer.info) });
    } catch (e) {
      this.accepted = false;
      throw new CodeError('mangled', `This answer cannot be used (${e.message || e}). Ask your friend to copy it again.`);
    }
  }

  /** Use another transport (see the header): send(text) + onmessage/onclose/onopen properties. */
  attach(channel) {
    if (this.pc || this.channel) throw new Error('HCPeer: this Peer is already in use; make a new one');
    if (!channel || typeof channel.send !== 'function') throw new Error('HCPeer.attach: the channel needs a send(text) method');
    this._setStatus('connecting');
    this._wire(channel);
  }

  _wire(channel) {
    this.channel = channel;
    channel.onopen = () => this._opened();
    channel.onmessage = e => this._received(typeof e === 'string' ? e : e && e.data);
    channel.onclose = () => this._lose('closed');
    if (channel.readyState === 'open' || channel.open === true) this._opened();
  }

  _opened() {
    if (this.ended || this.status === 'open' || this.status === 'weak') return;
    this.lastHeard = Date.now();
    this._setStatus('open');
    this._lastPing = 0;
    this._lastBeat = 0;
    this.timer = setInterval(() => this._beat(), Math.min(this.heartbeatMs, 1000));
    if (this.onopen) this.onopen();
  }

  _beat() {
    const now = Date.now();
    // A tick far behind its time means this page was frozen (a long computation, a background
    // tab): messages that arrived meanwhile are still queued behind this timer, so judge later.
    const frozen = this._lastBeat && now - this._lastBeat > 1500;
    this._lastBeat = now;
    if (frozen) {
      this._raw(PING);
      return;
    }
    const silent = now - this.lastHeard;
    if (silent >= this.lostMs) return this._lose('lost');
    this._setStatus(silent >= this.heartbeatMs * 1.5 + 500 ? 'weak' : 'open');
    if (now - this._lastPing >= this.heartbeatMs) {
      this._lastPing = now;
      this._raw(PING);
    }
  }

  _received(data) {
    if (this.ended || typeof data !== 'string') return;
    this.lastHeard = Date.now();
    if (this.status === 'weak') this._setStatus('open');
    if (data === PING) return this._raw(PONG);
    if (data === PONG) return;
    if (this.onmessage) this.onmessage(data);
  }

  _raw(text) {
    try {
      this.channel.send(text);
    } catch (e) {
      this._lose('lost');
    }
  }

  /** Send one message (a string); throws when the channel is not open. */
  send(text) {
    if (typeof text !== 'string') throw new TypeError('HCPeer.send: messages are strings');
    if (this.ended || !this.channel || !(this.status === 'open' || this.status === 'weak')) {
      throw new Error('HCPeer.send: not connected');
    }
    this._raw(text);
  }

  _lose(reason) {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    clearTimeout(this._graceTimer);
    this._shutdown();
    this._setStatus(reason === 'closed' ? 'closed' : 'lost');
    if (this.onclose) this.onclose(reason);
  }

  _shutdown() {
    const { channel, pc } = this;
    for (const f of ['onopen', 'onmessage', 'onclose']) if (channel) channel[f] = null;
    try {
      if (channel && channel.close) channel.close();
    } catch (e) {
      // already closed
    }
    try {
      if (pc) pc.close();
    } catch (e) {
      // already closed
    }
  }

  /** End the connection on purpose (no onclose callback). */
  close() {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    clearTimeout(this._graceTimer);
    this._shutdown();
    this._setStatus('closed');
  }
}

const HCPeer = {
  Peer,
  CodeError,
  STATUSES,
  DEFAULT_ICE,
  ICE_KEY,
  MAX_CODE_CHARS: Math.ceil((MAX_CODE_BYTES * 4) / 3),
  encode,
  decode,
  inviteLink,
  parseLink,
  iceServers,
  setIceServers,
  gameTag,
  sha256hex: text => hex(sha256(utf8(text))),
  _buildSdp: buildSdp,
  _parseSdp: parseSdp,
};

window.HCPeer = HCPeer;
export default HCPeer;
