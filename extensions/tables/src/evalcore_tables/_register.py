"""The readers of evalcore-tables (imports only ``evalcore.plugin``: no pandas or pyarrow until one is used)."""

from __future__ import annotations

from evalcore.plugin import ReaderSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_readers"]

PLUGIN_API_VERSION = 2  # readers chosen by a file's suffix or an object's kind came with plugin API 2


@hookimpl
def evalcore_readers() -> list[ReaderSpec]:
    return [
        ReaderSpec(name="csv", implementation="evalcore_tables.csv_reader:csv_source", suffixes=(".csv", ".tsv"),
                   summary="CSV and TSV files with a header line naming the fields, one flat record per row."),
        ReaderSpec(name="parquet", implementation="evalcore_tables.frames:parquet_source", suffixes=(".parquet",),
                   summary="Parquet files (with pyarrow), their columns read as a table's."),
        ReaderSpec(name="frame", implementation="evalcore_tables.frames:frame_source",
                   objects=("pandas", "polars", "pyarrow"),
                   summary="pandas, polars and Arrow tables given as data, with columns= naming each field's column."),
    ]
