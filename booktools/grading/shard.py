"""Grading at any scale (issue 35): a deterministic 1/N of a folder per run, and the merge of the shards.

``python -m booktools grade SUBMISSIONS ... --shard K/N`` grades only the entries of SUBMISSIONS
(as ``collect.find_submissions`` lists them, skipped and rejected ones included) whose name,
relative to SUBMISSIONS, hashes to shard K: the first 8 bytes of its SHA-256 (UTF-8, undecodable
bytes kept as they were), as a big-endian integer, modulo N, plus 1 (``shard_of``). The split
depends on nothing but the name and N: not on the order of the listing, the machine, or the other
entries. Beside its OUT, each shard writes its record, ``OUT's name + _shard.json`` (the
*manifest*): K and N, the assignment, the SHA-256 of the hidden tests, the grader's limits, the
columns, the listing it saw (count and digest of every entry's name) and every row as the run
made it (score, status, feedback, student, each check with its message, its CSV cells, the
written answers).

``python -m booktools grade --merge-shards OUT1 ... OUTN --out OUT`` rebuilds the rows of the
whole folder from those records and writes them with the writers one run uses (``scores.Rows``,
``feedback.feedback_markdown``, ``gradebook.per_student_outputs``): the CSV, the feedback folder
(names from ``feedback_names`` over all the rows), the gradebook (a student with files in two
shards is a duplicate there as in one run) and, for written questions, the review folder with
codes from the one key file beside OUT. It refuses shards that are not exactly 1..N of one cut of
one listing, of one assignment, hidden tests and limits, or that hold grader-error rows.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from booktools.grading.collect import student_of
from booktools.grading.course_key import key_id
from booktools.grading.csvfile import csv_cell, write_text
from booktools.grading.feedback import FeedbackFolder, feedback_markdown, feedback_names
from booktools.grading.gradebook import per_student_outputs
from booktools.grading.hidden import hidden_path, load_hidden
from booktools.grading.scores import GRADER_ERROR, CheckColumn, Rows, read_previous_rows
from booktools.grading.text import fmt_score
from onlinelib.grading import Check

FORMAT = "onlinelib-grade-shard/1"
LIMITS = ("timeout", "cpu_seconds", "memory_mb", "max_output_kb", "max_notebook_mb", "max_processes", "judge_memory_mb")

# -- the cut -----------------------------------------------------------------------------------------


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` as (K, N), for ``--shard`` (issue 35).

    Raises
    ------
    ValueError
        Naming the option, its domain and the value, unless K and N are whole numbers with 1 <= K <= N.
    """
    match = re.fullmatch(r"([0-9]{1,9})/([0-9]{1,9})", text.strip())
    if match is None or not 1 <= int(match[1]) <= int(match[2]):
        raise ValueError(
            f"--shard must be K/N, whole numbers with 1 <= K <= N (shard K of N, e.g. --shard 2/3), got {text!r}"
        )
    return int(match[1]), int(match[2])


def shard_of(name: str, shards: int) -> int:
    """The shard of an entry of SUBMISSIONS (issue 35).

    Parameters
    ----------
    name : str
        The entry's name relative to SUBMISSIONS, as ``collect.find_submissions`` gives it
        (``s1/work.md``; a folder that was not searched ends with ``/``).
    shards : int
        N, the number of shards (at least 1).

    Returns
    -------
    int
        K in 1..N: the first 8 bytes of the SHA-256 of the name (UTF-8, undecodable bytes as they
        were), big-endian, modulo N, plus 1. The same on every machine and in every order,
        whatever the other entries are.
    """
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % shards + 1


def listing(entries) -> dict:
    """What a run saw of SUBMISSIONS: the number of entries and the SHA-256 of their sorted names."""
    names = sorted(name for name, _path, _problem in entries)
    text = "\0".join(names).encode("utf-8", "surrogateescape")
    return {"entries": len(names), "sha256": hashlib.sha256(text).hexdigest()}


