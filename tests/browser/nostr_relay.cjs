// A real Nostr relay on this machine, for the browser tests (tests/browser/netns.py starts it
// inside the test network namespace) and bench/matchmaking.py: @nostr-relay/core with
// @nostr-relay/validator (message schema, event id and schnorr signature checks), served over
// WebSocket by `ws`; all four are devDependencies in package.json. Events are kept in memory
// (Hidden Chess only sends ephemeral kinds 20000-29999, which a relay passes on and never keeps).
//
//   node tests/browser/nostr_relay.cjs [--host 127.0.0.1] [--port 0]
//
// Prints "listening <host> <port>" once ready; on SIGUSR2 prints "stats <json>" (connections,
// messages received and sent, EVENTs, REQs) for the benchmark; exits on SIGTERM/SIGINT.
const { NostrRelay } = require('@nostr-relay/core');
const { EventRepository } = require('@nostr-relay/common');
const { Validator } = require('@nostr-relay/validator');
const { WebSocketServer } = require('ws');

class MemoryRepository extends EventRepository {
  constructor() { super(); this.events = []; }
  isSearchSupported() { return false; }
  upsert(event) {
    if (this.events.some(e => e.id === event.id)) return { isDuplicate: true };
    this.events.push(event);
    if (this.events.length > 10000) this.events.shift();
    return { isDuplicate: false };
  }
  find(filter) {
    const out = this.events.filter(e => (!filter.kinds || filter.kinds.includes(e.kind)) &&
      (!filter.since || e.created_at >= filter.since) && (!filter.until || e.created_at <= filter.until) &&
      (!filter.ids || filter.ids.includes(e.id)) && (!filter.authors || filter.authors.includes(e.pubkey)) &&
      Object.entries(filter).every(([k, v]) => !k.startsWith('#') || e.tags.some(t => t[0] === k.slice(1) && v.includes(t[1]))));
    return out.slice(-(filter.limit || 500));
  }
  async destroy() {}
}

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const host = arg('--host', '127.0.0.1');
const port = Number(arg('--port', '0'));
const relay = new NostrRelay(new MemoryRepository(), {});
const validator = new Validator();
const stats = { connections: 0, received: 0, sent: 0, events: 0, reqs: 0 };
const wss = new WebSocketServer({ host, port });
wss.on('connection', (ws, req) => {
  stats.connections += 1;
  const send = ws.send.bind(ws);
  ws.send = (data, ...rest) => { stats.sent += 1; return send(data, ...rest); };
  relay.handleConnection(ws, req.socket.remoteAddress);
  ws.on('message', async data => {
    stats.received += 1;
    try {
      const msg = await validator.validateIncomingMessage(data);
      if (msg[0] === 'EVENT') stats.events += 1; else if (msg[0] === 'REQ') stats.reqs += 1;
      await relay.handleMessage(ws, msg);
    } catch (error) {
      ws.send(JSON.stringify(['NOTICE', `invalid: ${error.message}`]));
    }
  });
  ws.on('close', () => relay.handleDisconnect(ws));
  ws.on('error', () => {});
});
wss.on('listening', () => console.log(`listening ${host} ${wss.address().port}`));
process.on('SIGUSR2', () => console.log(`stats ${JSON.stringify(stats)}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { wss.close(); process.exit(0); });
