"""The computer opponent in Hidden Identity Chess (``hidden-identity``, ``hidden-identity-rk``).

The determinizer reads only the view of the computer's seat (``Game.view(seat).to_json()``):
its own pieces (``secrets.own``), the squares of the enemy pieces with the roles each may still
have (``secrets.candidates``, i.e. :func:`hiddenchess.variants.hidden_identity.rules.candidates`, derived from
public information only), the revealed captures (``secrets.captured``), the public move list
and events, and the view FEN's side to move, en passant square and counters. Nothing else is
consulted, so two games that look the same from the computer's seat get the same move for the
same seed (it never peeks).

Sampling (:func:`sample_identities`)
------------------------------------
Each enemy piece gets an identity from its candidates such that the counts work out: the
*pool* is K Q R R B B N N + eight pawns minus the revealed captured pieces (a captured piece
beyond the original number, e.g. a second queen, was a promoted pawn and is taken from the
pawns). Squares are filled most-constrained first (ties in random order), each drawing a role
from the pool with probability proportional to how many of it are left, among the roles its
candidates allow -- a random permutation of the pool restricted to the candidates. A square
none of whose candidate roles is left in the pool may hold a promoted pawn (a pool pawn becomes
one of its candidate roles). A draw that leaves the king unplaced is thrown away and redrawn
(rejection sampling), so the samples are close to uniform over the arrangements consistent
with the view. Level 5 weighs the draws with a model of a sensible setup,
:func:`placement_prior` (a piece that started on the first row is the likelier king, one from
the second row rarely is, never exclusively: the candidates always rule), so the samples favour
the arrangements a real player makes. :data:`SAMPLES` distinct arrangements are searched (fewer
when fewer exist) and the computer plays the move with the best mean expected result
(:func:`hiddenchess.ai.choose_move`, :func:`hiddenchess.ai.combine_scores`).

Wary of hidden attacks (:func:`threat_roles`, :func:`wary_weights`): when an enemy piece of open
identity could, as one of its candidate roles, take a piece of the computer's (not a pawn or king)
where it stands or where it can go, up to :data:`MAX_SAMPLES` samples are searched so that each
such piece is such a role in one of them (those threatening a piece where it stands first), and
the weights are raked so that it is one :data:`WARINESS` times as often as among
:data:`DRAWS` further draws -- as Secret Pawn does for a pawn that may be secret. With nothing
threatened, the samples weigh 1 each as before. Measured with ``bench/wary_hi.py``
(docs/BENCHMARKS.md).

Every sample keeps the computer's own pieces exactly as they are, so its legal moves are the
same in every sample (legality in a game without check depends only on its own pieces and the
occupied squares): the computer only ever plays legal moves of its true pieces. The sampled
enemy identities decide what the search expects of the replies -- and of an en passant capture
against a piece that may or may not be a pawn.

No check: kings may be left attacked, and the search (:class:`~hiddenchess.ai.search.Searcher`,
variants with ``royal == "none"``) scores a side whose king has been captured as lost, like a
checkmate, so the computer takes a king it can reach and guards its own (a king it cannot see is
guarded against in the samples where the enemy piece is one that attacks it). With revealed
kings (``hidden-identity-rk``) the enemy king's square is proven, so every sample puts it there.

Setup: :func:`choose_placement` arranges the computer's sixteen pieces: at random, but the way
a sensible player would (the king on the first row behind pawns, pawns mostly in front, the
queen never in front), differently in every game.

>>> import random
>>> from hiddenchess.game.game import Game
>>> from hiddenchess.variants.hidden_identity.rules import standard_layout
>>> g = Game.new("hidden-identity")
>>> _ = g.setup("white", "rnbqkbnr/pppppppp"); _ = g.setup("black", standard_layout("black"))
>>> _ = g.play("g1f3")
>>> samples = identity(g.view("black").to_json(), random.Random(1))
>>> len(samples), all(s.position.piece_type_at(21) == 2 for s in samples)   # f3 is a knight
(5, True)

(Five, not four: a knight of black's going to a6 or h6 could be taken by a piece from the second
row that is a bishop, rook or queen, so the samples are wary of that: :func:`wary_weights`.)
"""

import random
from collections import Counter

