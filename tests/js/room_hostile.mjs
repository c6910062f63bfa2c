// Hidden Chess -- strangers in a friend game's room (run by tests/test_room_link.py). Anyone who
// holds the room secret (an invite link that leaked) can join the room. Before, each page sent its
// device token in a hello to every peer that joined, and the host bound whichever peer presented
// the guest's token: a stranger could copy it and take the link over from the real guest (it
// could not forge moves, but it could stall the game). Now the pages prove they know the pair's
// key over fresh nonces, bound to the connection (signal/handshake.js).
//
// Over a fake Trystero (fake_trystero.mjs): what a stranger hears, what replaying it gets, a
// device in the middle relaying two connections, a stranger who overheard the first claim, and
// the honest guest whose page reloaded before the host's welcome reached it, and a flood. Prints
// one JSON line.

import { FakeNet, session, settle, stop } from './fake_trystero.mjs';

const HOST_TOKEN = 'a'.repeat(32), GUEST_TOKEN = 'b'.repeat(32), OTHER_TOKEN = 'c'.repeat(32);
const out = {};
const states = (...links) => links.map(l => `${l.state}:${l.bound}`);
const text = heard => heard.map(h => h.text).join('\n');

// A. A pair that met; a stranger joins the room and hears both pages, then replays what it heard
// to the other page, claims the game, and says "taken" to the guest.
{
  const net = new FakeNet();
  const saved = {};
  const host = net.link('H', 'host', HOST_TOKEN, { onaccept: t => (saved.accepted = t), onconfirm: () => (saved.confirmed = true) });
  const guest = net.link('G', 'guest', GUEST_TOKEN, { onaccept: t => (saved.guestAccepted = t) });
  const hs = session(host), gs = session(guest);
  net.connect('H', 'G');
  await settle();
  out.met = { states: states(host, guest), saved, hostLog: [...hs.log], guestLog: [...gs.log] };
  const s = net.stranger('S');
  net.connect('S', 'H');
  net.connect('S', 'G');
  await settle();
  out.strangerHeard = {
    kinds: s.heard.map(h => `${h.from}:${JSON.parse(h.text).k}`).sort(),
    tokens: [HOST_TOKEN, GUEST_TOKEN].filter(t => text(s.heard).includes(t)).length,
  };
  // (every hello and proof the guest sent it goes to the host, and the host's to the guest)
  for (const h of [...s.heard]) s.send(h.from === 'G' ? 'H' : 'G', h.kind, h.text);
  await settle();
  s.send('H', 'hcctl', JSON.stringify({ k: 'claim', token: OTHER_TOKEN }));
  s.send('G', 'hcctl', JSON.stringify({ k: 'taken' }));
  s.send('G', 'hcctl', JSON.stringify({ k: 'welcome', token: OTHER_TOKEN, n: '1'.repeat(32) }));
  s.send('H', 'hcctl', JSON.stringify({ k: 'proof', role: 'guest', n: '2'.repeat(32), mac: '3'.repeat(64) }));
  for (const junk of ['[1,2]', '{"k":"hello","role":"guest","n":5}', 'null', '{"k":"claim","token":{"x":1}}']) s.send('H', 'hcctl', junk);
  await settle();
  out.afterReplay = {
    states: states(host, guest), hostLog: [...hs.log], guestLog: [...gs.log],
    toStranger: s.heard.slice(-3).map(h => `${h.from}:${JSON.parse(h.text).k}`),
  };
  gs.ch.send('still here');
  await settle();
  out.afterReplay.message = hs.log.at(-1);
  stop(host, guest);
}

