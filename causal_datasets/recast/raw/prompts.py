"""Instructions of the raw pipeline's LLM steps (our wording of the paper's appendix prompts), and
:func:`ask_json`, the one way the merge, normalization and labeling steps ask for an answer."""

from __future__ import annotations

import json

from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.structured import Schema, StructuredAnswer, ask_structured
from causal_datasets.recast.records import DOMAINS


def ask_json(client: ChatClient, system: str, request: str, schema: Schema, max_attempts: int) -> StructuredAnswer:
    """``system`` then ``request``; a JSON answer checked by ``schema``, re-asked with the reason when invalid."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": request}]
    return ask_structured(client, messages, schema=schema, fmt="json", repair="reask", max_attempts=max_attempts)


CLEANUP = """Turn the text below, extracted from a PDF of a published paper, into a clean Markdown
document. In order of priority:

1. Keep the authors' wording exactly. Do not fix spelling or grammar, do not paraphrase, do not
   shorten: nearly all of your output is the original text copied over, and it will be about as
   long as the input. Dropping or rewording a single sentence without need is a failure.
2. Repair what the PDF extraction broke (words split across lines, stray line breaks, hyphenation,
   running headers) and mark sections and subsections as Markdown headings.
3. Leave out entirely: figures, images and other visual elements with their captions; references
   and citations, including in-line markers such as "[20, 22]"; acknowledgments; author and
   publication information; appendices; page numbers.

Reply with the Markdown document only, without any comment before or after it."""

NORMALIZE = """You edit the Markdown text of a published economics paper. The paper's causal graph is
given for reference inside <causal_graph> tags; it is not part of the paper and must not be edited.

Remove only what explicitly reveals the causal graph: the diagram itself, tables or lists that
spell out its links, sentences naming its variables as diagram elements, its feedback loops,
arrow colours or polarities. Keep everything else, including discussion of the economic
mechanisms behind the graph: the text must still allow a reader to infer the graph. Also repair
sentences that refer to material that no longer exists (for example "as shown in Figure 3").

You change the text only through edits of the form:
  {"start": "<exact text where the replaced span begins>",
   "end": "<exact text where it ends>",
   "replacement": "<text that takes its place>"}
The span runs from the first occurrence of "start" through the next occurrence of "end" (both
included). Both strings must appear verbatim in the current text. Edits must not overlap; they are
applied together. When the same wording occurs several times, lengthen "start" until it is unique.
Delete rather than redact: no placeholders such as "[removed]".

Reply with JSON only: {"normalizations": [ ...edits... ]}. When nothing is left to change, reply
{"normalizations": []}."""

MERGE = """You check a causal loop diagram transcribed by hand from a paper. Because of transcription
slips, one variable sometimes appears under two spellings ("Number of dog" and "Number of dogs",
"number of dogs" and "Number of dogs"). Group such spellings and pick, for each group, the spelling
to keep. Do not change the diagram in any other way.

Rules:
- Merge only names that are meant to be the same variable and differ because of a slip. When in
  doubt, do not merge.
- Names that differ by more than one character are almost never slips.
- Similar names can be different variables: "GDP" and "GNP" must never be merged, nor "Number of
  dogs" and "Number of hounds".
- Never touch a name that contains "<" or ">" (these mark special variables).
- Use only names that appear in the diagram; never invent a name.

Reply with JSON only: {"combined_variables": [{"old_names": ["...", "..."], "new_name": "..."}]}
(an empty list when nothing should be merged)."""

DOMAINS_PROMPT = "\n".join(
    [
        "You label the academic domains of a paper from its title and abstract. Choose every domain",
        "from the list below that the paper belongs to; several or none may apply. Use only these",
        "numbers:",
        "",
        *(f"{number}: {name}" for number, name in enumerate(DOMAINS, start=1)),
        "",
        'Reply with JSON only, for example {"domains": [2, 4]}.',
    ]
)

EXPLICITNESS = """You receive the nodes of a causal graph from an economics paper and the paper's text.
For every node, say how explicitly the text mentions it:

1 = explicit: the node, or a clear synonym, is named in the text (whether or not the text relates
    it to the graph);
2 = implicit: the text refers to it only indirectly, or it can reasonably be inferred;
3 = absent: the text does not mention it at all, even if related topics are discussed.

Be conservative. Go through every node, one by one, even when the graph is large or nodes look
redundant, and copy each node name exactly as given. Reply with JSON only:
{"scores": {"<node name>": 1, "<node name>": 3, ...}}"""


def normalize_request(graph_text: str, document: str) -> str:
    return f"<causal_graph>\n{graph_text}\n</causal_graph>\n\n{document}"


def merge_request(edges: list[tuple[str, str]]) -> str:
    return json.dumps({"relationships": [{"source": s, "sink": t} for s, t in edges]}, ensure_ascii=False, indent=1)


def domain_request(title: str, abstract: str) -> str:
    return f"Title: {title}\n\nAbstract: {abstract}"


def explicitness_request(nodes: list[str], text: str) -> str:
    return f"Nodes:\n{json.dumps(nodes, ensure_ascii=False, indent=1)}\n\nText:\n{text}"
