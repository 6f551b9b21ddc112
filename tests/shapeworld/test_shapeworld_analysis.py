"""The paper's analyses of ShapeWorld runs: standard errors over initial setups (Fig. 2), the
all-moving comparison of the core and the advanced set (Fig. 3), the best prompt variant per model
(Table 1), failure-pattern shares (Table 2); and entity themes."""

from __future__ import annotations

import math

import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from causal_datasets.report.render import write_report
from causal_datasets.report.runs import load_run
from causal_datasets.shapeworld.agents import AGENTS
from causal_datasets.shapeworld.entities import THEMES, Theme
from causal_datasets.shapeworld.episode import run_episode
from causal_datasets.shapeworld.generate import advanced_tasks, core_tasks, world_of
from causal_datasets.shapeworld.prompts import build_messages
from causal_datasets.shapeworld.scoring import score_episodes
from causal_datasets.shapeworld.view import best_variant_table
from causal_datasets.shapeworld.world import SHAPES, World, WorldError
from tests.support.runs import item_fields, run_eval

CORE = core_tasks(0)


def item(setup: str, correct: bool, **extra) -> dict:
    return {
        "gold": "yes",
        "prediction": "yes" if correct else "no",
        "structure": "mediation",
        "num_variables": 3,
        "setup": setup,
        "all_moving": False,
        "failure_pattern": None if correct else "root_cause",
        **extra,
    }


def test_standard_error_over_initial_setups_by_hand():
    items = [item("g:0", True), item("g:0", False), item("g:1", True), item("g:1", True), item("g:2", False)]
    scores = score_episodes(items)
    # per-setup accuracies 0.5, 1, 0: sample SD 0.5 over √3 setups
    assert scores["setups"] == 3 and scores["accuracy_se"] == round(0.5 / math.sqrt(3), 4)
    assert score_episodes(items[:2])["accuracy_se"] is None  # one setup has no spread to estimate
    assert score_episodes([{k: v for k, v in i.items() if k != "setup"} for i in items])["accuracy_se"] is None


def test_failure_pattern_shares_are_of_the_wrong_answers():
    items = [
        item("a", False),
        item("b", False, failure_pattern="correlation", gold="no", prediction="yes"),
        item("c", False),
        item("d", True),
        item("e", False, prediction=None, failure_pattern=None, error="invalid_format"),
    ]
    shares = score_episodes(items)["failure_pattern_shares"]
    assert (
        shares["root_cause"] == round(2 / 3, 4)
        and shares["correlation"] == round(1 / 3, 4)
        and shares["uncategorized"] == 0
    )
    assert set(score_episodes([item("a", True)])["failure_pattern_shares"].values()) == {None}


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build_to_folder(get_builder("shapeworld"), out, BuildContext(seed=0))
    return out


def test_one_run_over_both_sets_compares_their_all_moving_setups(dataset_dir, tmp_path):
    summary = run_eval(
        "shapeworld",
        "--config",
        "core",
        "advanced",
        "--agent",
        "oracle",
        "--hub-dir",
        str(dataset_dir),
        "--out",
        str(tmp_path / "run"),
    )
    items = item_fields(tmp_path / "run")
    assert summary.dataset.configs == ["core", "advanced"] and len(items) == 84 + 1200
    all_moving = summary.slices["by_num_variables_all_moving"]
    # core: the direct graph's all-moving setup (2 questions) and the three 3-shape graphs' (6 each)
    assert [all_moving[n]["episodes"] for n in ("2", "3", "4", "7")] == [2, 18, 300, 300]
    assert all(group["accuracy"] == 1.0 for group in all_moving.values())
    by_structure = summary.slices["by_structure"]
    # the confounder without 0→2 has the five setups {}, {0}, {2}, {0,2}, {0,1,2}; with 0→2, {0} implies 2
    assert [by_structure[s]["setups"] for s in ("direct", "mediation", "confounder", "confounder_with_edge")] == [
        3,
        4,
        5,
        4,
    ]
    assert summary.metrics.accuracy_se == 0.0 and summary.metrics.setups == 16 + 200


