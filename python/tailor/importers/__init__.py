"""Importers of other simulators' experiment files into tailor scenarios (``tailor import``)."""
