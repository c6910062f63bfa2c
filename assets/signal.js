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

import {
  SETTINGS_KEY, TOKENS_KEY, TAKEN_MESSAGE, validateSettings, getSettings, setSettings, enabled, describe,
  peerIdFor, peerFromHash, linkParams, fromHash, forget,
} from './js/signal/settings.js';
import { LIBRARY_URL, loadLibrary, host, join, probe } from './js/signal/channels.js';
import { mountSettings } from './js/signal/form.js';

// The page's slot (index.html, in the new-game dialog's friend options), if there is one.
mountSettings(document.getElementById("signal-settings"));

const HCSignal = Object.freeze({
  SETTINGS_KEY, TOKENS_KEY, TAKEN_MESSAGE, LIBRARY_URL,
  validateSettings, getSettings, setSettings, enabled, describe,
  peerIdFor, peerFromHash, linkParams, fromHash, forget, loadLibrary, host, join, probe, mountSettings,
});

window.HCSignal = HCSignal;
export default HCSignal;
