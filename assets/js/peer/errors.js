// Hidden Chess -- peer codes: the errors a pasted code or link can have (assets/peer.js).

export class CodeError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'CodeError';
    this.kind = kind;
  }
}

export const MESSAGES = {
  mangled: 'This code is damaged: a character is missing or was changed. Copy it again, completely.',
  another: 'This code belongs to another invite (another game). Use the code made for this game.',
  stale:
    'This answer was made for an older invite link: this page was reloaded or a new link was made since. ' +
    'Send your friend the current link and paste the answer it gives.',
  used: 'This invite is already taken: a friend has joined with it, and a second answer cannot join the game.',
  answerNotOffer: 'This is an answer code, not an invite: paste it on the page that made the invite.',
  offerNotAnswer: 'This is an invite link or code, not an answer: your friend opens it and sends you back the answer.',
  // The two devices exchanged their connection set-up but no direct path between them worked
  // (symmetric NAT, carrier-grade NAT, a firewall that blocks UDP): only a TURN server helps.
  iceFailed: 'Your network blocks direct connections: add a TURN server, or play on the same network.',
};
