// Hidden Chess -- the variant panels, registered in this order (the order the page asks them:
// e.g. a click goes to the tabletop penalty before Hidden Identity's placement, and Hidden
// Identity's captured pieces before Secret Pawn's). A new variant adds its panel module here.

import './royal-pawn.js';
import './reveal.js';
import './tabletop.js';
import './hidden-identity.js';
import './secret-pawn.js';

export { panels, each, first, any } from './registry.js';
