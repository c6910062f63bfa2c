"""Variants as documented data with inheritance, plus a few hooks.

A :class:`Variant` is a frozen record of *what differs* from its parent, in the spirit of
Fairy-Stockfish's ``variants.ini``. Move generation reads these fields; it never asks for a
variant by name.

Each variant lives in its own folder, ``hiddenchess/variants/<package>/``: its ``__init__.py``
registers the data with :func:`register_variant`, and the frameworks load the rest of the
folder's plug-ins by name when they first need them (:func:`load_plugin`): ``rules`` (engine
hooks), ``ai`` (the computer's determinizer), ``peer`` (protocol hooks), ``panel`` (what the
page shows). No framework names a variant.

>>> v = get_variant("royal-pawn")
>>> v.parent, v.royal, v.royal_start_squares
('standard', 'pawn', ('e2', 'e7'))
>>> get_variant("standard").royal
'king'
"""

import importlib
from dataclasses import dataclass, replace

from hiddenchess.errors import UnknownVariantError

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
    #: Folder under ``hiddenchess/variants/`` holding this variant's plug-ins (inherited).
    package: str = "standard"
    #: Starting position (extended FEN, see :mod:`hiddenchess.engine.notation`).
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
    #: on its own first rank (it steps one square from there), and any Pawn on its home pawn rank
    #: may double-step, whatever it did before; the position carries each side's reveal pool
    #: (FEN ``pools:``).
    covers: bool = False
    #: ``"module:Class"`` naming the :class:`hiddenchess.game.rules.Rules` subclass with this
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
    #: move is punished when discovered (:mod:`hiddenchess.variants.hidden_identity.tabletop`). Refereed otherwise.
    tabletop: bool = False
    #: ``"module:Class"`` naming the :class:`hiddenchess.engine.position.Position` subclass this variant
    #: plays on; ``None``: :class:`~hiddenchess.engine.position.Position` itself.
    position_class: "str | None" = None


def derive(parent: Variant, **changes) -> Variant:
    """A new variant that inherits every field of ``parent`` except ``changes``."""
    return replace(parent, parent=parent.id, **changes)


#: Every registered variant by id, in registration order (``hiddenchess.variants`` fills it).
VARIANTS: dict = {}


def register_variant(variant: Variant) -> Variant:
    """Add ``variant`` to :data:`VARIANTS` (a test may register its own); returns it."""
    VARIANTS[variant.id] = variant
    return variant


def load_plugin(variant, kind: str):
    """The module ``hiddenchess.variants.<package>.<kind>`` of ``variant``, imported on first use
    (importing it registers its hooks), or ``None`` when the variant's folder has no such file.

    >>> load_plugin(get_variant("standard"), "ai") is None
    True
    """
    name = f"hiddenchess.variants.{get_variant(variant).package}.{kind}"
    if name in _NO_PLUGIN:
        return None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        _NO_PLUGIN.add(name)  # (the search of the import path is not repeated on every call)
        return None


#: Plug-in module names :func:`load_plugin` found missing.
_NO_PLUGIN: set = set()


def load_object(spec: str):
    """The object a ``"module:Name"`` string names (:attr:`Variant.rules`,
    :attr:`Variant.position_class`), its module imported on first use.

    >>> load_object("hiddenchess.engine.variant:derive") is derive
    True
    """
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def get_variant(variant_id) -> Variant:
    """The variant with that id; a :class:`Variant` passes through. Raises UnknownVariantError."""
    if isinstance(variant_id, Variant):
        return variant_id
    try:
        return VARIANTS[variant_id]
    except (KeyError, TypeError):
        known = ", ".join(sorted(VARIANTS))
        raise UnknownVariantError(f"{variant_id!r} (known: {known})") from None
