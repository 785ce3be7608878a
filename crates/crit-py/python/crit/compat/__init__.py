"""Drop-in facades for the Python tools crit replaces: ``crit.compat.reldo``
(Reldo's library) and ``crit.compat.mala`` (mala's code reviewer)."""
