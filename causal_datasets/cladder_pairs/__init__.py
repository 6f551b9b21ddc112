"""CLadder-pairs (DoVerifier's benchmark): the dataset's rows, generators and tasks, on the verifier of
:mod:`causal_datasets.docalc`.

Rows: :mod:`.records` (the configs' row types), :mod:`.cladder` (CLadder's files, expression pairs, hard
negatives), :mod:`.synthetic` (pairs on random DAGs), :mod:`.synthetic_latent` (identification queries under
latent confounding), :mod:`.rows` (the configs as typed records, sharded), :mod:`.quality` and
:mod:`.statistics` (the card's findings and tables), :mod:`.build` (the build and the card's context; the
Hub's ``builders/cladder_pairs.py`` declares it). Prompts and answers: :mod:`.estimand_task` (the estimand
task: prompt, answer, scoring), :mod:`.paper_task` (DoVerifier's own prompt), :mod:`.yes_no` (CLadder's
question), :mod:`.judge` (the LLM judge), :mod:`.feedback` (App. H's diagnosis). ``causal-datasets eval
cladder_pairs``: :mod:`.task` (the ``TASK``) on :mod:`.options`, :mod:`.replies` (one reply read and scored),
:mod:`.generation` (``solve`` and the feedback loop), :mod:`.scores` (``score``) and :mod:`.metrics` (the
tables).
"""
