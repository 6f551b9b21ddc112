"""Record models: one pydantic model per dataset row, the single source of a row's schema.

``Record.features()`` derives the ``datasets.Features`` from the type hints, so the Python type,
the Parquet schema and the card YAML cannot drift apart:

* ``str``/``int``/``float``/``bool`` → ``Value``; ``datetime.date`` → ``Value("date32")``
* ``Literal["yes", "no"]`` and ``str`` enums → ``ClassLabel`` (closed vocabularies)
* ``list[T]`` → ``List(T)``; nested ``BaseModel`` → struct; ``T | None`` → nullable ``T``
* ``Annotated[T, Value("int32")]`` (any ``datasets`` feature in the metadata) overrides the mapping

Every field says what it holds (``Field(description=...)``); ``Record.field_docs()`` lists them,
nested fields as dotted paths, for the dataset cards' field tables.
"""

from __future__ import annotations

import datetime
import enum
import functools
import types
import typing
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Self, TypeVar

import datasets
from pydantic import BaseModel, ConfigDict, ValidationError

from causal_datasets.errors import RecordValidationError

_SCALARS: dict[type, str] = {bool: "bool", str: "string", int: "int64", float: "float64"}
_FEATURE_TYPES = (datasets.Value, datasets.ClassLabel, datasets.List, datasets.Sequence)


@dataclass(frozen=True)
class FieldDoc:
    """One column or nested field: dotted path (``nodes.explicitness``), its feature, whether it may be
    null, and its description."""

    path: str
    feature: Any
    nullable: bool
    description: str


class Record(BaseModel):
    """Base of every dataset row model (strict about unknown fields)."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def features(cls) -> datasets.Features:
        """The ``datasets.Features`` of this row type."""
        return datasets.Features(
            {name: _feature_for(info.annotation, info.metadata) for name, info in cls.model_fields.items()}
        )

    @classmethod
    def field_docs(cls) -> list[FieldDoc]:
        """Every field in declaration order, each followed by its nested fields (structs, lists of structs)."""
        return list(_field_docs(cls, ""))

    @classmethod
    def validate_rows(cls, rows: Iterable[dict[str, Any]], where: str = "") -> list[Self]:
        """Validate raw dicts; the first failure raises :class:`RecordValidationError`."""
        where = where or cls.__name__
        records = []
        for index, row in enumerate(rows):
            try:
                records.append(cls.model_validate(row))
            except ValidationError as error:
                key = f"#{index}" + (f" (id={row['id']!r})" if isinstance(row, dict) and "id" in row else "")
                raise RecordValidationError(where, key, error) from None
        return records

    def to_row(self) -> dict[str, Any]:
        """A plain dict ready for ``Features.encode_example`` (enums as their values)."""
        row = self.model_dump(mode="json")
        for name in _date_fields(type(self)):
            row[name] = getattr(self, name)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any], features: datasets.Features | None = None) -> Self:
        """Inverse of :meth:`to_row` for a row read back from Parquet (class-label ints decoded)."""
        features = features or cls.features()
        return cls.model_validate(_decode(row, features))


R = TypeVar("R", bound="Record")


def record_from_json(text: str | bytes, model: type[R], what: str) -> R:
    """A row given as JSON text (``model_dump_json``); ``ValueError`` naming ``what`` and the first problem."""
    try:
        return model.model_validate_json(text)
    except ValidationError as error:
        raise _invalid(error, model, what) from None


def record_from_input(value: Any, model: type[R], what: str) -> R:
    """A row given as a record, as its JSON text, or as a dict as ``load_dataset`` gives it (class
    labels as integers or names; other keys ignored). ``ValueError`` naming ``what`` and the first
    problem, ``TypeError`` for a value that is none of these."""
    if isinstance(value, model):
        return value
    if isinstance(value, (str, bytes)):
        return record_from_json(value, model, what)
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} must be a {model.__name__} row (a dict or its JSON), not {type(value).__name__}")
    try:
        return model.model_validate(_decode(value, _features(model)))
    except ValidationError as error:
        raise _invalid(error, model, what) from None
    except (AttributeError, TypeError, ValueError, IndexError) as error:  # a class label or list of the wrong kind
        raise ValueError(f"{what} is not a {model.__name__} row: {type(error).__name__}: {error}") from None


def _invalid(error: ValidationError, model: type[Record], what: str) -> ValueError:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the row"
    return ValueError(f"{what} is not a {model.__name__} row ({len(error.errors())} problem(s); "
                      f"first: {where}: {first['msg']})")


@functools.cache
def _features(model: type[Record]) -> datasets.Features:
    return model.features()


def records_from_dataset(dataset: datasets.Dataset, model: type[Record]) -> list[Record]:
    """Typed records from a loaded ``datasets.Dataset`` of ``model`` rows.

    The rows come out of Arrow in one conversion (``to_list``): iterating the dataset formats each row
    on its own and reads the features every time, about 30× slower. Only the columns that hold a
    class label are walked to decode it; the others validate as they come."""
    features = dataset.features  # a property that copies; read it once
    labelled = {name: feature for name, feature in features.items() if _has_class_label(feature)}
    rows = dataset.to_list()
    for row in rows:  # only class-label columns differ from what the model validates (strings, not ints)
        for name, feature in labelled.items():
            row[name] = _decode(row[name], feature)
    return [model.model_validate(row) for row in rows]


@functools.cache
def _date_fields(model: type[Record]) -> tuple[str, ...]:
    """The fields of ``model`` that hold a ``datetime.date`` (kept as dates by :meth:`Record.to_row`)."""
    return tuple(name for name, info in model.model_fields.items() if _is_date(info.annotation))


def _is_date(annotation: Any) -> bool:
    return _strip_optional(annotation) is datetime.date


def _strip_optional(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _field_docs(model: type[BaseModel], prefix: str) -> Iterator[FieldDoc]:
    for name, info in model.model_fields.items():
        path = prefix + name
        nullable = _strip_optional(info.annotation) is not info.annotation
        yield FieldDoc(path, _feature_for(info.annotation, info.metadata), nullable, info.description or "")
        nested = _nested_model(info.annotation)
        if nested is not None:
            yield from _field_docs(nested, path + ".")


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The model inside ``M``, ``M | None`` or ``list[M]`` (any depth of lists), else None."""
    inner = _strip_optional(annotation)
    while typing.get_origin(inner) is list:
        (inner,) = typing.get_args(inner)
    return inner if isinstance(inner, type) and issubclass(inner, BaseModel) else None