from hiddenchess.errors import HiddenChessError
from hiddenchess.engine.core import (
    BB_SQUARES, BLACK, COLOR_NAMES, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, SQUARE_INDEX,
    SQUARE_NAMES, WHITE, bishop_attacks, popcount, rook_attacks,
)
from hiddenchess.engine.position import move_from, move_to
from hiddenchess.variants.hidden_identity.knowledge import (
    KNOWLEDGE_KINDS, ROLE_COUNTS, ROLES, public_knowledge,
)
from hiddenchess.variants.hidden_identity.knowledge import candidates as _candidates
from hiddenchess.engine.notation import position_from_fen
from hiddenchess.engine.variant import get_variant
from hiddenchess.ai.determinizers import (
    InvalidViewError, Sample, register_determinizer, register_setup_chooser, view_field, view_seat,
)
from hiddenchess.ai.wariness import weigh

#: How many arrangements of the enemy identities are searched per move.
SAMPLES = 4
#: Draws tried per wanted sample before settling for the distinct ones found.
TRIES = 12
#: At most this many samples when more are needed so that every enemy piece of open identity
#: that could take a piece of the computer's as one of its candidate roles is that role in a
#: searched sample (:func:`wary_weights`).
MAX_SAMPLES = 6
#: Factor on the chance that such a piece is a role that attacks (1: the odds of the draws; more:
#: warier, capped at 0.95), as in Secret Pawn (``secret_pawn.ai.WARINESS``).
WARINESS = 2.0
#: Further draws that estimate those odds when a piece of open identity threatens.
DRAWS = 32
_SEATS = ("white", "black")
_PIECE_LETTER = {"king": "k", "queen": "q", "rook": "r", "bishop": "b", "knight": "n",
                 "pawn": "p"}


#: Weights of the king's file (a..h) on the first row: never a corner file, the centre most.
KING_FILE_WEIGHTS = (0, 2, 3, 3, 3, 3, 2, 0)
#: Weights of how many pawns (0, 1 or 2) stand on the first row, swapped with as many pieces.
BACK_PAWN_WEIGHTS = (6, 3, 1)
#: Pieces that may take a pawn's place on the second row, with weights (never the queen or the
#: king: on the second row a piece faces the enemy second row along open files and diagonals).
FRONT_PIECE_WEIGHTS = {"n": 4, "b": 2, "r": 1}
#: Chance of keeping a placement whose bishops stand on squares of the same colour (else it is
#: drawn again): rare, so that it stays possible.
SAME_COLOR_BISHOPS = 0.1


def choose_placement(seat: str, rng=None) -> dict:
    """The computer's setup in Hidden Identity Chess: an arrangement of its sixteen pieces on
    ``seat``'s home rows (``{"a1": "r", ...}``), drawn from ``rng`` (a :class:`random.Random`; a
    fresh one by default, so every game differs).

    Sensible, not fixed: the king stands on the first row on a file from b to g (central files
    more often), shielded by pawns on the three second-row squares in front of it; the other
    pawns mostly stand on the second row too (zero, one or two of them swap with a knight,
    bishop or rook, see :data:`BACK_PAWN_WEIGHTS`), so that few pieces face the enemy's second
    row along the open lines at the start; the queen never stands on the second row; the
    bishops usually stand on squares of different colours. Everything else is shuffled, so the
    opponent cannot tell the king from the rest by where it stands.

    >>> p = choose_placement("black", random.Random(2))
    >>> sorted(p.values()) == sorted("kqrrbbnn" + "p" * 8), all(s[1] in "78" for s in p)
    (True, True)
    >>> king = next(s for s, r in p.items() if r == "k")
    >>> king[1], [p[s] for s in p if s[1] == "7"].count("p") >= 6
    ('8', True)
    """
    if seat not in _SEATS:
        raise InvalidViewError(f"the computer places the pieces of white or black, not {seat!r}")
    rng = rng if rng is not None else random.Random()
    first, second = ("1", "2") if seat == "white" else ("8", "7")
    files = "abcdefgh"
    while True:
        king = rng.choices(range(8), weights=KING_FILE_WEIGHTS)[0]
        swaps = rng.choices(range(3), weights=BACK_PAWN_WEIGHTS)[0]
        pieces = ["q", "r", "r", "b", "b", "n", "n"]
        front = []
        for _ in range(swaps):
            pick = rng.choices(pieces, weights=[FRONT_PIECE_WEIGHTS.get(r, 0) for r in pieces])[0]
            pieces.remove(pick)
            front.append(pick)
        open_files = [f for f in range(8) if abs(f - king) > 1]
        placement = {files[f] + second: "p" for f in range(8)}
        for f, role in zip(rng.sample(open_files, swaps), front):
            placement[files[f] + second] = role
        back = pieces + ["p"] * swaps
        rng.shuffle(back)
        back.insert(king, "k")
        placement.update({files[f] + first: role for f, role in enumerate(back)})
        shades = {(files.index(s[0]) + int(s[1])) % 2 for s, r in placement.items() if r == "b"}
        if len(shades) == 2 or rng.random() < SAME_COLOR_BISHOPS:
            return dict(sorted(placement.items(), key=lambda item: SQUARE_INDEX[item[0]]))


