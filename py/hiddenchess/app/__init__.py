"""The page's controller, pure Python: the :class:`~hiddenchess.app.session.Session` that turns
actions into JSON states (:mod:`~hiddenchess.app.state`), its play modes
(:mod:`~hiddenchess.app.modes`), the variants' page plug-ins (:mod:`~hiddenchess.app.panels`),
and the saved game in ``localStorage`` (:mod:`~hiddenchess.app.storage`,
:mod:`~hiddenchess.app.saving`)."""