def _feature_for(annotation: Any, metadata: Sequence[Any] = ()) -> Any:
    for item in metadata:
        if isinstance(item, _FEATURE_TYPES) or isinstance(item, dict):
            return item
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        base, *extra = typing.get_args(annotation)
        return _feature_for(base, extra)
    stripped = _strip_optional(annotation)
    if stripped is not annotation:
        return _feature_for(stripped)
    if origin in (typing.Union, types.UnionType):
        raise TypeError(f"unions other than Optional have no hub feature: {annotation!r}")
    if origin is Literal:
        names = typing.get_args(annotation)
        if not all(isinstance(n, str) for n in names):
            raise TypeError(f"only string literals become class labels: {annotation!r}")
        return datasets.ClassLabel(names=list(names))
    if origin is list:
        (item,) = typing.get_args(annotation)
        return datasets.List(_feature_for(item))
    if origin is not None:
        raise TypeError(f"no hub feature for {annotation!r}; use list[...] or a nested model")
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return datasets.ClassLabel(names=[str(m.value) for m in annotation])
        if issubclass(annotation, BaseModel):
            return {
                name: _feature_for(info.annotation, info.metadata)
                for name, info in annotation.model_fields.items()
            }
        if annotation is datetime.date:
            return datasets.Value("date32")
        for python_type, dtype in _SCALARS.items():
            if issubclass(annotation, python_type):
                return datasets.Value(dtype)
    raise TypeError(f"no hub feature for {annotation!r}")


def _has_class_label(feature: Any) -> bool:
    if isinstance(feature, datasets.ClassLabel):
        return True
    if isinstance(feature, dict):
        return any(_has_class_label(sub) for sub in feature.values())
    if isinstance(feature, (datasets.List, datasets.Sequence)):
        return _has_class_label(feature.feature)
    return False


def _decode(value: Any, feature: Any) -> Any:
    if value is None:
        return None
    if isinstance(feature, datasets.ClassLabel):
        return feature.int2str(value) if isinstance(value, int) else value
    if isinstance(feature, (dict, datasets.Features)):
        return {key: _decode(value.get(key), sub) for key, sub in feature.items()}
    if isinstance(feature, (datasets.List, datasets.Sequence)):
        inner = feature.feature
        if isinstance(value, dict):  # a Sequence of structs reads back as a dict of lists
            keys = list(value)
            value = [dict(zip(keys, items)) for items in zip(*value.values())]
        return [_decode(item, inner) for item in value]
    return value
