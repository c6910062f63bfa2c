// Hidden Chess -- a friend link whose connection Trystero replaced or lost without saying so
// (run by tests/test_room_link.py). Trystero (core/room.mjs) replaces a peer's connection when a
// second one is set up under the same id: it drops the first with no leave reported, and reports
// the new one's join when it is up. What went over the old connection meanwhile is lost. Seen in
// a quick-play game after a reload: the host's page stayed "connected" to an id Trystero no
// longer had ("no peer with id ... found"), its answers vanished, and the reloaded page waited
// for ever for the host to confirm the game's messages.
//
// Two RoomLinks over a fake Trystero (fake_trystero.mjs). The game's side of each link (the
// session) opens a new channel whenever one closes, as HCPeer does. Prints one JSON line.

import { FakeNet, session, settle, stop } from './fake_trystero.mjs';

const net = new FakeNet();
const rooms = net.rooms;
const activate = (a, b) => net.activate(a, b);
const drop = (a, b) => net.drop(a, b);
const link = (id, role, token) => net.link(id, role, token);

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
stop(host, guest);
console.log(JSON.stringify(out));
