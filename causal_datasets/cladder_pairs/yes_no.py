"""CLadder's own yes/no question as a chat request: the ``yes_no_prompts`` config of ``cladder_pairs``.

The request is one user turn: the question as CLadder asks it — the story's causal relations
(CLadder's background, which opens "Imagine a self-contained, hypothetical world ..."), the stated
probabilities and the question, as paragraphs, as CLadder's README lays its prompts out — then one
sentence asking for a final ``Answer: yes`` / ``Answer: no`` line, which
:func:`causal_datasets.rewards.cladder_answer` reads (it also takes a reply that opens with yes or
no). No runner sends this request: ``eval cladder_pairs`` asks for the estimand, and its ``--prompt
paper`` asks the same question inside DoVerifier's App. G prompt.
"""

from __future__ import annotations

from causal_datasets.cladder_pairs.estimand_task import Messages
from causal_datasets.cladder_pairs.paper_task import question_story
from causal_datasets.cladder_pairs.records import CladderQuestionRow, CladderYesNoPromptRow
from causal_datasets.records.prompts import chat_messages

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