def enemy_pool(captured, enemy: str) -> Counter:
    """The roles the ``enemy``'s pieces on the board have between them: K Q R R B B N N and
    eight pawns minus its revealed captured pieces (``secrets.captured``); a captured piece
    beyond the original number was a promoted pawn.

    >>> sorted(enemy_pool([{"color": "white", "piece": "queen"},
    ...                    {"color": "white", "piece": "queen"}], "white").items())
    [('b', 2), ('k', 1), ('n', 2), ('p', 7), ('q', 0), ('r', 2)]
    """
    pool = Counter(ROLE_COUNTS)
    for c in captured or []:
        if not isinstance(c, dict) or c.get("color") != enemy:
            continue
        role = _PIECE_LETTER.get(c.get("piece"))
        if role is None:
            raise InvalidViewError(f"bad captured piece {c!r}")
        if pool[role] > 0:
            pool[role] -= 1
        elif pool["p"] > 0:
            pool["p"] -= 1  # a promoted pawn
    return pool


#: Prior on the opponent's setup (:func:`placement_prior`): how much likelier (or less likely)
#: than the pool's counts alone a role is for a piece that started on the opponent's first or
#: second row. A sensible player puts the king on the first row, not in a corner, behind pawns,
#: and keeps the queen off the second row (see :func:`choose_placement`); the factors are soft, so
#: an unusual arrangement stays possible and the candidates (what the moves proved) always rule.
PLACEMENT_PRIOR = {
    "first": {"k": 1.0, "p": 0.2},
    "first-corner": {"k": 0.25, "p": 0.2},
    "second": {"k": 0.05, "q": 0.3},
}


def placement_prior(view, enemy: str) -> dict:
    """``{square: {role: factor}}`` for the enemy pieces on the board: the factors of
    :data:`PLACEMENT_PRIOR` chosen by the square each piece *started* on (followed through the
    public move history, as :func:`hiddenchess.variants.hidden_identity.rules.candidates` does). Public
    information only; pieces that started elsewhere (a game set up from a FEN) get no factor.

    >>> from hiddenchess.game.game import Game
    >>> from hiddenchess.variants.hidden_identity.rules import standard_layout
    >>> g = Game.new("hidden-identity")
    >>> _ = g.setup("white", "rnbqkbnr/pppppppp"); _ = g.setup("black", standard_layout("black"))
    >>> _ = g.play("e2e4")
    >>> prior = placement_prior(g.view("black").to_json(), "white")
    >>> prior["e4"]["k"], prior["e1"]["k"], prior["a1"]["k"]
    (0.05, 1.0, 0.25)
    """
    secrets = view.get("secrets") or {}
    start = secrets.get("start")
    if not isinstance(start, dict):
        return {}
    moves = [e for ply in view.get("events") or [] for e in ply
             if isinstance(e, dict) and e.get("kind") in KNOWLEDGE_KINDS]
    try:
        know = public_knowledge(start, secrets.get("kings") or {}, moves)
    except (HiddenChessError, KeyError, TypeError, ValueError):
        return {}
    origins = [sq for color in (WHITE, BLACK) for sq in start.get(COLOR_NAMES[color], [])]
    first, second = ("1", "2") if enemy == "white" else ("8", "7")
    out = {}
    for square, pid in know["board"].items():
        origin = origins[pid]
        if know["pieces"][pid][0] != COLOR_NAMES.index(enemy):
            continue
        if origin[1] == first:
            factors = PLACEMENT_PRIOR["first-corner" if origin[0] in "ah" else "first"]
        elif origin[1] == second:
            factors = PLACEMENT_PRIOR["second"]
        else:
            continue
        out[SQUARE_NAMES[square]] = factors
    return out