def select(entries: list, cut: tuple[int, int] | None) -> list:
    """The entries of shard K of N (``cut`` = (K, N); all of them if None), saying how many (issue 35)."""
    if cut is None:
        return entries
    mine = [entry for entry in entries if shard_of(entry[0], cut[1]) == cut[0]]
    print(f"shard {cut[0]}/{cut[1]}: {len(mine)} of the {len(entries)} entries", file=sys.stderr)
    return mine


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# -- the manifest --------------------------------------------------------------------------------------


def manifest_path(out: Path) -> Path:
    """The shard's record beside its CSV: ``scores.csv`` → ``scores_shard.json``."""
    return out.with_name(out.stem + "_shard.json")


def row_record(row: dict) -> dict:
    """A row of the run as JSON data: every field of it, so the merge writes it again as this run did.

    Part of issue 35. The checks become lists ``[name, passed, points, max_points, message]``;
    every other field (score, status, feedback, student, the CSV's cells, the written answers and
    the problems reading them, the cells' errors, whatever the feedback file shows) is kept as it
    is. A field that is not JSON data stops the run (``TypeError``): a record that left it out
    would merge into other feedback than the run's.
    """
    record = {}
    for key, value in row.items():
        if key == "checks":
            value = [[c.name, bool(c.passed), float(c.points), float(c.max_points), c.message] for c in value]
        elif key == "score":
            value = float(value)
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            raise TypeError(f"the shard record cannot hold the row's field {key!r} ({type(value).__name__})") from None
        record[key] = value
    record.setdefault("checks", [])
    return record


def row_from_record(record: dict) -> dict:
    """The row a record stands for, as ``Rows`` holds it: its fields, the checks as ``Check`` (issue 35)."""
    row = dict(record)
    row["checks"] = [
        Check(name, passed, points, most, message) for name, passed, points, most, message in record["checks"]
    ]
    return row


def write_manifest(args, reference, seen: dict, rows: list[dict], kept: dict[str, dict]) -> Path:
    """Write the shard's record beside OUT, atomically (issue 35).

    Parameters
    ----------
    args : argparse.Namespace
        The run's options: ``shard`` (K, N), ``out``, ``assignment`` and the limits (``LIMITS``).
    reference : cli.Reference
        The hidden tests' file, the max score, the title and the CSV's columns.
    seen : dict
        ``listing(entries)`` of the whole of SUBMISSIONS.
    rows : list of dict
        The run's rows (``Rows.rows``, after ``per_student_outputs`` gave them their answers).
    kept : dict
        ``--regrade-errors``: the earlier record's row of each row kept from OUT, by submission
        (their checks are in no CSV); ``{}`` otherwise.

    Returns
    -------
    Path
        ``manifest_path(args.out)``.
    """
    records = []
    for row in rows:
        if row["submission"] in kept:
            record = dict(kept[row["submission"]])
            if isinstance(row.get("answers"), dict):
                record["answers"] = dict(row["answers"])
        else:
            record = row_record(row)
        records.append(record)
    data = {
        "format": FORMAT,
        "shard": args.shard[0],
        "shards": args.shard[1],
        "assignment": args.assignment,
        "hidden_sha256": file_sha256(reference.hidden_file),
        "course_key_id": key_id(),  # issue 37: shards of other keys drew other hidden instances
        "max_score": reference.max_score,
        "title": reference.title,
        "columns": [[c.header, c.name, c.occurrence, c.max_points] for c in reference.columns],
        "listing": seen,
        "limits": {**{name: getattr(args, name) for name in LIMITS}, "sandbox": not args.unsafe_no_sandbox},
        "rows": records,
    }
    path = manifest_path(args.out)
    # private, as the answers file and the key: it maps every submission to its answers
    write_text(path, json.dumps(data, indent=0, sort_keys=True) + "\n", private=True)
    return path


