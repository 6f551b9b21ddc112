"""What a CoBe construction asks its generator model, and how its reply is read.

The paper (§3.1, "Augmentation") expands each core-set scenario into variations of the same theme
"to increase diversity of sentence structures, clause reordering, and domains", with an LLM's help.
It prints no prompt, so the request here is ours: the core scenario with its queries, answer and
criteria, one instruction per kind of variation, the rules a CoBe scenario follows (criteria that
describe events of the text, the three query templates of §3.1) and the reply format, one JSON
object. The n-th request of a kind says which one it is, so each request (and its cache key) is
distinct and the same request is the same on every run.

A reply is read into a :class:`VariationReply` by :func:`causal_datasets.llm.structured.ask_structured`; a
reply it cannot read is rejected with the category :data:`REPLY_CATEGORIES` gives its kind of failure.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from causal_datasets.cobe.labels import PHRASING_OPENINGS
from causal_datasets.cobe.records import CoBeScenario, Domain, VariationCategory, VariationKind
from causal_datasets.llm.config import Message

#: the category of a reply with no usable scenario, by its kind of
#: :class:`~causal_datasets.llm.structured.StructuredError`
REPLY_CATEGORIES: dict[str, VariationCategory] = {
    "no_block": "reply_no_json",
    "parse": "reply_unreadable",
    "validation": "reply_invalid",
}

SYSTEM = (
    "You help build CoBe, a benchmark of counterfactual text editing. A CoBe scenario is a short passage "
    "describing a few events with clear causal links between them, a request to rewrite it as it would read had "
    "one event been set by an outside intervention, a correct rewrite, and criteria that a rewrite must meet."
)

KIND_INSTRUCTIONS: dict[VariationKind, str] = {
    "sentence_structure": (
        "Write a variation with a different sentence structure: keep the domain, every event, every quantity and "
        "every causal link, but build the sentences differently (split or join sentences, change active and "
        "passive voice, turn main clauses into subordinate ones or back)."
    ),
    "clause_order": (
        "Write a variation that reorders the clauses: keep the domain, the events and their causal links, but tell "
        "them in another order than the original does, so that the text no longer follows the order in which "
        "the events happen."
    ),
    "domain": (
        "Write a variation in another domain, {domain}: new people, things and setting from that domain, with the "
        "same causal pattern (which event causes which, which ones are independent) and the intervention on the "
        "event that plays the same role."
    ),
}

RULES = (
    "Rules for the variation:\n"
    "- Its intervention fixes one event of the new text, as the original's queries do.\n"
    "- `should_not_change` lists, as sentences of the new text, the events that are not downstream of the "
    "intervention; `should_change` lists the events downstream of it. Each criterion must state an event as the "
    "new text states it.\n"
    "- `numerical_change` states the direction a quantity must move, when the intervention moves one; "
    "`latent_factors` states unobserved conditions the rewrite must keep. Either may be an empty list.\n"
    "- `queries` holds three requests for the same intervention, opening with exactly these words, in this "
    "order:\n{openings}\n"
    "- `representative_answer` is a correct rewrite of the new text under that intervention."
)

REPLY_FORMAT = (
    "Reply with one ```json code block holding an object with the keys text, queries (a list of three strings), "
    "representative_answer, should_not_change (a list of strings), should_change (a list of strings), "
    "numerical_change (a list of strings) and latent_factors (a list of strings)."
)


def _as_list(value: Any) -> Any:
    """A criterion given as one string is a list of one."""
    return [value] if isinstance(value, str) else value


Criteria = Annotated[list[Annotated[str, Field(min_length=1)]], BeforeValidator(_as_list)]


class VariationReply(BaseModel):
    """The scenario a generator reply describes (keys it does not know are ignored)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    text: str = Field(min_length=1)
    queries: list[str] = Field(min_length=3, max_length=3)
    representative_answer: str = Field(min_length=1)
    should_not_change: Criteria
    should_change: Criteria
    numerical_change: Criteria = Field(default_factory=list)
    latent_factors: Criteria = Field(default_factory=list)


def variation_messages(core: CoBeScenario, kind: VariationKind, index: int, domain: Domain | None) -> list[Message]:
    """The request for the ``index``-th variation of ``kind`` of ``core`` (``domain``: the domain asked for)."""
    shown = {
        "text": core.text,
        "queries": [query.text for query in core.queries],
        "representative_answer": core.representative_answer,
        "should_not_change": core.should_not_change,
        "should_change": core.should_change,
        "numerical_change": core.numerical_change,
        "latent_factors": core.latent_factors,
    }
    openings = "\n".join(f"  {phrasing}: {opening} ..." for phrasing, opening in PHRASING_OPENINGS.items())
    request = (
        f"The original scenario{f' (domain: {core.domain})' if core.domain else ''}:\n"
        f"```json\n{json.dumps(shown, ensure_ascii=False, indent=2)}\n```\n\n"
        f"{KIND_INSTRUCTIONS[kind].format(domain=domain)} This is variation number {index} of this kind; make it "
        "differ from the others.\n\n"
        f"{RULES.format(openings=openings)}\n\n{REPLY_FORMAT}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": request}]


def prompt_sha256(messages: list[Message]) -> str:
    """sha256 of the messages as canonical JSON (sorted keys, no spaces, UTF-8)."""
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