def sample_identities(cands: dict, pool: Counter, rng, prior=None) -> "dict | None":
    """One arrangement ``{square: role}`` of the enemy pieces on the squares of ``cands``
    (``{square: [roles]}``), each role among its square's candidates, drawn from ``pool`` (see
    the module docstring); ``None`` when this draw failed (the caller draws again). ``prior``
    (optional, :func:`placement_prior`) multiplies a square's draw weights by its factors.

    >>> arr = sample_identities({"e1": ["k", "q"], "d1": ["k", "q"]},
    ...                         Counter({"k": 1, "q": 1}), random.Random(4))
    >>> sorted(arr.values())
    ['k', 'q']
    """
    left = Counter(pool)
    squares = sorted(cands)
    rng.shuffle(squares)
    squares.sort(key=lambda s: len(cands[s]))
    out = {}
    for sq in squares:
        roles = [r for r in cands[sq] if left[r] > 0]
        if roles:
            factors = prior.get(sq, {}) if prior else {}
            pick = rng.choices(roles, weights=[left[r] * factors.get(r, 1.0) for r in roles])[0]
            left[pick] -= 1
        else:
            promoted = [r for r in cands[sq] if r not in "kp"]
            if not promoted or left["p"] <= 0:
                return None
            pick = rng.choice(promoted)
            left["p"] -= 1
        out[sq] = pick
    if pool["k"] and "k" not in out.values():
        return None
    return out


def _unmoved(view) -> set:
    """Squares of pieces that have not moved yet (public: moves are shown by their squares)."""
    secrets = view.get("secrets") or {}
    start = secrets.get("start") or {}
    unmoved = set(start.get("white", [])) | set(start.get("black", []))
    for ply in view.get("events") or []:
        for e in ply:
            if not isinstance(e, dict) or e.get("kind") != "move":
                continue
            unmoved.discard(e.get("from"))
            unmoved.discard(e.get("to"))
            for sq in e.get("castle") or []:
                unmoved.discard(sq)
    return unmoved


def _fen_of(view, own: dict, own_color: int, enemy: dict) -> str:
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            name = SQUARE_NAMES[rank * 8 + file]
            if name in own:
                letter = own[name].upper() if own_color == WHITE else own[name].lower()
            elif name in enemy:
                letter = enemy[name].lower() if own_color == WHITE else enemy[name].upper()
            else:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += letter
        rows.append(row + (str(empty) if empty else ""))
    fields = view_field(view, "fen").split()
    if len(fields) < 6:
        raise InvalidViewError(f"the view's FEN has too few fields: {view['fen']!r}")
    occupied = set(own) | set(enemy)
    unmoved = sorted((s for s in _unmoved(view) if s in occupied), key=SQUARE_INDEX.get)
    text = " ".join(["/".join(rows), fields[1], "-", fields[3], fields[4], fields[5]])
    if unmoved:
        text += " unmoved:" + ",".join(unmoved)
    return text


@register_setup_chooser("hidden-identity")
@register_setup_chooser("hidden-identity-rk")
def setup_choice(view, rng=None) -> dict:
    """The computer's setup for the seat of ``view``: ``{"placement": choose_placement(seat)}``."""
    return {"placement": choose_placement(view_seat(view), rng)}


