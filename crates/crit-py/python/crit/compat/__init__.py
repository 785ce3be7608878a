"""Drop-in facades for the Python tools crit replaces: ``crit.compat.reldo``
(Reldo's library), ``crit.compat.mala`` (mala's code reviewer) and
``crit.compat.squadron`` (the review templates' ``orchestration.review``)."""
