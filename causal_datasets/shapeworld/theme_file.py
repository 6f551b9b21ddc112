"""``eval shapeworld --entities-file PATH``: a theme of the user's own, read from a JSON file.

The file is one JSON object, validated by :class:`ThemeSpec`::

    {"name": "fruits", "noun": "fruit", "plural": "fruits",
     "entities": ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "grape"]}

Eight distinct entities (entity ``i`` stands for shape ``i``, so the graphs and questions are the
built-in themes'), each as a reply's value is read (lower case, single spaces, no trailing full stop:
what a model writes back is compared in that form), of letters, digits, spaces, ``'``, ``_`` and
``-``, so the prompts' JSON templates stay JSON. The name may not be a built-in theme's: the run's
options and each played episode record a file's theme whole (:class:`ThemeSpec`), so ``--resume``,
scoring and ``rescore`` never read the file again. A file that breaks any rule is
:class:`EntitiesFileError`, one line naming the file, the field and the rule (the command exits 2).
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from causal_datasets.errors import CausalDatasetsError
from causal_datasets.files import read_json
from causal_datasets.shapeworld.entities import THEMES, Theme
from causal_datasets.shapeworld.parsing import normal_text
from causal_datasets.shapeworld.world import SHAPES

#: an entities file is a few hundred bytes; anything over this is not one
MAX_BYTES = 64 << 10
_WORD = r"^[^\W_](?:[\w' -]{0,38}[^\W_])?$"


class EntitiesFileError(CausalDatasetsError, ValueError):
    """An ``--entities-file`` that cannot be read or breaks a rule of :class:`ThemeSpec`."""


class ThemeSpec(BaseModel):
    """A theme as a file gives it (and a played episode records it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,39}$", description="the theme's name, shown in results")
    noun: str = Field(description="one entity (the JSON key of an action)")
    plural: str = Field(description="the entities ('the world of <plural>')")
    entities: tuple[str, ...] = Field(
        min_length=len(SHAPES), max_length=len(SHAPES), description="eight distinct names, for shapes 0..7"
    )

    @field_validator("noun", "plural", "entities")
    @classmethod
    def _words(cls, value: str | tuple[str, ...]) -> str | tuple[str, ...]:
        for word in (value,) if isinstance(value, str) else value:
            if not re.fullmatch(_WORD, word):
                raise ValueError(f"{word!r}: letters, digits, spaces, ' _ - only, 1 to 40 characters")
            if normal_text(word) != word:
                raise ValueError(f"{word!r} is not as a reply is read back (lower case, single spaces)")
        return value

    @field_validator("entities")
    @classmethod
    def _distinct(cls, entities: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(entities)) != len(entities):
            raise ValueError(f"the entities repeat a name: {list(entities)}")
        return entities

    @model_validator(mode="after")
    def _not_built_in(self) -> ThemeSpec:
        if self.name in THEMES:
            raise ValueError(f"name {self.name!r} is a built-in theme's (use --entities {self.name})")
        if self.noun == "action":
            raise ValueError("noun 'action' is the other key of an action")
        return self

    def theme(self) -> Theme:
        return Theme(self.name, self.noun, self.plural, self.entities)

    @classmethod
    def of(cls, theme: Theme) -> ThemeSpec:
        return cls(name=theme.name, noun=theme.noun, plural=theme.plural, entities=theme.entities)


def parse_theme(value: object, where: str) -> ThemeSpec:
    """``value`` (a file's JSON) as a theme; else :class:`EntitiesFileError` naming ``where`` and the first
    problem (and how many there are)."""
    try:
        return ThemeSpec.model_validate(value)
    except ValidationError as error:
        problems = error.errors()
        first = problems[0]
        field = ".".join(str(part) for part in first["loc"]) or "the file"
        more = f" ({len(problems)} problems)" if len(problems) > 1 else ""
        raise EntitiesFileError(f"{where}: {field}: {first['msg']}{more}") from None


def read_theme_file(path: Path) -> ThemeSpec:
    """The theme in the file ``path`` (see the module)."""
    return parse_theme(read_json(path, EntitiesFileError, MAX_BYTES), str(path))
