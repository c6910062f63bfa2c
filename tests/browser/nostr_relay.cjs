// A real Nostr relay on this machine, for the browser tests (tests/browser/netns.py starts it
// inside the test network namespace) and bench/matchmaking.py: @nostr-relay/core with
// @nostr-relay/validator (message schema, event id and schnorr signature checks), served over
// WebSocket by `ws`; all four are devDependencies in package.json. Events are kept in memory
// (Hidden Chess only sends ephemeral kinds 20000-29999, which a relay passes on and never keeps).
//
//   node tests/browser/nostr_relay.cjs [--host 127.0.0.1] [--port 0] [--rate 4 --burst 40] [--delay 2000]
//
// Prints "listening <host> <port>" once ready; on SIGUSR2 prints "stats <json>" (connections,
// messages received and sent, EVENTs, REQs, messages refused by the rate limit and how many
// connections were ever limited, the process's CPU time) for the benchmark; exits on SIGTERM/SIGINT.
//
// Like public relays (docs/BENCHMARKS.md, "Quick play at scale", cites their defaults):
// - a WebSocket message over MAX_MESSAGE_BYTES (128 KB, nostr-rs-relay's max_ws_message_bytes)
//   closes the connection (code 1009) before anything parses it;
// - with --rate R (off by default: the browser tests keep the worst case, a relay that passes
//   everything), each connection may send R messages a second on average with bursts of --burst
//   (a token bucket, checked before the message is parsed and its signature checked; nostream's
//   defaults: 240 messages a minute, 60 ephemeral events a minute); an EVENT over the limit is
//   answered ["OK", id, false, "rate-limited: ..."], other messages with a NOTICE;
// - an event goes only to the subscriptions whose filters match it, tag filters included, and is
//   serialised once per broadcast (each subscriber's frame is its subscription id around the
//   same text);
// - with --delay MS, every message a client sends waits MS before the relay handles it (in order):
//   a congested relay, for the quick-play test of slow relays (test_peer_slow.py).
const { NostrRelay } = require('@nostr-relay/core');
const { EventRepository, EventUtils } = require('@nostr-relay/common');
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
const RATE = Number(arg('--rate', '0')); // messages a second per connection (0: no limit)
const BURST = Number(arg('--burst', '40'));
const DELAY_MS = Number(arg('--delay', '0')); // each message handled this late (0: at once)
const MAX_MESSAGE_BYTES = 128 * 1024;
const relay = new NostrRelay(new MemoryRepository(), {});
const validator = new Validator();
const stats = { connections: 0, received: 0, sent: 0, events: 0, reqs: 0, limited: 0, limited_connections: 0, cpu_s: 0 };

// NIP-01 matching, with the tag filters ("#x": [...]: the event has an x tag with one of these
// values), which @nostr-relay/common's isMatchingFilter leaves out (it passed every event of the
// kind to every subscription of that kind, which no public relay does).
const matches = (event, filter) => EventUtils.isMatchingFilter(event, filter) &&
  Object.entries(filter).every(([k, v]) => k[0] !== '#' || !Array.isArray(v) ||
    event.tags.some(t => t[0] === k.slice(1) && v.includes(t[1])));

// The fan-out: the event's text once, each matching subscription's frame around it.
relay.register({
  broadcast(event) {
    const text = JSON.stringify(event);
    for (const [ws, ctx] of relay.clientContexts) {
      if (ws.readyState !== 1) continue;
      ctx.subscriptions.forEach((filters, subId) => {
        if (filters.some(f => matches(event, f))) ws.send(`["EVENT",${JSON.stringify(subId)},${text}]`);
      });
    }
  },
});

const wss = new WebSocketServer({ host, port, maxPayload: MAX_MESSAGE_BYTES });
wss.on('connection', (ws, req) => {
  stats.connections += 1;
  const send = ws.send.bind(ws);
  ws.send = (data, ...rest) => { stats.sent += 1; return send(data, ...rest); };
  relay.handleConnection(ws, req.socket.remoteAddress);
  const bucket = { tokens: BURST, at: Date.now(), limited: false };
  ws.on('message', async data => {
    stats.received += 1;
    if (RATE > 0) {
      const now = Date.now();
      bucket.tokens = Math.min(BURST, bucket.tokens + ((now - bucket.at) / 1000) * RATE);
      bucket.at = now;
      if (bucket.tokens < 1) {
        stats.limited += 1;
        if (!bucket.limited) stats.limited_connections += 1;
        bucket.limited = true;
        // Only the id is read (no parse of the rest, no signature check).
        const id = /^\s*\[\s*"EVENT"\s*,\s*\{.*?"id"\s*:\s*"([0-9a-f]{64})"/s.exec(String(data).slice(0, 2048));
        ws.send(JSON.stringify(id ? ['OK', id[1], false, 'rate-limited: slow down'] : ['NOTICE', 'rate-limited: slow down']));
        return;
      }
      bucket.tokens -= 1;
    }
    if (DELAY_MS > 0) await new Promise(resolve => setTimeout(resolve, DELAY_MS));
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
process.on('SIGUSR2', () => {
  const cpu = process.cpuUsage();
  stats.cpu_s = (cpu.user + cpu.system) / 1e6;
  console.log(`stats ${JSON.stringify(stats)}`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { wss.close(); process.exit(0); });
