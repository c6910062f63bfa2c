// Hidden Chess -- a fake Trystero for the Node checks of friend links (signal/room.js): each room
// knows which peers it has active connections to, delivers a message only over a connection
// active at both ends, and lets the script drop and re-activate one end. A connection's ends
// carry the DTLS certificate fingerprints of their two pages in their session descriptions, as
// a real RTCPeerConnection does: one certificate per page here, unless `cert(a, b)` says which
// page's certificate `a` shows `b` (a device in the middle that could show each page the other's,
// which a real one cannot without their private keys).

const root = new URL('../../', import.meta.url);
const { RoomLink } = await import(new URL('assets/js/signal/room.js', root).href);

export const SECRET = '5'.repeat(32);

export class FakeNet {
  constructor({ cert = a => a } = {}) {
    this.rooms = {};
    this.cert = cert;
  }

  description(a, b) {
    const cert = this.cert(a, b); // (null: a description with no fingerprint)
    return { type: 'offer', sdp: cert === null ? 'v=0\r\n' : `v=0\r\na=fingerprint:sha-256 ${cert}:CE:27\r\n` };
  }

  room(id) {
    const net = this;
    const room = {
      id, active: {}, actions: {}, onPeerJoin: null, onPeerLeave: null,
      lost: 0, // sends to a peer with no active connection ("no peer with id ... found")
      makeAction(name) {
        const action = {
          onMessage: null,
          send: (data, { target } = {}) => {
            if (!room.active[target]) {
              room.lost += 1;
              return Promise.resolve([]);
            }
            const to = net.rooms[target];
            queueMicrotask(() => {
              if (to.active[id] && to.actions[name] && to.actions[name].onMessage) to.actions[name].onMessage(data, { peerId: id });
              else room.lost += 1;
            });
            return Promise.resolve([]);
          },
        };
        room.actions[name] = action;
        return action;
      },
      getPeers: () => ({ ...room.active }),
      leave: () => Promise.resolve(),
    };
    this.rooms[id] = room;
    return room;
  }

  /** `a`'s Trystero has an active connection to `b` (a first one, or a replacement). */
  activate(a, b) {
    const room = this.rooms[a];
    room.active[b] = { localDescription: this.description(a, b), remoteDescription: this.description(b, a) };
    if (room.onPeerJoin) room.onPeerJoin(b);
  }

  /** Both ends of a connection between `a` and `b`. */
  connect(a, b) {
    this.activate(a, b);
    this.activate(b, a);
  }

  /** `a`'s Trystero dropped its connection to `b` and reported nothing (a replacement begins). */
  drop(a, b) {
    delete this.rooms[a].active[b];
  }

  /** A RoomLink in this net, as peer `id`, joined to its room. */
  link(id, role, token, { expect = null, confirmed = true, onaccept = null, onconfirm = null } = {}) {
    const l = Object.create(RoomLink.prototype);
    Object.assign(l, {
      secret: SECRET, role, token, relays: [], iceServers: [], onaccept, onconfirm, onchange: null, oncontrol: null,
      state: 'loading', error: '', bound: null, channelRef: null, queue: [], room: null, left: false,
      started: Date.now(), failedRelays: new Set(), _lastCount: -1,
      trystero: { joinRoom: () => this.room(id), getRelaySockets: () => ({}) },
      derived: { roomId: 'room', password: 'secret' },
    });
    l._handshake(expect, confirmed);
    l._join();
    return l;
  }

  /** A device of someone else's in the room, driven by the script: what it receives
   * (`heard`: {from, kind, text}), and `send(to, kind, text)` as itself. */
  stranger(id) {
    const room = this.room(id);
    const heard = [];
    for (const kind of ['hcctl', 'hcmsg']) {
      room.makeAction(kind).onMessage = (text, { peerId }) => heard.push({ from: peerId, kind, text });
    }
    return { id, room, heard, send: (to, kind, text) => room.actions[kind].send(text, { target: to }) };
  }
}

// WebCrypto in flight. The pages' handshake digests and signs with crypto.subtle, whose work runs
// off the event loop: on a busy machine it may take any number of turns, so `settle` counts the
// operations under way and waits for them, not for a fixed number of turns.
// HC_SLOW_CRYPTO=<ms> delays every operation by that much (tests/test_room_link.py checks with it
// that the scripts wait for what they check).
let inFlight = 0;
const slow = Number(process.env.HC_SLOW_CRYPTO || 0);
const subtle = Object.getPrototypeOf(crypto.subtle);
for (const name of ['digest', 'importKey', 'exportKey', 'sign', 'verify', 'generateKey', 'deriveBits', 'deriveKey', 'encrypt', 'decrypt']) {
  const real = subtle[name];
  subtle[name] = function (...args) {
    inFlight += 1;
    const delay = slow ? new Promise(resolve => setTimeout(resolve, slow)) : Promise.resolve();
    return delay.then(() => real.apply(this, args)).finally(() => { inFlight -= 1; });
  };
}

/** Let the fake net and the links run until they are quiet: `rounds` turns of the event loop in
 * a row with no WebCrypto operation under way (messages go as microtasks, so a turn drains them).
 * Throws after `limitMs` if the crypto never rests. */
export const settle = async (rounds = 40, limitMs = 20000) => {
  const end = Date.now() + limitMs;
  for (let quiet = 0; quiet < rounds;) {
    await new Promise(resolve => setTimeout(resolve, 0));
    quiet = inFlight ? 0 : quiet + 1;
    if (Date.now() > end) throw new Error(`settle: ${inFlight} WebCrypto operation(s) still under way after ${limitMs} ms`);
  }
};

/** The game's side of a link: every channel event, in order; a closed channel is replaced. */
export function session(l) {
  const s = { log: [], ch: null };
  const attach = () => {
    const ch = l.channel();
    ch.onopen = () => s.log.push('open');
    ch.onmessage = data => s.log.push(`msg ${data}`);
    ch.onclose = why => {
      s.log.push(`close ${why}`);
      attach();
    };
    s.ch = ch;
  };
  attach();
  return s;
}

export function stop(...links) {
  for (const l of links) {
    l.left = true;
    clearInterval(l._poll);
  }
}