@register_determinizer("hidden-identity")
@register_determinizer("hidden-identity-rk")
def identity(view, rng, prior=True) -> list:
    """Hidden Identity Chess: up to :data:`SAMPLES` full positions, one per distinct sampled
    arrangement of the enemy identities, each of weight 1 (see the module docstring); with
    ``prior`` the draws follow :func:`placement_prior`, else the pool's counts alone."""
    seat = view_seat(view)
    if view.get("phase") == "setup" or view.get("setup_pending"):
        raise InvalidViewError("the pieces are not placed yet (see choose_placement)")
    variant = get_variant(view_field(view, "variant"))
    secrets = view_field(view, "secrets")
    if not isinstance(secrets, dict) or not isinstance(secrets.get("own"), dict):
        raise InvalidViewError("the view has no 'secrets.own' (the seat's own pieces)")
    own = {sq: str(r).lower() for sq, r in secrets["own"].items()}
    cands = secrets.get("candidates")
    if not isinstance(cands, dict):
        cands = _candidates(view)
    enemy_name = "black" if seat == "white" else "white"
    cands = {sq: [r for r in roles if r in ROLES] for sq, roles in cands.items()
             if sq in SQUARE_INDEX and sq not in own}
    if any(not roles for roles in cands.values()):
        raise InvalidViewError("an enemy piece has no possible identity")
    pool = enemy_pool(secrets.get("captured"), enemy_name)
    prior = placement_prior(view, enemy_name) if prior else None
    own_color = WHITE if seat == "white" else BLACK
    turn = view.get("turn")
    found, seen = [], set()
    for _ in range(SAMPLES * TRIES):
        arrangement = sample_identities(cands, pool, rng, prior)
        if arrangement is None:
            continue
        key = tuple(sorted(arrangement.items()))
        if key in seen:
            continue
        seen.add(key)
        found.append(arrangement)
        if len(found) == SAMPLES:
            break
    if not found:
        raise InvalidViewError("no arrangement of the enemy pieces fits this view")
    weights = [1.0] * len(found)
    first = position_from_fen(_fen_of(view, own, own_color, found[0]), variant)
    threats = threat_roles(first, cands)
    if threats:
        urgent = threat_roles(first, cands, reach=False)
        found, weights = wary_weights(found, threats, cands, pool, rng, prior, urgent)
    samples = []
    for arrangement, weight in zip(found, weights):
        pos = position_from_fen(_fen_of(view, own, own_color, arrangement), variant)
        if turn is not None and turn != COLOR_NAMES[pos.turn]:
            raise InvalidViewError(f"the view says {turn} to move but its FEN disagrees")
        samples.append(Sample(pos, [], weight))
    return samples


# --- wary of hidden attacks ----------------------------------------------------------------------
def _role_attacks(role: str, sq: int, color: int, occ: int) -> int:
    if role == "p":
        return PAWN_ATTACKS[color][sq]
    if role == "n":
        return KNIGHT_ATTACKS[sq]
    if role == "k":
        return KING_ATTACKS[sq]
    out = 0
    if role in "bq":
        out |= bishop_attacks(sq, occ)
    if role in "rq":
        out |= rook_attacks(sq, occ)
    return out


def threat_roles(pos, cands: dict, reach: bool = True) -> dict:
    """``{square: roles}`` for the enemy pieces of open identity (several candidates in
    ``cands``) in ``pos`` (a sample, the computer to move): the candidate roles that from the
    piece's square attack a square where a piece of the computer's (not a pawn or king) stands
    or (with ``reach``) can go with a legal move -- the roles that could take it right after the
    computer's move.

    >>> from hiddenchess.engine.notation import position_from_fen
    >>> from hiddenchess.engine.variant import get_variant
    >>> hi = get_variant("hidden-identity")
    >>> threat_roles(position_from_fen("4k3/8/8/8/8/8/8/4K2N w - - 0 1", hi), {"e8": ["k", "b"]})
    {}
    >>> threat_roles(position_from_fen("4k3/8/8/8/1N6/8/8/4K3 w - - 0 1", hi), {"e8": ["k", "b"]})
    {'e8': ['b']}

    (The knight on b4 can go to c6, on the diagonal of a bishop on e8; from h1 it cannot.)
    """
    us = pos.white if pos.turn == WHITE else pos.black
    targets = us & ~pos.pawns & ~pos.kings
    if not targets:
        return {}
    for m in pos.legal_moves() if reach else ():
        if BB_SQUARES[move_from(m)] & targets:
            targets |= BB_SQUARES[move_to(m)]
    occ = pos.white | pos.black
    out = {}
    for name, roles in cands.items():
        if len(roles) < 2:
            continue
        sq = SQUARE_INDEX[name]
        hits = [r for r in roles if _role_attacks(r, sq, pos.turn ^ 1, occ) & targets]
        if hits:
            out[name] = hits
    return out


