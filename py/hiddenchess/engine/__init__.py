"""The engine: squares and bitboards (:mod:`~hiddenchess.engine.core`), positions and legal move
generation (:mod:`~hiddenchess.engine.position`), FEN/SAN/UCI (:mod:`~hiddenchess.engine.notation`)
and variants as data with a registry (:mod:`~hiddenchess.engine.variant`). It knows nothing of
games, views, the page, the computer or peers."""
