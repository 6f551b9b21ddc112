"""CLadder's own yes/no question as a chat request: the ``yes_no_prompts`` config of ``cladder_pairs``.

The request is one user turn: the question as CLadder asks it — the story's causal relations
(CLadder's background, which opens "Imagine a self-contained, hypothetical world ..."), the stated
probabilities and the question, as paragraphs, as CLadder's README lays its prompts out — then one
sentence asking for a final ``Answer: yes`` / ``Answer: no`` line, which
:func:`cladder_answer` reads (and ``cladder_answer_reward`` scores) (it also takes a reply that opens with yes or
no). ``eval cladder_yes_no`` (:mod:`.yes_no_task`) sends it; ``eval cladder_pairs`` asks for the estimand
instead, and its ``--prompt paper`` asks the same question inside DoVerifier's App. G prompt.
"""

from __future__ import annotations

import re

from causal_datasets.cladder_pairs.estimand_task import Messages
from causal_datasets.cladder_pairs.paper_task import question_story
from causal_datasets.cladder_pairs.records import CladderQuestionRow, CladderYesNoPromptRow
from causal_datasets.llm.structured import strip_thinking
from causal_datasets.records.prompts import chat_messages
from causal_datasets.reward_guards import statement_problem

ANSWER_REQUEST = (
    'Answer yes or no: reason briefly if you need to, then end your reply with the line "Answer: yes" or "Answer: no".'
)


def build_messages(q: CladderQuestionRow) -> Messages:
    """CLadder's question, then the request for a final yes/no line, as one user turn."""
    story = question_story(q, separator="\n\n")
    return [{"role": "user", "content": f"{story}\n\n{ANSWER_REQUEST}"}]


def yes_no_prompt_rows(questions: list[CladderQuestionRow]) -> list[CladderYesNoPromptRow]:
    """The ``yes_no_prompts`` config: every question that has CLadder's yes/no answer, with its slices."""
    return [
        CladderYesNoPromptRow(
            id=q.id,
            prompt=chat_messages(build_messages(q)),
            reference=f"Answer: {q.answer}",
            rung=q.rung,
            query_type=q.query_type,
            graph_id=q.graph_id,
            answer=q.answer,
        )
        for q in questions
        if q.answer is not None
    ]


#: ``answer`` (``the answer to this question``, ``the answer for the question``) then, after an optional ``is``,
#: yes or no
_ANSWER_MARKER = re.compile(
    r"\banswer\b(?:\s+(?:to|for)\s+(?:this|the)\s+question\b)?[\W_]{0,8}?(?:is[\W_]{1,8}?)?\b(yes|no)\b",
    re.IGNORECASE,
)
#: the reply's first word, yes or no, ending its sentence or clause (``No, because ...``; not ``No idea``)
_OPENING = re.compile(r"^[\W_]{0,8}(yes|no)\b(?=[\W_]*?(?:[.,;:!?)]|$))", re.IGNORECASE | re.MULTILINE)
#: a further yes/no right after one (``yes/no``, ``yes or no``, ``no, yes``), or arithmetic (``yes + 1e20 * 0``)
_ALTERNATIVE = re.compile(r"[\W_]{0,4}(?:(?:or|and)[\W_]{1,4})?(yes|no)\b", re.IGNORECASE)
_ARITHMETIC = re.compile(r"[\W_]{0,8}?[-+*/^=<>]\s*[\d(]")


def cladder_answer(text: str) -> str | None:
    """The final yes/no of a reply to a CLadder question, outside ``<think>``: the ``answer`` markers followed
    by yes or no (``Answer: Yes``, ``"answer": "no"``, ``the answer is **no**``, ``The answer to this question
    is yes.``), else the reply's first word when it is yes or no and ends a clause (CLadder's convention: ``No,
    because ...``); None when neither, or when the reply states both (markers that disagree, ``yes/no``, ``yes
    or no``), states it more than three times (:func:`~causal_datasets.reward_guards.statement_problem`) or does
    arithmetic on it."""
    visible = strip_thinking(text).strip()
    found = list(_ANSWER_MARKER.finditer(visible)) or list(filter(None, [_OPENING.match(visible)]))
    stated = []
    for match in found:
        stated.append(match.group(1))
        end = match.end()
        while further := _ALTERNATIVE.match(visible, end):
            stated.append(further.group(1))
            end = further.end()
        if _ARITHMETIC.match(visible, end):
            return None
    return stated[-1].lower() if stated and not statement_problem(stated) else None
