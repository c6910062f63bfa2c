"""Hidden Identity Chess (hidden-identity-chess.txt): free setup, identities hidden, capture the
king; with the "revealed kings" and "tabletop rules" options as variants of their own.

Plug-ins: ``rules`` (placement, views), ``position`` (movement), ``knowledge`` (what public
information proves: candidates), ``tabletop`` (illegal moves punished when
found), ``ai`` (sampling arrangements), ``peer`` (the opponent's identities as assumed)."""

from hiddenchess.engine.variant import derive, get_variant, register_variant

STANDARD = get_variant("standard")

HIDDEN_IDENTITY = register_variant(derive(
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
    rules="hiddenchess.variants.hidden_identity.rules:HiddenIdentityRules",
    hidden_identity=True,
    position_class="hiddenchess.variants.hidden_identity.position:HiddenIdentityPosition",
    package="hidden_identity",
))


#: The "revealed kings" option of Hidden Identity Chess, as a variant of its own so that records,
#: links and menus keep it: both kings are visible to both sides from the first move.
HIDDEN_IDENTITY_RK = register_variant(derive(
    HIDDEN_IDENTITY,
    id="hidden-identity-rk",
    name="Hidden Identity (revealed kings)",
    summary="Hidden Identity Chess where both kings are visible to both sides.",
    pgn_name="Hidden Identity (revealed kings)",
    revealed_kings=True,
))


#: Hidden Identity Chess under "tabletop rules" (see :mod:`hiddenchess.variants.hidden_identity.tabletop`): a player may
#: move a piece illegally; the program discovers it the way the rules say and applies the penalty.
HIDDEN_IDENTITY_TT = register_variant(derive(
    HIDDEN_IDENTITY,
    id="hidden-identity-tt",
    name="Hidden Identity (tabletop rules)",
    summary="Hidden Identity Chess where illegal moves are allowed but punished when found.",
    pgn_name="Hidden Identity (tabletop rules)",
    rules="hiddenchess.variants.hidden_identity.tabletop:TabletopRules",
    tabletop=True,
))


HIDDEN_IDENTITY_RK_TT = register_variant(derive(
    HIDDEN_IDENTITY_TT,
    id="hidden-identity-rk-tt",
    name="Hidden Identity (revealed kings, tabletop rules)",
    summary="Hidden Identity Chess with revealed kings, illegal moves allowed but punished.",
    pgn_name="Hidden Identity (revealed kings, tabletop rules)",
    revealed_kings=True,
))
