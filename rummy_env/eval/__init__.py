"""Tournaments: agents against each other over duplicate deals, with confidence intervals,
ratings, reports, replayable game records, resumable runs, local or Ray workers.
Entry point: ``rummy tournament`` (``eval.tournament.run``)."""
