"""Variants as documented data with inheritance, plus a few hooks.

A :class:`Variant` is a frozen record of *what differs* from its parent, in the spirit of
Fairy-Stockfish's ``variants.ini``. Move generation reads these fields; it never asks for a
variant by name. The hidden-information variants add their own fields and hooks when they land
(secret pawns, covers, hidden identities): the position already carries the bitboards they need.

>>> v = get_variant("royal-pawn")
>>> v.parent, v.royal, v.royal_start_squares
('standard', 'pawn', ('e2', 'e7'))
>>> get_variant("standard").royal
'king'
"""

from dataclasses import dataclass, replace

from .errors import UnknownVariantError

STANDARD_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@dataclass(frozen=True)
class Variant:
    """What defines a variant. Every field is documented; derive new variants with :func:`derive`."""

    #: Stable id used in URLs, records and the command line.
    id: str
    #: Name shown to players.
    name: str
    #: One-line summary for menus.
    summary: str
    #: Id of the variant this one modifies (``None`` for standard chess).
    parent: "str | None" = None
    #: Starting position (extended FEN, see :mod:`hiddenchess.notation`).
    start_fen: str = STANDARD_START
    #: Which piece must not be left attacked: ``"king"`` (ordinary chess), ``"pawn"`` (a royal pawn
    #: that starts on one of :attr:`royal_start_squares`), or ``"none"`` (capture-the-king variants).
    royal: str = "king"
    #: Start squares of royal pieces when they are not the kings.
    royal_start_squares: tuple = ()
    #: A royal pawn that reaches its last rank wins at once (and does not promote).
    royal_promotion_wins: bool = False
    #: A royal pawn may not double-step over an attacked square nor land next to an enemy pawn
    #: that could take it en passant.
    royal_double_step_checks: bool = False
    #: Castling ignores attacks on the king's start, transit and destination squares (the king is
    #: not royal). The royal piece must still be safe afterwards.
    castle_through_attack: bool = False
    #: The insufficient-material positions listed in secret-pawn-chess.txt end the game at once.
    automatic_insufficient_material: bool = True
    #: PGN ``Variant`` tag.
    pgn_name: "str | None" = None
    #: Names of extended-FEN fields this variant writes (documented in notation.py).
    fen_extensions: tuple = ()
    #: Reveal Chess covers: pieces on the ``covered`` bitboard stand on their own side's standard
    #: start squares as that square's piece; a non-pawn cover arriving on the last rank carries a
    #: conditional promotion choice (applied only if it reveals a Pawn); a revealed pawn may stand
    #: on its own first rank; the position carries each side's reveal pool (FEN ``pools:``).
    covers: bool = False
    #: ``"module:Class"`` naming the :class:`hiddenchess.rules.Rules` subclass with this
    #: variant's hooks (setup phase, reveals, views); ``None``: the hooks of ordinary chess.
    rules: "str | None" = None
    #: Hidden Identity Chess: each side places its pieces freely on its two home rows; pawns may
    #: stand on (and double-step from) their first or second row; any two-square straight advance
    #: from those rows may be taken en passant; castling is free-form and the position's
    #: ``castling`` bitboard holds the pieces that have never moved (FEN ``unmoved:``).
    hidden_identity: bool = False
    #: Hidden Identity Chess option: both kings are visible to both sides from the start.
    revealed_kings: bool = False
    #: Hidden Identity Chess option "tabletop rules": a player may move a piece illegally; the
    #: move is punished when discovered (:mod:`hiddenchess.tabletop`). Refereed otherwise.
    tabletop: bool = False
    #: ``"module:Class"`` naming the :class:`hiddenchess.position.Position` subclass this variant
    #: plays on; ``None``: :class:`~hiddenchess.position.Position` itself.
    position_class: "str | None" = None


def derive(parent: Variant, **changes) -> Variant:
    """A new variant that inherits every field of ``parent`` except ``changes``."""
    return replace(parent, parent=parent.id, **changes)


STANDARD = Variant(
    id="standard",
    name="Standard",
    summary="Ordinary chess: the base every variant modifies.",
    pgn_name="Standard",
)