def wary_weights(found: list, threats: dict, cands: dict, pool: Counter, rng, prior=None,
                 urgent=None):
    """The arrangements to search and their weights, wary of the pieces in ``threats`` (see
    :func:`threat_roles`): ``found`` (the distinct draws) plus, up to :data:`MAX_SAMPLES`, draws
    in which threatening pieces that no chosen arrangement makes a threatening role are one (of
    :data:`DRAWS` further draws, each time the one that covers most, ``urgent`` first (like
    ``threats``, the roles that threaten a piece where it stands); a draw restricted to a piece's
    threatening roles when none of them has it). The odds
    are estimated from those draws; each chosen arrangement weighs the share of the draws nearest
    it (in which threatening pieces are threatening roles), then the weights are raked so that
    each threatening piece is a threatening role :data:`WARINESS` times as often as its odds
    (at most 0.95; when that cannot be met for all, the odds as they are). Weights average 1.

    >>> found = [{"e8": "k", "d8": "b"}]
    >>> arr, w = wary_weights(found, {"d8": ["b"], "e8": ["b"]}, {"e8": ["k", "b"], "d8": ["k", "b"]},
    ...                       Counter({"k": 1, "b": 1}), random.Random(3))
    >>> sorted(a["e8"] for a in arr), [round(x, 2) for x in w]
    (['b', 'k'], [1.0, 1.0])
    """
    roles = [(n, tuple(r)) for n, r in sorted((urgent or {}).items())]
    roles += [(n, tuple(r)) for n, r in sorted(threats.items()) if (n, tuple(r)) not in roles]
    names = list(range(len(roles)))
    bit = [1 << i for i in names]
    exposed = (1 << len(names)) - 1
    first = sum(1 << i for i in range(len(urgent or {})))

    def key(arrangement):
        return sum(bit[i] for i, (n, r) in enumerate(roles) if arrangement.get(n) in r)

    draws = []
    for _ in range(DRAWS * 3):
        arrangement = sample_identities(cands, pool, rng, prior)
        if arrangement is not None:
            draws.append(arrangement)
            if len(draws) == DRAWS:
                break
    chosen = list(found)
    seen = {tuple(sorted(a.items())) for a in chosen}
    covered = 0
    for a in chosen:
        covered |= key(a)
    while len(chosen) < MAX_SAMPLES and exposed & ~covered:
        fresh = [a for a in draws if tuple(sorted(a.items())) not in seen]
        pick = max(fresh, key=lambda a: (popcount(key(a) & first & ~covered),
                                         popcount(key(a) & ~covered)), default=None)
        if pick is None or not key(pick) & ~covered or (first & ~covered and
                                                         not key(pick) & first & ~covered):
            i = next(i for i in names if bit[i] & ~covered)
            narrowed = dict(cands, **{roles[i][0]: list(roles[i][1])})
            for _ in range(TRIES):
                pick = sample_identities(narrowed, pool, rng, prior)
                if pick is not None and tuple(sorted(pick.items())) not in seen:
                    break
                pick = None
            if pick is None:  # no arrangement makes it threatening: leave it
                covered |= bit[i]
                continue
        chosen.append(pick)
        seen.add(tuple(sorted(pick.items())))
        covered |= key(pick)
    keys = [key(a) for a in draws] or [key(a) for a in chosen]
    ckeys = [key(a) for a in chosen]
    share = [0.0] * len(chosen)
    for k in keys:
        near = min(popcount(k ^ c) for c in ckeys)
        ties = [i for i, c in enumerate(ckeys) if popcount(k ^ c) == near]
        for i in ties:
            share[i] += 1.0 / len(ties)
    # A chosen arrangement nearest to no draw (a rare one) still counts for a little.
    floor = 0.5 / len(keys)
    picks = [[c, max(w, floor)] for c, w in zip(ckeys, share)]
    return chosen, weigh(picks, keys, first or exposed, WARINESS, least=0.5)


__all__ = [
    "DRAWS", "KING_FILE_WEIGHTS", "MAX_SAMPLES", "PLACEMENT_PRIOR", "SAMPLES", "WARINESS",
    "choose_placement", "enemy_pool", "identity", "placement_prior", "sample_identities",
    "threat_roles", "wary_weights",
]