def read_manifest(out: Path) -> dict:
    """The record of the shard whose CSV is ``out``; SystemExit naming the file if it has none or a bad one."""
    path = manifest_path(out)
    if not path.is_file():
        raise SystemExit(
            f"{out} has no shard record ({path} does not exist): grade it with --shard K/N, "
            "and let the run finish (an interrupted run writes none)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"its format is {data.get('format')!r}, not {FORMAT!r}")
        keys = ("shard", "shards", "assignment", "hidden_sha256", "max_score", "title", "columns", "listing")
        keys += ("limits", "rows")
        missing = [key for key in keys if key not in data]
        if missing:
            raise ValueError(f"it lacks {', '.join(missing)}")
    except (OSError, ValueError, AttributeError) as exc:
        raise SystemExit(f"{path} is not a shard record of this grader: {exc}") from None
    return data


def forget_manifest(out: Path) -> None:
    """Delete OUT's shard record (a run is about to replace OUT), if it is one of the grader's."""
    path = manifest_path(out)
    try:
        if path.is_file() and not path.is_symlink() and b'"format": "' + FORMAT.encode() in path.read_bytes():
            path.unlink()
    except OSError:
        pass


def earlier_record(args) -> dict | None:
    """For ``--regrade-errors``: OUT's shard record, which must be of the run's own ``--shard``.

    SystemExit if OUT is a shard and ``--shard`` is not that shard, or ``--shard`` is given and OUT is no shard.
    """
    if not args.regrade_errors:
        return None
    has_record = manifest_path(args.out).is_file()
    if not has_record and args.shard is None:
        return None
    if not has_record:
        raise SystemExit(
            f"--regrade-errors --shard {args.shard[0]}/{args.shard[1]}: {args.out} is not a shard's CSV "
            f"({manifest_path(args.out)} does not exist); regrade it without --shard"
        )
    data = read_manifest(args.out)
    mine = (data["shard"], data["shards"])
    if args.shard != mine:
        given = "no --shard" if args.shard is None else f"--shard {args.shard[0]}/{args.shard[1]}"
        raise SystemExit(
            f"--regrade-errors: {args.out} is shard {mine[0]}/{mine[1]}, and {given} was given: "
            f"add --shard {mine[0]}/{mine[1]}"
        )
    return data


def kept_records(out: Path, earlier: dict | None, kept: list[dict]) -> dict[str, dict]:
    """``--regrade-errors --shard``: the earlier record's row of each row kept, by the kept row's name.

    SystemExit if a kept row has none (OUT's CSV and its record are not of one run).
    """
    if earlier is None:
        return {}
    by_name = {r["submission"]: r for r in earlier["rows"]}
    by_cell = {csv_cell(r["submission"]): r for r in earlier["rows"]}
    found = {row["submission"]: by_name.get(row["submission"]) or by_cell.get(row["submission"]) for row in kept}
    missing = [name for name, record in found.items() if record is None]
    if missing:
        raise SystemExit(
            f"--regrade-errors: {missing[0]!r} has a row in the CSV and none in its shard record "
            f"{manifest_path(out)}: grade the shard again with --force"
        )
    return found


# -- the merge ---------------------------------------------------------------------------------------------


def _same(outs: list[Path], manifests: list[dict], key: str, what: str) -> None:
    values = {}
    for out, data in zip(outs, manifests, strict=True):
        values.setdefault(json.dumps(data.get(key), sort_keys=True), []).append(str(out))
    if len(values) > 1:
        groups = "; ".join(f"{', '.join(paths)}: {json.loads(value)!r}"[:300] for value, paths in values.items())
        raise SystemExit(f"--merge-shards: the shards differ in {what}, so they are not parts of one run: {groups}")


def _check_cut(outs: list[Path], manifests: list[dict]) -> None:
    """Every shard 1..N once, each row in its own shard, each entry of the listing in exactly one row."""
    cuts = {(data["shard"], data["shards"]) for data in manifests}
    counts = {data["shards"] for data in manifests}
    if len(counts) > 1:
        shown = ", ".join(f"{out} is {d['shard']}/{d['shards']}" for out, d in zip(outs, manifests, strict=True))
        raise SystemExit(f"--merge-shards: the shards are of different cuts: {shown}")
    (shards,) = counts
    seen: dict[int, Path] = {}
    for out, data in zip(outs, manifests, strict=True):
        if data["shard"] in seen:
            raise SystemExit(
                f"--merge-shards: shard {data['shard']}/{shards} is given twice (overlapping): {seen[data['shard']]} "
                f"and {out}"
            )
        seen[data["shard"]] = out
    missing = [f"{k}/{shards}" for k in range(1, shards + 1) if (k, shards) not in cuts]
    if missing:
        raise SystemExit(
            f"--merge-shards: shard(s) {', '.join(missing)} missing: a merge needs all {shards} shards of the cut"
        )
    owner: dict[str, Path] = {}
    for out, data in zip(outs, manifests, strict=True):
        for record in data["rows"]:
            name = record["submission"]
            if shard_of(name, shards) != data["shard"]:
                raise SystemExit(f"--merge-shards: {out} holds {name!r}, which is not of its shard {data['shard']}")
            if name in owner:
                raise SystemExit(f"--merge-shards: {name!r} has a row in both {owner[name]} and {out}")
            owner[name] = out
    expected = manifests[0]["listing"]["entries"]
    if len(owner) != expected:
        raise SystemExit(
            f"--merge-shards: the shards hold {len(owner)} rows, and the submissions folder they saw has "
            f"{expected} entries: grade again the shards whose folder changed"
        )


def _check_rows(outs: list[Path], manifests: list[dict]) -> None:
    """No grader-error row, and each CSV is the one its record was written with."""
    for out, data in zip(outs, manifests, strict=True):
        errors = [r["submission"] for r in data["rows"] if r["status"] == GRADER_ERROR]
        if errors:
            raise SystemExit(
                f"--merge-shards: {out} has {len(errors)} {GRADER_ERROR} row(s) (e.g. {errors[0]!r}): regrade them "
                f"first with python -m booktools grade SUBMISSIONS --assignment {data['assignment']} --out {out} "
                f"--shard {data['shard']}/{data['shards']} --regrade-errors"
            )
        if not out.is_file():
            raise SystemExit(f"--merge-shards: {out} does not exist (its record {manifest_path(out)} does)")
        previous, _headers = read_previous_rows(out)
        in_csv = sorted((csv_cell(r["submission"]), r["status"], fmt_score(r["score"])) for r in previous)
        recorded = sorted((csv_cell(r["submission"]), r["status"], fmt_score(r["score"])) for r in data["rows"])
        if in_csv != recorded:
            raise SystemExit(
                f"--merge-shards: {out} is not the CSV its record {manifest_path(out)} was written with "
                "(graded again or edited since): grade the shard again"
            )


def check_shards(outs: list[Path], manifests: list[dict], assignment: str | None) -> dict:
    """The first record, once the shards are known to be exactly the parts of one run (issue 35).

    Parameters
    ----------
    outs : list of Path
        The shards' CSVs (``--merge-shards``).
    manifests : list of dict
        Their records (``read_manifest``), in the same order.
    assignment : str or None
        ``--assignment``, if given: the shards must be of it.

    Raises
    ------
    SystemExit
        With the reason: shards of other assignments, hidden tests, columns, limits or submission
        folders; of other cuts; a shard given twice or missing; a row outside its shard or in two;
        fewer rows than the folder's entries; a grader-error row; a CSV that is not its record's.
    """
    _same(outs, manifests, "assignment", "assignment")
    if assignment is not None and manifests[0]["assignment"] != assignment:
        raise SystemExit(
            f"--merge-shards: the shards are of assignment {manifests[0]['assignment']!r}, not {assignment!r}"
        )
    _same(outs, manifests, "hidden_sha256", "hidden tests (the SHA-256 of NAME_hidden.py)")
    keys = {str(data.get("course_key_id")) for data in manifests}
    if len(keys) > 1:
        raise SystemExit(
            "--merge-shards: the shards were graded with different course keys, so with different hidden "
            f"instances (key fingerprints {', '.join(sorted(keys))}): grade every shard with the same key"
        )
    _same(outs, manifests, "columns", "checks (the CSV's columns)")
    _same(outs, manifests, "max_score", "maximum score")
    _same(outs, manifests, "limits", "limits (--timeout, --cpu-seconds, --memory-mb, ... or the sandbox)")
    _same(outs, manifests, "listing", "submissions folder (the entries each shard found)")
    _check_cut(outs, manifests)
    _check_rows(outs, manifests)
    return manifests[0]


def check_merge_options(parser, args) -> None:
    """Stop (``parser.error``) on options ``--merge-shards`` does not take, or a missing ``--out``."""
    if args.submissions is not None:
        parser.error(f"--merge-shards takes no SUBMISSIONS (got {args.submissions}): it reads the shards' outputs")
    if args.out is None:
        parser.error("--out is required")
    for option in ("shard", "regrade_errors"):
        if getattr(args, option):
            parser.error(f"--{option.replace('_', '-')} cannot be given with --merge-shards")
    if args.merge_manual is not None and not args.merge_manual.is_file():
        parser.error(f"--merge-manual: {args.merge_manual} is not a file (a filled copy of the review's rubric.csv)")


def merge_shards(args, feedback_dir: Path) -> tuple[Rows, list[CheckColumn], float, list[str]]:
    """Write what one run over the whole folder would have written, from its shards (issue 35).

    The rows are rebuilt from the shards' records (``row_from_record``) and written by the writers
    one run uses: ``scores.Rows`` (the CSV, sorted), ``feedback.feedback_markdown`` under the names
    ``feedback_names`` gives the whole run, and ``gradebook.per_student_outputs`` (the gradebook,
    the review folder with the codes of the key file beside OUT, ``--merge-manual``).

    Parameters
    ----------
    args : argparse.Namespace
        The command line: ``merge_shards`` (the shards' CSVs), ``out``, ``assignment`` (None: the
        shards'), ``hidden_dir`` and the per-student options.
    feedback_dir : Path
        The merged run's feedback folder (checked by ``cli.check_outputs``).

    Returns
    -------
    tuple
        (``Rows``, the columns, the max score, the lines for the lecturer), for ``cli.report``.

    Raises
    ------
    SystemExit
        ``check_shards``'s refusals; OUT is one of the shards; the hidden tests are not the file
        the shards were graded with.
    """
    outs = list(args.merge_shards)
    for out in outs:
        if Path(out).resolve() == Path(args.out).resolve():
            raise SystemExit(f"--merge-shards: --out {args.out} is one of the shards: write the merge elsewhere")
    manifests = [read_manifest(out) for out in outs]
    first = check_shards(outs, manifests, args.assignment)
    args.assignment = first["assignment"]
    hidden_file = hidden_path(args.assignment, args.hidden_dir.resolve())
    if file_sha256(hidden_file) != first["hidden_sha256"]:
        raise SystemExit(
            f"--merge-shards: {hidden_file} is not the file the shards were graded with (its SHA-256 differs): "
            "merge with the hidden tests of the run"
        )
    hidden = load_hidden(hidden_file)
    columns = [CheckColumn(*column) for column in first["columns"]]
    max_score, title = float(first["max_score"]), first["title"]
    merged = [row_from_record(record) for data in manifests for record in data["rows"]]
    names = feedback_names(row["submission"] for row in merged)
    rows = Rows(
        args.out, FeedbackFolder(feedback_dir), max_score, title, columns, names, merged, detail=args.feedback_detail
    )
    try:
        for row in rows.rows:
            path = rows.feedback_dir / names[row["submission"]]
            path.write_text(feedback_markdown(row, max_score, title, detail=rows.detail), encoding="utf-8")
        rows.finish()
    finally:
        rows.close()
    flagged = per_student_outputs(args, hidden, rows, max_score, title)
    students = {student_of(row) for row in rows.rows if row["status"] != "skipped"}
    flagged.insert(0, f"merged {len(outs)} shard(s): {len(rows.rows)} rows, {len(students)} student(s)")
    return rows, columns, max_score, flagged
