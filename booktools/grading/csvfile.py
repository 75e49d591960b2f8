"""Every CSV file the grader writes and reads: one writer, safe in every spreadsheet locale (issue 35).

A spreadsheet reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or CR) as a
formula, and one with ``;`` as its list separator (Excel in much of continental Europe) splits a
comma-separated line at every ``;`` it meets outside a quoted field. Every CSV the grader writes
therefore goes through :class:`CsvWriter` (or :func:`write_csv`, which uses it):

* every field is quoted (``csv.QUOTE_ALL``) and made printable (control characters escaped, so no
  line break or tab is ever inside a field);
* a field that would *start* a formula in either reading gets one ``'`` put before it: at the start
  of the field, and right after every ``;`` in it (where a ``;`` reading starts a new field), when
  what follows, after any spaces and quote characters (``"`` ``'``), is a formula character
  (:data:`FORMULA_CHARS`: ``= + - @``, tab, CR, and their full-width, small, superscript and
  subscript forms) or, after a ``;``, the end of the field. Spaces are skipped because LibreOffice
  and Google Sheets may trim them on import; quote characters because a ``;`` reading takes
  ``""=1`` (a doubled quote after the ``;``) as the field ``=1``.

:func:`to_cell` is that neutralisation and :func:`from_cell` undoes exactly it, so
:func:`read_csv` gives back the values the writer was given, whatever they were.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from booktools.grading.text import printable

# -- the cells ---------------------------------------------------------------------------------

#: Characters a spreadsheet may read as the start of a formula: ``= + - @``, tab and CR, and every
#: character whose NFKC form is one of ``= + - @`` (full-width, small, superscript, subscript forms).
FORMULA_CHARS = "=+-@\t\r\u207a\u207c\u208a\u208c\ufb29\ufe62\ufe63\ufe66\ufe6b\uff0b\uff0d\uff1d\uff20"
_F = re.escape(FORMULA_CHARS)
_LEAD = "[\"' ]*"  # spaces and quote characters a formula may hide behind
_START = re.compile(rf"^(?={_LEAD}[{_F}])")
_AFTER_SEMICOLON = re.compile(rf"(?<=;)(?={_LEAD}(?:[{_F}]|$))")
_START_GUARD = re.compile(rf"^'(?={_LEAD}[{_F}])")
_SEMICOLON_GUARD = re.compile(rf"(?<=;)'(?={_LEAD}(?:[{_F}]|$))")


def to_cell(value: str) -> str:
    """``value`` with a ``'`` before every place a spreadsheet could start a formula (issue 35).

    Such a place is the start of the value and the place right after each ``;``, when what
    follows it, past spaces and quote characters, is one of :data:`FORMULA_CHARS` (or, after a
    ``;``, the end of the value). Already-quoted text gets one more ``'``, so :func:`from_cell`
    gives back exactly ``value``.
    """
    return _AFTER_SEMICOLON.sub("'", _START.sub("'", value, count=1))


def from_cell(value: str) -> str:
    """Undo :func:`to_cell` exactly: one ``'`` less at every place it put one (issue 35)."""
    return _SEMICOLON_GUARD.sub("", _START_GUARD.sub("", value, count=1))


def csv_cell(value) -> str:
    """The text a CSV file of the grader holds for ``value``: printable, then :func:`to_cell`.

    Part of issue 35. Control characters are escaped (a tab as ``\\t``), so no tab or CR is ever
    left to start a formula; a formula start is neutralised with ``'``.
    """
    return to_cell(printable("" if value is None else value))


def cell_value(value) -> str:
    """What :func:`read_csv` gives back for a value the grader wrote: its printable form (issue 35)."""
    return printable("" if value is None else value)


# -- writing -------------------------------------------------------------------------------------


class CsvWriter:
    """The one CSV writer of the grader (issue 35): every field quoted, printable and neutralised.

    Parameters
    ----------
    handle : text file
        Opened with ``newline=""`` and UTF-8. Rows are written with ``\\r\\n`` line ends.
    """

    def __init__(self, handle):
        self._writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\r\n")

    def writerow(self, cells: Iterable) -> None:
        self._writer.writerow([csv_cell(cell) for cell in cells])

    def writerows(self, rows: Iterable[Iterable]) -> None:
        for row in rows:
            self.writerow(row)


def write_text(path: Path, text: str, *, private: bool = False) -> None:
    """Write atomically: a temporary file beside it, renamed over it; ``private``: mode 0600."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(tmp, 0o600 if private else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_csv(path: Path, header: list[str], rows: Iterable[Iterable], *, private: bool = False) -> None:
    """Write a whole CSV file with :class:`CsvWriter`, atomically (issue 35)."""
    buffer = io.StringIO(newline="")
    writer = CsvWriter(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    write_text(Path(path), buffer.getvalue(), private=private)


# -- reading -------------------------------------------------------------------------------------


def read_csv(path: Path, *, strip: bool = True, exact: bool = False) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (row number, cells) of a CSV the grader wrote or the lecturer edited; row 1 is the header.

    Every cell goes through :func:`from_cell` (issue 35). Blank rows are skipped; cells are then
    stripped of spaces unless ``strip`` is false, and the header's names stripped and lower-cased
    unless ``exact`` is true (which also keeps cells as they are). UTF-8 with or without BOM; a
    header with ';' or tabs and no comma (a spreadsheet's regional setting) sets the separator.
    """
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: expected UTF-8 text, got an undecodable byte at offset {exc.start}") from None
    first = text.split("\n", 1)[0]
    delimiter = "," if "," in first else ";" if ";" in first else "\t" if "\t" in first else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    strip = strip and not exact
    rows = []
    try:
        header = [from_cell(cell) if exact else from_cell(cell).strip().lower() for cell in next(reader, [])]
        for number, cells in enumerate(reader, 2):
            if any(cell.strip() for cell in cells):
                cells = [from_cell(cell) for cell in cells]
                rows.append((number, [cell.strip() for cell in cells] if strip else cells))
    except csv.Error as exc:
        raise ValueError(f"{path}, row {len(rows) + 2}: not a valid CSV row ({exc})") from None
    if not header:
        raise ValueError(f"{path}: expected a CSV file with a header row, got an empty file")
    return header, rows
