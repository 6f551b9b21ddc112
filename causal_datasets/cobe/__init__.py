"""CoBe: conversational counterfactual text editing, the whole benchmark in one package.

The dataset: ``records`` (the row models), ``labels`` (domain / graph-type / phrasing vocabularies),
``formats`` (paper JSON and website JSON → records), ``quality`` (data-quality checks), ``dataset``
(the configs and the card's tables), ``statistics`` (Table 2 text figures), ``build`` (the builder's
work). Judging: ``prompts`` (what the model and the judge are sent), ``judge`` (one T/F judge call per
criterion, validated and retried), ``failure_modes`` (the seven failure modes of a wrong rewrite),
``scoring`` (accuracy, failure rates, breakdowns, agreement with reference verdicts), ``metric`` (the
``cobe_edit_criteria`` metric). ``eval cobe``: ``task`` (the task), ``options``, ``scores`` (what a run
stores per item), ``summary``, ``estimates`` and ``view``. The paper's construction (§3.1, ``build cobe
--construct``): ``construct`` (the pipeline and its resumable journal), ``variation_prompts`` (the
generator's request and reply), ``verify`` (which variations are kept), ``constructed`` (a construction
folder as the builder's source), ``construct_args`` (its command-line flags).
"""
