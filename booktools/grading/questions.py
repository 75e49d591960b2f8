"""Written questions and their rubrics, as the hidden-tests file declares them (``QUESTIONS``, issue 27)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from booktools.grading.text import show

# -- questions and their rubric ----------------------------------------------------------------

ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
_QUESTION_KEYS = ("id", "title", "items")
_OPTIONAL_QUESTION_KEYS = ("model",)
_ITEM_KEYS = ("id", "points", "text", "full", "half", "zero", "errors")
LEVELS = ("zero", "half", "full")  # a descriptor's mark: 0, half the item's points, all of them


@dataclass(frozen=True)
class RubricItem:
    """One line of a question's rubric: ``points`` (exact, >= 0) for what ``text`` describes.

    An item written as a dict (issue 36) also has its descriptors: what earns all its points
    (``full``), half (``half``) and none (``zero``), and the common errors a marker must catch
    (``errors``); such an item is marked 0, points/2 or points, nothing else.
    """

    id: str
    text: str
    points: Fraction
    full: str = ""
    half: str = ""
    zero: str = ""
    errors: tuple[str, ...] = ()

    @property
    def has_descriptors(self) -> bool:
        """True if the item has its 0 / ½ / 1 descriptors (then only those marks are allowed)."""
        return bool(self.full)

    @property
    def levels(self) -> tuple[Fraction, ...]:
        """The marks a descriptor gives, ``(0, points/2, points)``; empty for an item without them."""
        return (Fraction(0), self.points / 2, self.points) if self.has_descriptors else ()


@dataclass(frozen=True)
class Question:
    """A written question: its id (the answer cells' ``"question"``), its title, its rubric and,
    for the lecturer and the markers only, a model answer (``model``, Markdown; issue 36)."""

    id: str
    title: str
    items: tuple[RubricItem, ...]
    model: str = ""

    @property
    def points(self) -> Fraction:
        """The question's maximum: the sum of its items' points."""
        return sum((item.points for item in self.items), Fraction(0))


def fmt_points(value: Fraction) -> str:
    """A number as a spreadsheet reads it back exactly: ``3``, ``1.5``, or ``1/3`` (no finite decimal)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
        if digits > 12:
            return f"{value.numerator}/{value.denominator}"
    scaled = str(abs(value.numerator * 10**digits // value.denominator)).rjust(digits + 1, "0")
    return f"{'-' if value < 0 else ''}{scaled[:-digits]}.{scaled[-digits:]}"


def _exact_points(value: object, where: str) -> Fraction:
    """The hidden file's points as an exact number >= 0; ``where`` names the value in errors."""
    expected = "an int, a Fraction, a string such as '1/2' or '1.5', or a short decimal float such as 0.5"
    if isinstance(value, bool):
        raise TypeError(f"{where}: points must be {expected}, got the bool {value!r}")
    if isinstance(value, int | Fraction):
        points = Fraction(value)
    elif isinstance(value, float):
        # Fraction(str(x)) is the decimal the lecturer wrote, but only while repr shows it whole:
        # 1/3 as a float (0.3333333333333333) is not a third.
        if not math.isfinite(value) or not re.fullmatch(r"-?\d+(\.\d{1,6})?", repr(value)):
            raise ValueError(f"{where}: points must be {expected} (write 1/3 as '1/3'), got {value!r}")
        points = Fraction(repr(value))
    elif isinstance(value, str):
        points = parse_number(value)
        if points is None:
            raise ValueError(f"{where}: points must be {expected}, got {value!r}")
    else:
        raise TypeError(f"{where}: points must be {expected}, got {type(value).__name__} {show(value)}")
    if points < 0:
        raise ValueError(f"{where}: points must be >= 0, got {value!r}")
    return points


def parse_number(text: str) -> Fraction | None:
    """``3``, ``-1``, ``1.5``, ``1,5`` (a spreadsheet's decimal comma) or ``1/3``; None if it is none of them."""
    text = text.strip()
    if not re.fullmatch(r"-?\d{1,12}(?:[.,]\d{1,12})?|\d{1,12}/\d{1,12}", text):
        return None
    try:
        return Fraction(text.replace(",", "."))
    except ZeroDivisionError:
        return None


def _check_id(value: object, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: the {what} must be a str matching [A-Za-z0-9_-]{{1,40}}, got {show(value)}")
    if not ID.fullmatch(value):
        raise ValueError(f"{where}: the {what} must match [A-Za-z0-9_-]{{1,40}}, got {value!r}")
    return value


def questions_from_hidden(questions: object) -> tuple[Question, ...]:
    """The written questions a hidden-tests file declares (its ``QUESTIONS``), checked.

    Part of issue 27 (written answers, graded by question).

    Parameters
    ----------
    questions : list of dict
        ``[{"id": "promotion", "title": "Prove the promotion lemma", "items": [item, ...],
        "model": "a model proof"}, ...]`` (``model`` optional). An item is a dict ``{"id",
        "points", "text", "full", "half", "zero", "errors"}``: the claim, what earns all the
        points, half of them and none (non-empty strs), and the common errors the marker must
        catch (a non-empty list of strs); or, without descriptors, a tuple ``(item id,
        description, points)``. Ids match ``[A-Za-z0-9_-]{1,40}``; question ids are
        unique (also ignoring case: each names a file ``<id>.html``) and not ``index``; item ids are
        unique within their question, and a question has at least one item. Points are exact and
        >= 0: an int, a Fraction, a string ``"1/2"`` or ``"1.5"``, or a float that is a short decimal
        (``0.5``, read as ``Fraction("0.5")``). An empty list (no written questions) is allowed.

    Returns
    -------
    tuple of Question

    Raises
    ------
    TypeError, ValueError
        Naming the entry (``QUESTIONS[1]['items'][0]``), what was expected and what was given.
    """
    if not isinstance(questions, list | tuple):
        raise TypeError(f"QUESTIONS must be a list of dicts, got {type(questions).__name__} {show(questions)}")
    result, seen = [], {}
    for i, entry in enumerate(questions):
        where = f"QUESTIONS[{i}]"
        if not isinstance(entry, dict):
            raise TypeError(f"{where} must be a dict with keys {_QUESTION_KEYS}, got {type(entry).__name__}")
        missing = [key for key in _QUESTION_KEYS if key not in entry]
        unknown = [key for key in entry if key not in _QUESTION_KEYS + _OPTIONAL_QUESTION_KEYS]
        if missing or unknown:
            raise ValueError(
                f"{where} must have the keys {_QUESTION_KEYS} and may have {_OPTIONAL_QUESTION_KEYS}; "
                f"missing {missing}, unknown {unknown}"
            )
        qid = _check_id(entry["id"], f"{where}['id']", "question id")
        if qid.lower() == "index":
            raise ValueError(f"{where}['id']: 'index' is taken by the review's index.html, got {qid!r}")
        if qid.lower() in seen:
            raise ValueError(
                f"{where}['id']: {qid!r} is already the id of QUESTIONS[{seen[qid.lower()]}] (ids are compared ignoring case)"
            )
        seen[qid.lower()] = i
        title = entry["title"]
        if not isinstance(title, str) or not title.strip():
            raise (TypeError if not isinstance(title, str) else ValueError)(
                f"{where}['title'] must be a non-empty str, got {show(title)}"
            )
        raw_items = entry["items"]
        if not isinstance(raw_items, list | tuple) or not raw_items:
            raise (TypeError if not isinstance(raw_items, list | tuple) else ValueError)(
                f"{where}['items'] must be a non-empty list of (item id, description, points), got {show(raw_items)}"
            )
        items = [_item(raw, f"{where}['items'][{j}]") for j, raw in enumerate(raw_items)]
        ids = [item.id for item in items]
        for j, item_id in enumerate(ids):
            if item_id in ids[:j]:
                raise ValueError(f"{where}['items'][{j}]: the item id {item_id!r} appears twice in question {qid!r}")
        model = entry.get("model", "")
        if not isinstance(model, str):
            raise TypeError(f"{where}['model'] must be a str (Markdown), got {show(model)}")
        result.append(Question(qid, title.strip(), tuple(items), model.strip()))
    return tuple(result)


def _text(value: object, where: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise (TypeError if not isinstance(value, str) else ValueError)(
            f"{where}: the {what} must be a non-empty str, got {show(value)}"
        )
    return value.strip()


def _item(raw: object, where: str) -> RubricItem:
    """One rubric item: a dict with descriptors (issue 36) or a tuple (item id, description, points)."""
    if isinstance(raw, dict):
        missing = [key for key in _ITEM_KEYS if key not in raw]
        unknown = [key for key in raw if key not in _ITEM_KEYS]
        if missing or unknown:
            raise ValueError(f"{where} must have exactly the keys {_ITEM_KEYS}; missing {missing}, unknown {unknown}")
        errors = raw["errors"]
        if not isinstance(errors, list | tuple) or not errors:
            raise (TypeError if not isinstance(errors, list | tuple) else ValueError)(
                f"{where}['errors'] must be a non-empty list of the common errors (strs), got {show(errors)}"
            )
        return RubricItem(
            _check_id(raw["id"], where, "item id"),
            _text(raw["text"], where, "text"),
            _exact_points(raw["points"], where),
            full=_text(raw["full"], where, "'full' descriptor"),
            half=_text(raw["half"], where, "'half' descriptor"),
            zero=_text(raw["zero"], where, "'zero' descriptor"),
            errors=tuple(_text(e, f"{where}['errors'][{k}]", "error") for k, e in enumerate(errors)),
        )
    if not isinstance(raw, list | tuple) or len(raw) != 3:
        raise TypeError(
            f"{where} must be a dict of the keys {_ITEM_KEYS} or a tuple (item id, description, points), got {show(raw)}"
        )
    return RubricItem(
        _check_id(raw[0], where, "item id"), _text(raw[1], where, "description"), _exact_points(raw[2], where)
    )


def check_questions(questions: object) -> tuple[Question, ...]:
    """Questions as :func:`questions_from_hidden` makes them (their ids name files and go into pages)."""
    if not isinstance(questions, Sequence) or not all(isinstance(q, Question) for q in questions):
        raise TypeError(f"questions must be a sequence of Question (from questions_from_hidden), got {show(questions)}")
    for q in questions:
        if not ID.fullmatch(q.id) or not all(ID.fullmatch(item.id) for item in q.items):
            raise ValueError(f"questions: ids must match [A-Za-z0-9_-]{{1,40}}, got question {q.id!r}")
    return tuple(questions)
