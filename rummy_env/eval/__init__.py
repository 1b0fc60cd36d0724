"""Tournaments: agents against each other over duplicate deals, with confidence intervals,
ratings, reports, replayable game records, resumable runs, local or Ray workers.
Generic over the game registry: any registered game, in pairs or at tables.
Entry point: ``rummy tournament`` (``rummy_env.eval.tournament.run``)."""