def test_report_shows_the_papers_shapeworld_figures_and_tables(dataset_dir, tmp_path):
    runs = []
    for variant, seed in (("basic", 1), ("step_limit", 2)):
        out = tmp_path / f"random-{variant}"
        run_eval(
            "shapeworld",
            "--agent",
            "random",
            "--variant",
            variant,
            "--agent-seed",
            str(seed),
            "--hub-dir",
            str(dataset_dir),
            "--out",
            str(out),
        )
        runs.append(out)
    loaded = [load_run(out) for out in runs]
    best = max(loaded, key=lambda run: run.summary.metrics.accuracy)
    table = best_variant_table(loaded)
    (row,) = [line for line in table.splitlines() if line.startswith("| agent:random")]
    assert (
        f"| {best.summary.options['variant']} | basic, step_limit |" in row
        and f"| {best.summary.metrics.accuracy} |" in row
    )
    assert row.startswith("| agent:random* |") == (best.summary.options["variant"] != "basic")
    shares = best.summary.metrics.failure_pattern_shares
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-3)
    report = write_report(runs, tmp_path / "report")
    text = report.read_text()
    assert "### Best prompt variant per model (Table 1)" in text and table in text
    for png in (
        "shapeworld-accuracy-by-structure-95-interval-over-setups-fig-2.png",
        "shapeworld-failure-patterns-share-of-wrong-table-2.png",
        "shapeworld-all-moving-accuracy-by-variables-fig-3.png",
    ):
        assert f"({png})" in text and (tmp_path / "report" / png).stat().st_size > 0


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_theme_plays_the_same_episodes(theme):
    entities = THEMES[theme]
    tasks = CORE + advanced_tasks(0)[::40]
    results = [run_episode(t, AGENTS["oracle"](t, 0, entities), "basic", "oracle", theme=entities) for t in tasks]
    assert all(r.correct for r in results)
    plain = [run_episode(t, AGENTS["oracle"](t, 0), "basic", "oracle") for t in tasks]
    assert [len(r.actions) for r in results] == [len(r.actions) for r in plain]
    text = "\n".join(message["content"] for r in results for message in r.transcript)
    if theme != "shapes":
        assert not any(f'"{shape}"' in text or f" {shape} " in text for shape in SHAPES)
        assert f'{{"{entities.noun}": "", "action": ""}}' in text and f"world of {entities.plural}" in text


def test_animals_name_the_same_graph():
    task = CORE[10]
    world, animals = world_of(task), world_of(task, THEMES["animals"])
    assert world.edges == animals.edges and animals.shapes == THEMES["animals"].rename(task.shapes)
    opening = build_messages(task, "basic", theme=THEMES["animals"])[1]["content"]
    cause, effect = animals.shapes[task.cause], animals.shapes[task.effect]
    assert f"Does the {cause} moving cause the {effect} to move?" in opening
    assert build_messages(task, "basic")[1]["content"].count(task.question) == 1  # the default is the stored text


def test_worlds_and_themes_check_their_names():
    assert World(("cat", "dog"), ((0, 1),), THEMES["animals"].entities).listed_shapes == ["cat", "dog"]
    with pytest.raises(WorldError):
        World(("cat", "circle"), ((0, 1),), THEMES["animals"].entities)
    with pytest.raises(ValueError, match="needs 8 distinct"):
        Theme("pairs", "pair", "pairs", ("a", "a", "b", "c", "d", "e", "f", "g"))


def test_the_entities_option_on_the_command_line(dataset_dir, tmp_path):
    summary = run_eval(
        "shapeworld",
        "--agent",
        "strategy",
        "--entities",
        "planets",
        "--limit",
        "6",
        "--hub-dir",
        str(dataset_dir),
        "--out",
        str(tmp_path / "run"),
    )
    (first, *_) = item_fields(tmp_path / "run")
    assert summary.metrics.accuracy == 1.0 and summary.options["entities"] == "planets"
    assert first["theme"] == "planets" and "world of planets" in first["transcript"][0]["content"]
