"""CLadder-pairs (DoVerifier's benchmark): the dataset's rows, generators and tasks, on the verifier of
:mod:`causal_datasets.docalc`.

Rows: :mod:`.cladder` (CLadder's files, expression pairs, hard negatives), :mod:`.synthetic` (pairs on
random DAGs), :mod:`.synthetic_latent` (identification queries under latent confounding), :mod:`.rows`
(the configs as typed records, sharded), :mod:`.quality` and :mod:`.statistics` (the card's findings and
tables). Tasks: :mod:`.task` (the estimand task: prompt, answer, scoring), :mod:`.paper_task` (DoVerifier's
own prompt), :mod:`.yes_no` (CLadder's question), :mod:`.judge` (the LLM judge), :mod:`.feedback` (App. H's
feedback). The builder is ``builders/cladder_pairs.py``, the runner :mod:`causal_datasets.runners.cladder_pairs`.
"""
