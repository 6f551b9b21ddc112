"""CausaLab: interactive SCM discovery with crystals.

One concern per module: ``records`` (the dataset's row models), ``properties`` (names and aliases),
``mechanism`` (structural equations), ``crystals`` (seeded crystal bases, assembling an episode),
``suites`` (the 19 suite families), ``generator`` (seeded episodes) and ``upstream`` (the authors'
release, both ways), ``build`` (the dataset's configs and card tables), ``quality`` and ``statistics``
(findings and card tables), ``regimes`` (interaction regimes and scaling settings), ``lab`` (the
environment), ``episode`` (the loop every agent and model goes through, and its result), ``dsl`` (step
models and tolerant parser), ``formula`` (coefficient names, safe equation evaluation), ``metrics``
(mechanism scoring, the ``causalab_mechanism`` metric), ``experimenter`` and ``random_agent`` (reference
agents), ``prompts`` and ``llm_agent`` (the chat-model protocol).

The ``eval`` task: ``task`` (``TASK`` and its items), ``options`` (its options), ``play`` (an item played
by an agent or model), ``scores`` (one episode scored), ``summary`` (a run's metrics), ``estimates``
(their uncertainty), ``view`` (the report's figures), ``sweep`` (the scaling experiments);
``upstream_run`` (reading an authors' run folder) and ``upstream_scores`` (scoring those runs as a run).
"""