// B. A device in the middle: the two pages (met before, each knows the other's token) reach only
// the stranger, which passes each one's messages on to the other as its own.
async function middle(cert) {
  const net = new FakeNet({ cert });
  const host = net.link('H', 'host', HOST_TOKEN, { expect: GUEST_TOKEN });
  const guest = net.link('G', 'guest', GUEST_TOKEN, { expect: HOST_TOKEN });
  const m = net.stranger('M');
  let relayed = 0;
  for (const kind of ['hcctl', 'hcmsg']) {
    m.room.actions[kind].onMessage = (data, { peerId }) => {
      relayed += 1;
      m.send(peerId === 'H' ? 'G' : 'H', kind, data);
    };
  }
  net.connect('M', 'H');
  net.connect('M', 'G');
  await settle();
  const result = { states: states(host, guest), relayed };
  stop(host, guest);
  return result;
}
out.middle = await middle(undefined);
// (what the fingerprints stop: a middle device that could show each page the other's certificate)
out.middleWithTheirCertificates = await middle((a, b) => (a === 'M' ? (b === 'H' ? 'G' : 'H') : a));
// (and a connection without fingerprints binds nothing)
out.noFingerprints = await middle(() => null);

// C. A stranger who said it was the host when the guest first opened the link: it got the guest's
// claim (and so its token), and claims the game with it once the two pages have met.
{
  const net = new FakeNet();
  const host = net.link('H', 'host', HOST_TOKEN);
  const guest = net.link('G', 'guest', GUEST_TOKEN);
  const e = net.stranger('E');
  net.connect('E', 'G');
  e.send('G', 'hcctl', JSON.stringify({ k: 'hello', role: 'host', n: '4'.repeat(32) }));
  await settle();
  const claim = e.heard.map(h => JSON.parse(h.text)).find(m => m.k === 'claim');
  out.overheardClaim = Boolean(claim && claim.token === GUEST_TOKEN);
  net.connect('H', 'G');
  await settle();
  out.overheardMet = { states: states(host, guest), confirmed: host.handshake.confirmed };
  net.connect('E', 'H');
  await settle();
  const before = e.heard.length;
  e.send('H', 'hcctl', JSON.stringify(claim));
  await settle();
  out.overheardReplay = { states: states(host, guest), answers: e.heard.slice(before).map(h => JSON.parse(h.text).k) };
  stop(host, guest);
}

// D. The honest guest whose page reloaded before the host's welcome reached it: the host accepted
// its claim, but it never proved itself. Its new page (a new peer id, the same token, no host
// token) claims again and is welcomed.
{
  const net = new FakeNet();
  const host = net.link('H', 'host', HOST_TOKEN);
  const first = net.stranger('G1'); // (the first page: claims, then is gone)
  net.connect('G1', 'H');
  await settle();
  first.send('H', 'hcctl', JSON.stringify({ k: 'claim', token: GUEST_TOKEN }));
  await settle();
  out.reloadBeforeWelcome = { accepted: host.expect, confirmed: host.handshake.confirmed, bound: host.bound };
  net.drop('H', 'G1');
  const guest = net.link('G2', 'guest', GUEST_TOKEN);
  net.connect('H', 'G2');
  await settle();
  out.reloadBeforeWelcome.after = { states: states(host, guest), confirmed: host.handshake.confirmed, guestKnows: guest.expect };
  stop(host, guest);
}

// E. A flood: a stranger sends the host a thousand hellos at once, and kinds that name what every
// object has. The host answers a burst of them, and its friend's link is untouched.
{
  const net = new FakeNet();
  const host = net.link('H', 'host', HOST_TOKEN, { expect: GUEST_TOKEN });
  const guest = net.link('G', 'guest', GUEST_TOKEN, { expect: HOST_TOKEN });
  net.connect('H', 'G');
  await settle();
  const s = net.stranger('S');
  net.connect('S', 'H');
  await settle();
  const before = s.heard.length;
  for (let i = 0; i < 1000; i++) s.send('H', 'hcctl', JSON.stringify({ k: 'hello', role: 'guest', n: i.toString(16).padStart(32, '0') }));
  for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) s.send('H', 'hcctl', JSON.stringify({ k }));
  await settle(200);
  out.flood = { answered: s.heard.length - before, states: states(host, guest) };
  stop(host, guest);
}

console.log(JSON.stringify(out));
