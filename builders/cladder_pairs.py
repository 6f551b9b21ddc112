"""CLadder-pairs: causal expression pairs labeled by the do-calculus equivalence verifier.

Configs ``synthetic`` (expression pairs) and ``synthetic_latent`` (identification queries under latent
confounding, as chat requests) are generated from the seed (no source); configs ``cladder`` (expression
pairs), ``questions`` (the estimand task: one CLadder question per row), ``prompts`` (that
task's chat requests, exactly as ``causal-datasets eval cladder_pairs`` sends them) and
``yes_no_prompts`` (CLadder's own yes/no questions as chat requests) need the CLadder files
(``--source DIR``, or ``build --all --sources DIR`` with them in ``DIR/cladder``).

The dataset's declaration (configs, releases, card settings); the build and the card's tables are
:mod:`causal_datasets.cladder_pairs.build`.
"""

from __future__ import annotations

from causal_datasets.builder import BuildContext, BuildOutcome, DatasetBuilder, Release
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.cladder_pairs.build import CladderPairsBuildOptions, card_context
from causal_datasets.cladder_pairs.records import (
    CladderPair,
    CladderPromptRow,
    CladderQuestionRow,
    CladderYesNoPromptRow,
    SyntheticLatentRow,
    SyntheticPair,
)


def build(context: BuildContext) -> BuildOutcome:
    """:func:`causal_datasets.cladder_pairs.build.build`, told how to give this dataset's source."""
    return cladder_build.build(context, BUILDER.source_help())