ROYAL_PAWN = derive(
    STANDARD,
    id="royal-pawn",
    name="Royal Pawn",
    summary="The e-pawns are royal, the kings are not: checkmate or promote the royal pawn.",
    royal="pawn",
    royal_start_squares=("e2", "e7"),
    royal_promotion_wins=True,
    royal_double_step_checks=True,
    castle_through_attack=True,
    pgn_name="Royal Pawn",
    fen_extensions=("royal",),
)

SECRET_PAWN = derive(
    STANDARD,
    id="secret-pawn",
    name="Secret Pawn",
    summary="Seal two pawns that may also step or capture one square in any direction; "
            "they reveal on use.",
    pgn_name="Secret Pawn",
    fen_extensions=("secret", "revealed", "dbl"),
    rules="hiddenchess.secret_pawn:SecretPawnRules",
)

#: Reveal Chess: every piece but the king starts covered on its usual square.
REVEAL_START = (
    STANDARD_START + " covered:" + ",".join(
        f + r for r in "1278" for f in "abcdefgh" if not (f == "e" and r in "18")
    ) + " pools:q1r2b2n2p8/q1r2b2n2p8"
)

REVEAL = derive(
    STANDARD,
    id="reveal",
    name="Reveal",
    summary="All but the kings start covered: a cover moves as its square's piece once, then "
            "reveals a role drawn from its side's pool.",
    start_fen=REVEAL_START,
    covers=True,
    pgn_name="Reveal",
    fen_extensions=("covered", "pools"),
    rules="hiddenchess.reveal:RevealRules",
)

HIDDEN_IDENTITY = derive(
    STANDARD,
    id="hidden-identity",
    name="Hidden Identity",
    summary="Place your pieces freely on your two home rows; the opponent sees where they are, "
            "never what they are. No check: capture the king.",
    start_fen="8/8/8/8/8/8/8/8 w - - 0 1",
    royal="none",
    automatic_insufficient_material=False,
    pgn_name="Hidden Identity",
    fen_extensions=("unmoved",),
    rules="hiddenchess.hidden_identity:HiddenIdentityRules",
    hidden_identity=True,
    position_class="hiddenchess.hidden_identity:HiddenIdentityPosition",
)

#: The "revealed kings" option of Hidden Identity Chess, as a variant of its own so that records,
#: links and menus keep it: both kings are visible to both sides from the first move.
HIDDEN_IDENTITY_RK = derive(
    HIDDEN_IDENTITY,
    id="hidden-identity-rk",
    name="Hidden Identity (revealed kings)",
    summary="Hidden Identity Chess where both kings are visible to both sides.",
    pgn_name="Hidden Identity (revealed kings)",
    revealed_kings=True,
)

#: Hidden Identity Chess under "tabletop rules" (see :mod:`hiddenchess.tabletop`): a player may
#: move a piece illegally; the program discovers it the way the rules say and applies the penalty.
HIDDEN_IDENTITY_TT = derive(
    HIDDEN_IDENTITY,
    id="hidden-identity-tt",
    name="Hidden Identity (tabletop rules)",
    summary="Hidden Identity Chess where illegal moves are allowed but punished when found.",
    pgn_name="Hidden Identity (tabletop rules)",
    rules="hiddenchess.tabletop:TabletopRules",
    tabletop=True,
)

HIDDEN_IDENTITY_RK_TT = derive(
    HIDDEN_IDENTITY_TT,
    id="hidden-identity-rk-tt",
    name="Hidden Identity (revealed kings, tabletop rules)",
    summary="Hidden Identity Chess with revealed kings, illegal moves allowed but punished.",
    pgn_name="Hidden Identity (revealed kings, tabletop rules)",
    revealed_kings=True,
)

VARIANTS = {v.id: v for v in (STANDARD, ROYAL_PAWN, SECRET_PAWN, REVEAL, HIDDEN_IDENTITY,
                              HIDDEN_IDENTITY_RK, HIDDEN_IDENTITY_TT, HIDDEN_IDENTITY_RK_TT)}


def get_variant(variant_id) -> Variant:
    """The variant with that id; a :class:`Variant` passes through. Raises UnknownVariantError."""
    if isinstance(variant_id, Variant):
        return variant_id
    try:
        return VARIANTS[variant_id]
    except (KeyError, TypeError):
        known = ", ".join(sorted(VARIANTS))
        raise UnknownVariantError(f"{variant_id!r} (known: {known})") from None
