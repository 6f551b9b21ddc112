"""Import the authors' released graph configurations (19 suites × 50) into episode records, and
export a record back to the release schema (the importer's round-trip check).

Release schema: ``graph_id, description, nodes{name: {...}}, edges[{from, to}], params{base_<node>,
coeff_<p>_<child>} (quadratic: coeff2_/coeff1_), budget`` plus optional ``hidden_variable``,
``bootstrap_past_data``, ``frequency_can_be_parent``, ``equation_family``, ``quadratic_mode``,
``quadratic_metadata``. Crystal bases are not in the release (the upstream drew them with Python's
randomized ``hash()``) except in the quadratic metadata; we draw them from a stable seed. The prior
observation crystals are the authors' own: the quadratic presets, else their fixed ``Random(42)``
stream (see :func:`~causal_datasets.causalab.crystals.upstream_observation_crystals`); the Golden
suites' ``bootstrap_past_data`` follows them, as the authors' prompt shows both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from causal_datasets.builder import load_source_json, reading_source
from causal_datasets.causalab.crystals import (
    PRIOR_OBSERVATIONS,
    assemble_episode,
    stable_seed,
    upstream_observation_crystals,
)
from causal_datasets.causalab.properties import DISPLAY_NAMES, TARGET, param_name
from causal_datasets.causalab.records import (
    CausaLabEpisode,
    Crystal,
    Disturbance,
    Edge,
    EdgeAxis,
    Equation,
    Intervention,
    Measurement,
    PropertyValue,
    QuadraticMetadata,
    Term,
)
from causal_datasets.errors import SourceFormatError

#: the released suites, in the release's order
SUITES = (
    "3nodes", "4nodes", "5nodes", "6nodes", "7nodes", "4nodes_quad_hard",
    "4nodes_hidden_n1", "4nodes_hidden_n2", "4nodes_hidden_n3",
    "4nodes_hidden_vrange_pm0p5", "4nodes_hidden_vrange_pm5", "4nodes_hidden_vrange_pm50",
    "4nodes_hidden_freqnode_n1", "4nodes_hidden_freqnode_n2", "4nodes_hidden_freqnode_n3",
    "4nodes_freqparent", "6nodes_freqparent", "4nodes_golden", "6nodes_golden",
)  # fmt: skip
_NOMINAL_BASE_VALUE = {"type": "uniform", "min": 15.0, "max": 45.0}


class UpstreamFormatError(SourceFormatError):
    """A released configuration does not follow the release schema; the message says where."""


def load_suite(data_dir: Path, suite: str, seed: int = 0) -> list[CausaLabEpisode]:
    """Every configuration of ``data_dir/<suite>.jsonl`` as episode records."""
    path = Path(data_dir) / f"{suite}.jsonl"
    episodes: list[CausaLabEpisode] = []
    lines_of: dict[str, list[int]] = {}
    with reading_source(path):
        lines = path.read_text(encoding="utf-8").splitlines()
    for line_number, line in enumerate(lines, 1):
        if line.strip():
            try:
                episodes.append(import_config(load_source_json(line), suite, seed))
            except (KeyError, TypeError, ValueError, AttributeError) as error:
                raise UpstreamFormatError(f"{path}:{line_number}: {type(error).__name__}: {error}") from error
            lines_of.setdefault(episodes[-1].graph_id, []).append(line_number)
    if not episodes:
        raise UpstreamFormatError(f"{path} holds no configuration (an empty suite)")
    repeated = {graph_id: numbers for graph_id, numbers in lines_of.items() if len(numbers) > 1}
    if repeated:
        shown = "; ".join(
            f"{graph_id!r} on lines {', '.join(map(str, numbers))}" for graph_id, numbers in list(repeated.items())[:5]
        )
        raise UpstreamFormatError(f"{path}: {len(repeated)} graph_id(s) listed more than once: {shown}")
    return episodes


def import_config(config: dict[str, Any], suite: str, seed: int = 0) -> CausaLabEpisode:
    """One released configuration → an episode (manipulator and reactor crystals drawn from
    ``stable_seed(seed, suite, graph_id)`` unless the release states them)."""
    params = config["params"]
    family = "quadratic" if config.get("equation_family") == "quadratic" else "linear"
    nodes = list(config["nodes"])
    controllable = [n for n, spec in config["nodes"].items() if spec["is_controllable"]]
    edges = [Edge(source=e["from"], target=e["to"]) for e in config["edges"]]
    equations = [_equation(node, config["edges"], params, family) for node in nodes]
    metadata = config.get("quadratic_metadata")
    crystals: dict[str, Any] = {}
    presets: list[Crystal] = []
    if metadata:
        order = metadata["controllable_node_order"]
        if order != controllable:
            raise UpstreamFormatError(f"controllable_node_order {order} differs from the nodes' order {controllable}")
        presets = [
            _crystal(f"observation-{i}", preset, order) for i, preset in enumerate(metadata["observation_presets"])
        ]
        crystals = {
            "manipulator": _crystal("manipulator", metadata["property_manipulator"], order),
            "reactor": _crystal("reactor", metadata["reactor"], order),
            "quadratic_metadata": QuadraticMetadata(
                edge_axes=[
                    EdgeAxis(source=key.split("->")[0], target=key.split("->")[1], axis=float(axis))
                    for key, axis in metadata["edge_axis_by_name"].items()
                ],
                probe_left=_values(metadata["probe_left_by_node"], order),
                probe_right=_values(metadata["probe_right_by_node"], order),
            ),
        }
    bootstrap = config.get("bootstrap_past_data") or []
    return assemble_episode(
        episode_id=f"upstream_{suite}/{config['graph_id']}",
        suite=suite,
        origin="upstream",
        graph_id=config["graph_id"],
        description=config["description"],
        family=family,
        nodes=nodes,
        controllable=controllable,
        edges=edges,
        equations=equations,
        budget=int(config["budget"]),
        seed=stable_seed(seed, suite, config["graph_id"]),
        frequency_can_be_parent=bool(config.get("frequency_can_be_parent", False)),
        disturbance=_disturbance(config.get("hidden_variable")),
        observation_crystals=upstream_observation_crystals(controllable, PRIOR_OBSERVATIONS, presets),
        supplied_records=[_measurement(item) for item in bootstrap],
        **crystals,
    )


def export_config(episode: CausaLabEpisode) -> dict[str, Any]:
    """The release-schema configuration of an episode (inverse of :func:`import_config`)."""
    equations = {eq.node: eq for eq in episode.equations}
    nodes = {}
    for node in episode.nodes:
        spec = {
            "is_controllable": node in episode.controllable,
            "observable": True,
            "property_name": node,
            "display_name": DISPLAY_NAMES[node],
            "base_value": dict(_NOMINAL_BASE_VALUE),
        }
        if equations[node].terms:
            spec["computation"] = _computation(equations[node], episode.family)
        nodes[node] = spec
    params: dict[str, float] = {}
    for eq in episode.equations:
        params[_base_key(eq.node)] = eq.base
        for term in eq.terms:
            key = f"{param_name(term.parent)}_{param_name(eq.node)}"
            if episode.family == "quadratic":
                params[f"coeff2_{key}"] = term.quadratic
                params[f"coeff1_{key}"] = term.linear
            else:
                params[f"coeff_{key}"] = term.linear
    config: dict[str, Any] = {
        "graph_id": episode.graph_id,
        "description": episode.description,
        "nodes": nodes,
        "edges": [{"from": e.source, "to": e.target} for e in episode.edges],
        "params": params,
        "budget": episode.budget,
    }
    if episode.frequency_can_be_parent:
        config["equation_family"] = episode.family
        config["frequency_can_be_parent"] = True
    if episode.disturbance is not None:
        config["hidden_variable"] = _export_disturbance(episode.disturbance)
    supplied = episode.prior_records[len(episode.observation_crystals) :]
    if supplied:
        config["bootstrap_past_data"] = [_export_measurement(m) for m in supplied]
    if episode.family == "quadratic":
        config["equation_family"] = "quadratic"
        config["quadratic_mode"] = "hard"
        config["quadratic_metadata"] = _export_quadratic_metadata(episode)
    return config


def _equation(node: str, edges: list[dict[str, str]], params: dict[str, Any], family: str) -> Equation:
    terms = []
    for edge in edges:
        if edge["to"] != node:
            continue
        key = f"{param_name(edge['from'])}_{param_name(node)}"
        if family == "quadratic":
            terms.append(Term(parent=edge["from"], linear=params[f"coeff1_{key}"], quadratic=params[f"coeff2_{key}"]))
        else:
            terms.append(Term(parent=edge["from"], linear=params[f"coeff_{key}"], quadratic=0.0))
    return Equation(node=node, base=params[_base_key(node)], terms=terms)


def _base_key(node: str) -> str:
    """Base parameters use the full node name, except ``base_freq`` for the target."""
    return "base_freq" if node == TARGET else f"base_{node}"


def _computation(equation: Equation, family: str) -> str:
    parts = [_base_key(equation.node)]
    child = param_name(equation.node)
    for term in equation.terms:
        key = f"{param_name(term.parent)}_{child}"
        if family == "quadratic":
            parts.append(f"coeff2_{key} * ({term.parent} ^ 2)")
            parts.append(f"coeff1_{key} * {term.parent}")
        else:
            parts.append(f"coeff_{key} * {term.parent}")
    return " + ".join(parts)


def _values(mapping: dict[str, float], order: list[str]) -> list[PropertyValue]:
    return [PropertyValue(name=n, value=float(mapping[n])) for n in order]


def _crystal(crystal_id: str, mapping: dict[str, float], order: list[str]) -> Crystal:
    return Crystal(id=crystal_id, bases=_values(mapping, order))


def _measurement(item: dict[str, Any]) -> Measurement:
    intervention = item.get("intervention")
    return Measurement(
        id=item["id"],
        properties=[PropertyValue(name=n, value=float(v)) for n, v in item["props"].items()],
        frequency=float(item["freq"]),
        intervention=Intervention(**intervention) if intervention else None,
    )


def _export_measurement(m: Measurement) -> dict[str, Any]:
    item: dict[str, Any] = {"id": m.id, "props": {p.name: p.value for p in m.properties}, "freq": m.frequency}
    if m.intervention is not None:
        item["intervention"] = m.intervention.model_dump()
    return item


def _disturbance(spec: dict[str, Any] | None) -> Disturbance | None:
    if not spec or not spec.get("enabled", True):
        return None
    weights = {e["weight"] for e in spec.get("edges", [])} | {spec["edge_weight"]}
    if len(weights) != 1:
        raise UpstreamFormatError(f"hidden variable with several edge weights {sorted(weights)}")
    return Disturbance(
        value_space=[float(v) for v in spec["value_space"]],
        weight=float(spec["edge_weight"]),
        affected_nodes=list(spec["affected_nodes"]),
        initial_value=float(spec["initial_value"]),
    )


def _export_disturbance(d: Disturbance) -> dict[str, Any]:
    return {
        "enabled": True,
        "name": "h",
        "observable": False,
        "is_controllable": False,
        "initial_value": d.initial_value,
        "value_space": d.value_space,
        "edge_weight": d.weight,
        "affected_nodes": d.affected_nodes,
        "edges": [{"from": "h", "to": n, "weight": d.weight} for n in d.affected_nodes],
    }


def _export_quadratic_metadata(episode: CausaLabEpisode) -> dict[str, Any]:
    def as_map(values: list[PropertyValue]) -> dict[str, float]:
        return {v.name: v.value for v in values}

    metadata = episode.quadratic_metadata
    if metadata is None:
        raise UpstreamFormatError(f"{episode.id}: a quadratic episode needs its quadratic metadata to export")
    return {
        "controllable_node_order": episode.controllable,
        "edge_axis_by_name": {f"{a.source}->{a.target}": a.axis for a in metadata.edge_axes},
        "observation_presets": [as_map(c.bases) for c in episode.observation_crystals],
        "property_manipulator": as_map(episode.manipulator.bases),
        "reactor": as_map(episode.reactor.bases),
        "probe_left_by_node": as_map(metadata.probe_left),
        "probe_right_by_node": as_map(metadata.probe_right),
    }
