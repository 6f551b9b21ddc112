"""ReCAST: causal loop diagrams inferred from economics papers (Saklad et al., 2025).

Dataset: ``records`` (the row model), ``samples`` (a record and its derived fields), ``journals``
(journal from the URL), ``release`` (the published Parquet, read and written), ``statistics`` (Table 1
and card tables), ``build`` (the dataset's configs and card tables), ``dataset`` (load a built folder,
building it if missing). Task: ``prompts`` and ``parsing`` (generation and name-assisted prompts,
answer → graph), ``generation`` (one answer per sample with the formatting-correction fallback),
``task`` (``causal-datasets eval recast``) with its ``options``, ``scores``, ``summary``, ``analysis``
(the paper's analyses), ``estimates`` and ``view``. Scoring: ``judge`` (the LLM-as-a-judge),
``deterministic`` (exact and normalized name-based scores), ``metric`` (both over many predictions).
New papers: ``raw`` (PDF → sample pipeline).
"""
