// Hidden Chess -- the compact offer / answer codes of assets/peer.js: instead of a raw SDP
// (~1 kB), only what the other side needs to rebuild one -- ICE ufrag/pwd, the DTLS sha-256
// fingerprint, the setup role and the candidates -- packed in binary with a game tag and a
// checksum, then base64url (about 100-200 characters); the SDP is rebuilt from a fixed
// data-channel template. Also the invite links that carry an offer.

import { CodeError, MESSAGES } from './errors.js';
import { b64uDecode, b64uEncode, hex, sha256, utf8 } from './bytes.js';

export const CODE_VERSION = 1;
export const KIND_OFFER = 0;
export const KIND_ANSWER = 1;
const SETUPS = ['actpass', 'active', 'passive'];
const CAND_TYPES = ['host', 'srflx', 'relay', 'prflx'];
const ADDR_IPV4 = 0;
const ADDR_IPV6 = 1;
const ADDR_MDNS_UUID = 2; // "<uuid>.local" as 16 bytes
const ADDR_NAME = 3; // any other name, length-prefixed ASCII
export const MAX_CODE_BYTES = 150; // -> at most 200 base64url characters

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
export function parseSdp(sdp) {
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
export function buildSdp(info) {
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
export function gameTag(gameId) {
  return sha256(utf8(`hc-game|${gameId}`)).slice(0, 4);
}

/** 4 bytes naming one offer (its ICE ufrag and DTLS fingerprint). */
export function offerTag(info) {
  return sha256(new Uint8Array([...utf8(`hc-offer|${info.ufrag}|`), ...info.fingerprint])).slice(0, 4);
}

export const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

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
export function encode({ kind, gameId, info, forOffer = null }) {
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
export function decode(code) {
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
export function inviteLink(base, invite, offerCode) {
  const url = String(base).split('#')[0];
  return `${url}#join=${b64uEncode(utf8(JSON.stringify(invite)))}.${offerCode}`;
}

/**
 * {invite, offer} from a whole invite link, its "#join=..." fragment or "<invite>.<offer>";
 * throws CodeError("mangled") when the text is not one.
 */
export function parseLink(text) {
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
