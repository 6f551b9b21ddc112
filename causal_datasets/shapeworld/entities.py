"""Entity vocabularies (themes): what the world's nodes are called in the prompts.

The paper's framework maps each causal variable to an entity and its change (here: moving or
not); its entities are eight shapes, and nothing in the causal logic depends on that. A theme
names eight entities, its noun (the JSON key of an action, and how the rules speak of them) and its
plural. Datasets store shapes; a theme renames them at run time, entity ``i`` standing for shape
``i`` of :data:`~causal_datasets.shapeworld.world.SHAPES`, so every theme plays the same graphs,
setups and questions. ``shapes`` is the default and gives the paper's prompts word for word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from causal_datasets.shapeworld.world import SHAPES

ThemeName = Literal["shapes", "animals", "planets"]


@dataclass(frozen=True)
class Theme:
    name: str
    noun: str
    plural: str
    entities: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.entities) != len(SHAPES) or len(set(self.entities)) != len(self.entities):
            raise ValueError(f"theme {self.name!r} needs {len(SHAPES)} distinct entities, got {list(self.entities)}")

    def rename(self, shapes: Sequence[str]) -> tuple[str, ...]:
        """The theme's names for stored shape names."""
        return tuple(self.entities[SHAPES.index(shape)] for shape in shapes)


THEMES: dict[ThemeName, Theme] = {
    "shapes": Theme("shapes", "shape", "shapes", SHAPES),
    "animals": Theme(
        "animals", "animal", "animals", ("cat", "dog", "horse", "rabbit", "goat", "sheep", "duck", "mouse")
    ),
    "planets": Theme(
        "planets", "planet", "planets", ("mercury", "venus", "earth", "mars", "jupiter", "saturn", "uranus", "neptune")
    ),
}
DEFAULT_THEME = THEMES["shapes"]
