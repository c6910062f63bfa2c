// Hidden Chess -- a friend link whose connection Trystero replaced or lost without saying so
// (run by tests/test_room_link.py). Trystero (core/room.mjs) replaces a peer's connection when a
// second one is set up under the same id: it drops the first with no leave reported, and reports
// the new one's join when it is up. What went over the old connection meanwhile is lost. Seen in
// a quick-play game after a reload: the host's page stayed "connected" to an id Trystero no
// longer had ("no peer with id ... found"), its answers vanished, and the reloaded page waited
// for ever for the host to confirm the game's messages.
//
// Two RoomLinks over a fake Trystero: each room knows which peers it has active connections to,
// delivers a message only over a connection active at both ends, and lets the script drop and
// re-activate one end. The game's side of each link (the session) opens a new channel whenever one
// closes, as HCPeer does. Prints one JSON line.

const root = new URL('../../', import.meta.url);
const { RoomLink } = await import(new URL('assets/js/signal/room.js', root).href);

const rooms = {};
class FakeRoom {
  constructor(id) {
    this.id = id;
    this.active = {};
    this.actions = {};
    this.onPeerJoin = this.onPeerLeave = null;
    this.lost = 0; // sends to a peer with no active connection ("no peer with id ... found")
    rooms[id] = this;
  }

  makeAction(name) {
    const action = {
      onMessage: null,
      send: (data, { target } = {}) => {
        if (!this.active[target]) {
          this.lost += 1;
          return Promise.resolve([]);
        }
        const to = rooms[target];
        queueMicrotask(() => {
          if (to.active[this.id] && to.actions[name].onMessage) to.actions[name].onMessage(data, { peerId: this.id });
          else this.lost += 1;
        });
        return Promise.resolve([]);
      },
    };
    this.actions[name] = action;
    return action;
  }

  getPeers() {
    return Object.fromEntries(Object.keys(this.active).map(id => [id, {}]));
  }

  leave() {
    return Promise.resolve();
  }
}

/** `a`'s Trystero has an active connection to `b` (a first one, or a replacement). */
const activate = (a, b) => {
  rooms[a].active[b] = true;
  rooms[a].onPeerJoin(b);
};
/** `a`'s Trystero dropped its connection to `b` and reported nothing (a replacement begins). */
const drop = (a, b) => {
  delete rooms[a].active[b];
};
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise(resolve => setTimeout(resolve, 0));
};

function link(id, role, token) {
  const l = Object.create(RoomLink.prototype);
  Object.assign(l, {
    role, token, expect: null, relays: [], iceServers: [], onaccept: null, onchange: null, oncontrol: null,
    state: 'loading', error: '', bound: null, channelRef: null, queue: [], room: null, left: false,
    started: Date.now(), failedRelays: new Set(), _lastCount: -1,
    trystero: { joinRoom: () => new FakeRoom(id), getRelaySockets: () => ({}) },
    derived: { roomId: 'room', password: 'secret' },
  });
  l._join();
  return l;
}

/** The game's side of a link: every channel event, in order; a closed channel is replaced. */
function session(l) {
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

const H = 'hostpeer', G = 'guestpeer';
const host = link(H, 'host', 'a'.repeat(32));
const guest = link(G, 'guest', 'b'.repeat(32));
const hs = session(host), gs = session(guest);
const out = {};

activate(H, G);
activate(G, H);
await settle();
out.met = { host: host.state, guest: guest.state, hostLog: [...hs.log], guestLog: [...gs.log], expect: host.expect };
gs.ch.send('one');
await settle();
out.firstMessage = hs.log.at(-1);

// One page's Trystero replaces its connection to the other: a message sent meanwhile is lost,
// so both channels close and open again (the pages resync). Each side in turn, then both at once.
const sides = { host: [H, G, gs], guest: [G, H, hs] }; // (whose Trystero, to whom, who sends)
for (const [who, [self, other, senderSession]] of Object.entries(sides)) {
  hs.log.length = gs.log.length = 0;
  drop(self, other);
  senderSession.ch.send('lost');
  await settle();
  activate(self, other);
  await settle();
  out[`${who}Replaced`] = { host: host.state, guest: guest.state, hostLog: [...hs.log], guestLog: [...gs.log] };
}
hs.log.length = gs.log.length = 0;
drop(H, G);
drop(G, H);
activate(H, G);
activate(G, H);
await settle();
out.bothReplaced = { host: host.state, guest: guest.state, hostLog: [...hs.log], guestLog: [...gs.log] };
hs.log.length = gs.log.length = 0;
gs.ch.send('three');
hs.ch.send('four');
await settle();
out.after = { hostLog: [...hs.log], guestLog: [...gs.log] };

// The replacement never comes up: the host's Trystero has no connection to the guest any more.
hs.log.length = gs.log.length = 0;
const lostBefore = rooms[H].lost;
drop(H, G);
hs.ch.send('five');
host._checkRelays();
out.ghostAfterOneLook = host.state;
host._checkRelays();
out.ghost = { host: host.state, bound: host.bound, hostLog: [...hs.log], lost: rooms[H].lost - lostBefore };
for (const l of [host, guest]) {
  l.left = true;
  clearInterval(l._poll);
}
console.log(JSON.stringify(out));
