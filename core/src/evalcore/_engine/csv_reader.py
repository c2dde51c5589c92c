"""CSV and TSV files as records: one flat record per row, its header naming the fields.

Cells are text; an empty cell is a missing field. A column named ``example.query`` or
``prediction.response`` goes where its name says; the other columns are placed by the flat-record
rule (:mod:`evalcore._contract.field_map`), after ``field_map`` when one is given.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from typing import Any

from evalcore._contract.chunk import Chunk
from evalcore._contract.errors import InputError
from evalcore._contract.field_map import FieldMap, place_columns
from evalcore._contract.records import parse_record

from .readers import FileSource, _ChunkBuilder, keep


class CsvSource(FileSource):
    """Records from a CSV (or, for ``.tsv``, tab-separated) file with a header line."""

    def __init__(self, path: str | os.PathLike[str], field_map: FieldMap | None = None) -> None:
        super().__init__(path, field_map)
        self.delimiter = "\t" if self.path.suffix.lower() == ".tsv" else ","

    def chunks(self, size: int) -> Iterator[Chunk]:
        builder = _ChunkBuilder(size)
        try:
            handle = open(self.path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", source=self.name) from None
        with handle:
            reader = csv.reader(handle, delimiter=self.delimiter)
            header = next(reader, None)
            if not header:
                raise InputError("no records: the file is empty; expected a header line naming the fields",
                                 source=self.name)
            self.seen_fields.update(header)
            for position, cells in enumerate(reader):
                source = f"{self.name}:{reader.line_num}"
                try:
                    builder.add(parse_record(self._record(header, cells, source), source, position + 1), position)
                except InputError as exc:
                    builder.reject(exc)
                if builder.full:
                    yield builder.take()
        if builder.pending:
            yield builder.take()

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
        keep(self.sample, data)
        return place_columns(self.field_map.apply(data, source) if self.field_map is not None else data)
