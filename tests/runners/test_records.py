import datetime
from typing import Annotated, Literal

import datasets
import pytest

from causal_datasets.errors import RecordValidationError
from causal_datasets.records.base import Record
from tests.support.tiny_dataset import TinyRow, generate


def test_features_from_model_cover_every_kind():
    features = TinyRow.features()
    assert features["answer"] == datasets.ClassLabel(names=["yes", "no"])
    assert features["family"].names == ["chain", "fork", "collider"]
    assert features["size"] == datasets.Value("int64")
    assert features["weight"] == datasets.Value("float64")
    assert features["published"] == datasets.Value("date32")
    assert features["edges"] == datasets.List({"source": datasets.Value("string"), "target": datasets.Value("string")})
    assert features["nodes"].feature["explicitness"] == datasets.ClassLabel(names=["explicit", "implicit", "absent"])
    assert features["tags"] == datasets.List(datasets.Value("string"))


def test_features_survive_the_yaml_round_trip():
    features = TinyRow.features()
    assert datasets.Features._from_yaml_list(features._to_yaml_list()) == features


def test_row_round_trip_through_arrow():
    rows = generate(seed=3)
    table = datasets.Dataset.from_list([r.to_row() for r in rows], features=TinyRow.features())
    assert table.features == TinyRow.features()
    assert table[0]["answer"] in (0, 1)  # stored as class index
    assert [TinyRow.from_row(row, table.features) for row in table] == rows


def test_annotated_feature_override_and_bool():
    class Row(Record):
        count: Annotated[int, datasets.Value("int32")]
        flag: bool

    assert Row.features()["count"] == datasets.Value("int32")
    assert Row.features()["flag"] == datasets.Value("bool")


def test_unsupported_types_are_rejected_with_the_type_named():
    class Bad(Record):
        mapping: dict[str, float]

    with pytest.raises(TypeError, match="dict"):
        Bad.features()

    class BadLiteral(Record):
        level: Literal[1, 2]

    with pytest.raises(TypeError, match="string literals"):
        BadLiteral.features()


def test_validation_error_names_record_and_field():
    good = generate(seed=1)[0].to_row()
    bad = dict(good, id="broken-7", answer="maybe")
    with pytest.raises(RecordValidationError) as info:
        TinyRow.validate_rows([good, bad], where="tiny/default")
    message = str(info.value)
    assert "tiny/default record #1 (id='broken-7')" in message
    assert "field 'answer'" in message
    nested = dict(good, nodes=[{"name": "A", "explicitness": "sometimes"}])
    with pytest.raises(RecordValidationError, match=r"field 'nodes\.0\.explicitness'"):
        TinyRow.validate_rows([nested])


def test_unknown_fields_are_rejected():
    row = dict(generate(seed=1)[0].to_row(), extra_column=1)
    with pytest.raises(RecordValidationError, match="extra_column"):
        TinyRow.validate_rows([row])


def test_dates_stay_dates_in_rows():
    row = generate(seed=2)[0].to_row()
    assert isinstance(row["published"], datetime.date)
