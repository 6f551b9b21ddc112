"""Two tasks on the sixth benchmark's sums that declare as little as a task can: ``minimal`` (a default for all
but solving and scoring) and ``critiqued`` (a model role of its own, a critic asked while scoring)."""

from __future__ import annotations

from pydantic import BaseModel

from causal_datasets.runners.task import Item, NoGeneration, RoleSpec, Task, TaskContext, Transcript


class Correct(BaseModel):
    correct: bool


def ask(item: Item, context: TaskContext) -> NoGeneration:
    context.clients["model"].chat([{"role": "user", "content": f"What is {item.row.a} + {item.row.b}? A number."}])
    return NoGeneration()


def check(item: Item, transcript: Transcript[NoGeneration], context: TaskContext) -> Correct:
    return Correct(correct=transcript.replies()[-1].rstrip(".").endswith(f" {item.row.answer}"))


MINIMAL = Task(name="minimal", dataset="sixth", solve=ask, score=check, scores=Correct)


class Critiqued(BaseModel):
    correct: bool
    critic_agrees: bool


def critique(item: Item, transcript: Transcript[NoGeneration], context: TaskContext) -> Critiqued:
    answer = transcript.replies()[-1]
    verdict = context.clients["critic"].chat([{"role": "user", "content": f"CRITIC: is '{answer}' right?"}])
    correct = check(item, transcript, context).correct
    return Critiqued(correct=correct, critic_agrees=verdict.text.startswith("yes") == correct)


CRITIQUED = Task(
    name="critiqued",
    dataset="sixth",
    solve=ask,
    score=critique,
    scores=Critiqued,
    roles=(
        RoleSpec("model", "the model that adds", required=True),
        RoleSpec("critic", "the model that checks a sum", required=True, scoring=True),
    ),
)
