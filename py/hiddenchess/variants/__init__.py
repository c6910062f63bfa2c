"""The variants: one folder each, holding everything specific to it (see ``docs/ARCHITECTURE.md``
and ``docs/ADDING_A_VARIANT.md``). Importing this package registers them all, in menu order.
Standard comes first: the others derive from it.
"""

from hiddenchess.variants import standard  # noqa: F401  (registers "standard")
from hiddenchess.variants import royal_pawn, secret_pawn, reveal, hidden_identity  # noqa: F401