BUILDER = DatasetBuilder(
    name="cladder_pairs",
    history=(
        Release("1.0.0", "First release."),
        Release("1.1.0", "Counterexample models drawn by the vectorized model families (labels unchanged)."),
        Release(
            "1.2.0",
            "CLadder's natural-effect formal forms read as nested counterfactuals (`Y_{X=1, V2_{X=0}}`), so their "
            "pairs "
            "with the mediation formulas are equivalent except under the arrowhead graph; composition rule in proofs; "
            "the `prompts` config shows the causal quantity in canonical notation.",
        ),
        Release(
            "1.3.0",
            "Synthetic pairs that repeat an earlier pair (same graph and expressions, all on 3-node graphs: 348 of "
            "20,000 "
            "with seed 0) are removed, the first kept under its id, so no pair is counted twice; the card lists them.",
        ),
        Release(
            "1.4.0",
            "The arrowhead stories say V2 is unobserved: their `cladder`, `questions` and `prompts` rows list it as "
            'latent (the requests said "Unobserved variables: none"). CLadder\'s arrowhead natural-effect estimands '
            "adjust for V2 (217 questions, listed under Data Quality): their pairs keep their labels (decided with "
            "every node modeled); the 107 hard negatives that adjust for V2 (estimands of neighbouring families) are "
            "dropped. The questions of the generator test files carry their story's causal relations (`background`, "
            "from their causal model) as the v1 questions do, so a model can draw the graph from the story "
            "(DoVerifier's own prompt).",
        ),
        Release(
            "1.5.0",
            "The synthetic config is generated in shards of 250 proved pairs (each shard's pairs, then its refuted "
            "mistakes), each shard from its own generator seeded by the seed and the shard index, so it can be built "
            "by any number of workers with the same rows and ids, and at any size (`--rows`). Same size and method "
            "as before (20,000 generated; 318 repeats removed with seed 0, leaving 9,829 proved pairs and 9,853 "
            "refuted mistakes), but different draws.",
        ),
        Release(
            "1.6.0",
            "Synthetic pairs that state the same identity as an earlier pair are removed too: the two sides swapped "
            "(18 with seed 0) or the same pair on a graph with one more isolated node that no expression names (1), "
            "leaving 9,810 proved pairs and 9,853 refuted mistakes. The card sets the synthetic statistics beside "
            "DoVerifier §4.1's and says which options reproduce which of the paper's tables.",
        ),
        Release(
            "1.7.0",
            "Training-ready prompts in TRL's format: the `prompts` rows carry their request as TRL's conversational "
            "`prompt` column (was `messages`, which GRPOTrainer does not read) and leave out the 217 arrowhead "
            "natural-effect questions whose CLadder estimand uses the unobserved V2, which `eval` does not ask and on "
            "which no identified estimand earns a reward (3,410 rows). New config `yes_no_prompts`: CLadder's own "
            "question with a request for a final yes/no line, for `cladder_answer_reward` (3,627 rows).",
        ),
        Release(
            "1.8.0",
            "The verifier no longer restricts latent causes to two values (a latent source gets as many as a pair "
            "needs) and computes terms by variable elimination: counterexample models of the families with latent "
            "nodes have sources with their own values, and counterexample values and estimand values differ in the "
            "last digits. The 81 hard negatives that paired the ATE with the IV ratio under the fork are dropped: "
            "the ratio divides by exactly 0 there (X does not depend on V2), so it is undefined, not refuted (its "
            "'counterexample' was rounding noise). Every other label, proof and row is unchanged.",
        ),
        Release(
            "1.9.0",
            "New config `synthetic_latent`: 2,000 identification queries `P(Y | do(X))` (some conditional) on random "
            "graphs of 4–8 nodes with latent confounding, as chat requests, each with the estimand that `identify` "
            "derives (every step checked) or the hedge that proves it is not identifiable; `identify_reward` scores a "
            "reply from the query and the graph alone. Every other row is unchanged.",
        ),
        Release(
            "1.10.0",
            'The verifier decides "equivalent" in exact arithmetic on random models whose probabilities lie on a '
            "binary grid (no float tolerance can make two different numbers equal): the `counterexample_json` of "
            "9,853 `synthetic` rows shows its model's probabilities as those grid values (e.g. 0.7321 for 0.732101). "
            "No pair, label, verdict or proof changed.",
        ),
        Release(
            "1.11.0",
            "CLadder's shorthand `P(Y | X)` for a contrast is read as CLadder means it, "
            "`P(Y=1 | X=1) - P(Y=1 | X=0)` (its numbers follow from that reading only): the 791 `cladder` "
            "correlation pairs and the 81 fork ATE pairs are now equal (canonical forms, verdicts and proofs "
            "changed; the fork ATE estimand's value now matches CLadder's number on its 68 questions with a model), "
            "the 644 hard negatives that used the fork's literal `P(Y | X)` as another family's estimand are gone "
            "(read as the contrast, each repeats another negative); the 791 correlation `prompts` show the "
            "quantity as that contrast. `synthetic_latent`: the 216 estimands with an index the query lacks "
            "are reduced to the minimal estimand (`reference` and `estimand`; checked equal). `questions` and "
            "`yes_no_prompts` are unchanged.",
        ),
    ),
    pretty_name="CLadder-pairs: causal expression equivalence under a DAG",
    configs={
        "synthetic": SyntheticPair,
        "synthetic_latent": SyntheticLatentRow,
        "cladder": CladderPair,
        "questions": CladderQuestionRow,
        "prompts": CladderPromptRow,
        "yes_no_prompts": CladderYesNoPromptRow,
    },
    build=build,
    source_description="synthetic, synthetic_latent: generated by causal_datasets.cladder_pairs.synthetic and "
    ".synthetic_latent (seeded); cladder, questions, "
    "prompts, yes_no_prompts: CLadder files (causalNLP/cladder, MIT)",
    default_seed=0,
    source_name="cladder",
    source_configs=("cladder", "questions", "prompts", "yes_no_prompts"),
    source_hint=(
        "DIR, the folder of CLadder's test-generate-*.json and test-model-meta.json (data/ of causalNLP/cladder)"
    ),
    card_context=card_context,
    citations=("doverifier2025", "jin2023cladder"),
    metrics=("do_calculus_equivalence",),
    options=CladderPairsBuildOptions,
)
