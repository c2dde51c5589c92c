"""CSV and TSV files as records: one flat record per row, its header naming the fields.

Cells are text; an empty cell is a missing field. A column named ``example.query`` or
``prediction.response`` goes where its name says; the other columns are placed by the flat-record
rule (``evalcore.plugin.place_columns``), after ``field_map`` when one is given. The file is UTF-8
(a byte order mark is skipped); a cell may hold up to :data:`CELL_LIMIT` characters.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator, Mapping
from typing import Any

from evalcore.plugin import Chunk, ChunkBuilder, EvalcoreError, FileSource, InputError, place_columns

CELL_LIMIT = 64 * 1024 * 1024
"""The largest cell read, in characters (the csv module's own limit is 128 KiB)."""


def csv_source(path: str | os.PathLike[str], columns: Mapping[str, str] | None = None,
               field_map: Any = None) -> CsvSource:
    """The reader of a ``.csv`` / ``.tsv`` file (``columns`` is for tables: a CSV's fields are mapped
    with ``field_map``, the ``--map`` of the command line)."""
    if columns:
        raise EvalcoreError("columns= applies to DataFrames and Parquet files; map a CSV file's columns "
                            "with field_map (--map NEW=OLD)")
    return CsvSource(path, field_map)


class CsvSource(FileSource):
    """Records from a CSV (or, for ``.tsv``, tab-separated) file with a header line."""

    def __init__(self, path: str | os.PathLike[str], field_map: Any = None) -> None:
        super().__init__(path, field_map)
        self.delimiter = "\t" if self.path.suffix.lower() == ".tsv" else ","

    def chunks(self, size: int) -> Iterator[Chunk]:
        builder = ChunkBuilder(size)
        try:
            handle = open(self.path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", source=self.name) from None
        limit = csv.field_size_limit(CELL_LIMIT)  # the module's limit is global: given back below
        try:
            yield from self._chunks(handle, builder)
        finally:
            csv.field_size_limit(limit)

    def _chunks(self, handle: Any, builder: ChunkBuilder) -> Iterator[Chunk]:
        with handle:
            reader = csv.reader(handle, delimiter=self.delimiter)
            header = self._header(reader)
            self.seen_fields.update(header)
            for position, cells in enumerate(self._rows(reader)):
                source = f"{self.name}:{reader.line_num}"
                try:
                    data = self._record(header, cells, source)
                except InputError as exc:
                    builder.reject(exc)
                else:
                    builder.add_dict(data, source, position, default_id=position + 1)
                if builder.full:
                    yield builder.take()
        if builder.pending:
            yield builder.take()

    def _header(self, reader: Any) -> list[str]:
        header = next(self._rows(reader), None)
        if not header:
            raise InputError("no records: the file is empty; expected a header line naming the fields",
                             source=self.name)
        twice = sorted({name for name in header if header.count(name) > 1})
        if twice:
            numbers = {name: " and ".join(str(i + 1) for i, n in enumerate(header) if n == name) for name in twice}
            places = "; ".join(f"{name!r} in columns {numbers[name]}" for name in twice)
            raise InputError(f"the header names a column twice: {places}; rename one of them",
                             source=f"{self.name}:1")
        return header

    def _rows(self, reader: Any) -> Iterator[list[str]]:
        """The reader's rows; a file that is not UTF-8 text or not CSV is one line of error naming its line."""
        try:
            yield from reader
        except UnicodeDecodeError:
            line, byte = _first_undecodable(self.path)
            raise InputError(
                f"is not UTF-8 text (byte 0x{byte:02x} on line {line}); save it as UTF-8 (for Latin-1: "
                "iconv -f latin1 -t utf-8 FILE > NEW.csv), or in Python read it with pandas.read_csv(FILE, "
                "encoding=...) and pass the DataFrame", source=self.name) from None
        except csv.Error as exc:
            reason = (f"a cell is longer than {CELL_LIMIT:,} characters, the most a cell may hold"
                      if "field limit" in str(exc) else f"cannot read as CSV: {exc}")
            raise InputError(reason, source=f"{self.name}:{reader.line_num}") from None

    def _record(self, header: list[str], cells: list[str], source: str) -> dict[str, Any]:
        if len(cells) > len(header):
            raise InputError(f"{len(cells)} cells but the header names {len(header)} columns", source=source)
        data: dict[str, Any] = {}
        for name, cell in zip(header, cells):
            if cell == "":
                continue
            part, dot, rest = name.partition(".")
            if dot and part in ("example", "prediction"):
                data.setdefault(part, {})[rest] = cell
            else:
                data[name] = cell
        self.remember(data)
        return place_columns(self.field_map.apply(data, source) if self.field_map is not None else data)


def _first_undecodable(path: Any) -> tuple[int, int]:
    """The line number and value of the first byte of ``path`` that is not UTF-8."""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return number, line[exc.start]
    return 0, 0
