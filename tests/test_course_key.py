"""The course key (issue 37, integrity): hidden instances drawn from a secret kept outside the repository.

``booktools.grading.course_key`` reads the key from ``BOOKTOOLS_COURSE_KEY``, a key file or the
public test key, and seeds each hidden file's random instances with HMAC-SHA256(key, label). Here:
the same key gives the same instances and another key others (compared array by array on several
assignments); the public key is announced once; a bad key is refused with its source named; no
hidden file keeps a fixed seed for a keyed instance; a submission that hunts for the key in its
environment, the key file and ``/proc`` finds nothing in the sandbox (and finds the file without
it, the control that shows the hunt works); and the grader runs from a lecturer kit outside the
repository, with no ``lecturer/`` folder in reach.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from booktools.grading import course_key
from booktools.grading.course_key import (
    ENV_KEY,
    ENV_KEY_FILE,
    PUBLIC_KEY_WARNING,
    PUBLIC_TEST_KEY,
    course_rng,
    draw_until,
    load_course_key,
    parse_key,
)
from booktools.grading.hidden import load_hidden
from booktools.grading.isolation import WORKER_ENV, check_key_not_mounted, find_bwrap
from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]
LECTURER = ROOT / "book" / "assignments" / "lecturer"
KEY_A = "0f" * 32
KEY_B = "a5" * 32
needs_bwrap = pytest.mark.skipif(
    find_bwrap() is None and not os.environ.get("CI"),
    reason="bubblewrap is not installed (apt-get install bubblewrap); CI installs it and runs these",
)


@pytest.fixture
def no_key(monkeypatch, tmp_path):
    """An environment with no course key set and a home folder without a key file."""
    for name in (ENV_KEY, ENV_KEY_FILE, course_key._WARNED_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def hidden(name):
    return load_hidden(LECTURER / f"{name}_hidden.py")


def arrays(name):
    """Every array of an assignment's hidden instances, in order (streams' X and y, cases' arguments)."""
    module = hidden(name)
    items = module.streams() if hasattr(module, "streams") else module.cases()
    out = []
    for item in items:
        values = (item.X, item.y) if hasattr(item, "X") else item.args
        out += [np.asarray(v) for v in values if isinstance(v, np.ndarray)]
    return out


def same(first, second) -> bool:
    return len(first) == len(second) and all(
        a.shape == b.shape and np.array_equal(a, b) for a, b in zip(first, second, strict=True)
    )


# -- where the key comes from -----------------------------------------------------------------------


def test_the_key_is_read_as_hex_or_text_and_from_env_before_file_before_home(no_key, tmp_path):
    assert parse_key(KEY_A, "x") == bytes.fromhex(KEY_A)
    assert parse_key("  a course passphrase of some length\n", "x") == b"a course passphrase of some length"
    home_file = tmp_path / "home" / ".config" / "onlinelib-book" / "course-key"
    home_file.parent.mkdir(parents=True)
    home_file.write_text(KEY_B + "\n", encoding="utf-8")
    home_file.chmod(0o600)
    assert load_course_key() == (bytes.fromhex(KEY_B), False)
    other = tmp_path / "kit-key"
    other.write_text("c3" * 16, encoding="utf-8")
    other.chmod(0o600)
    no_key.setenv(ENV_KEY_FILE, str(other))
    assert load_course_key() == (bytes.fromhex("c3" * 16), False)
    no_key.setenv(ENV_KEY, KEY_A)
    assert load_course_key() == (bytes.fromhex(KEY_A), False)
    home_file.unlink()
    no_key.delenv(ENV_KEY)
    no_key.delenv(ENV_KEY_FILE)
    assert load_course_key() == (PUBLIC_TEST_KEY, True)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        (ENV_KEY, "", rf"{ENV_KEY} is empty"),
        (ENV_KEY, "   \n", rf"{ENV_KEY} is empty"),
        (ENV_KEY, "abcd", rf"{ENV_KEY} holds a course key of 2 bytes; it needs at least 16"),
        (ENV_KEY_FILE, "", rf"{ENV_KEY_FILE} is empty"),
        (ENV_KEY_FILE, "/nonexistent/course-key", r"/nonexistent/course-key does not exist"),
    ],
)
def test_a_bad_key_is_refused_naming_where_it_came_from(no_key, variable, value, message):
    no_key.setenv(variable, value)
    with pytest.raises(ValueError, match=message):
        load_course_key()
    with pytest.raises(ValueError, match=message):
        course_rng("halving/streams")


def test_an_unreadable_or_empty_key_file_is_refused_naming_the_file(no_key, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    no_key.setenv(ENV_KEY_FILE, str(folder))
    with pytest.raises(ValueError, match=rf"{ENV_KEY_FILE}=.*a-folder: cannot read the course key file"):
        load_course_key()
    empty = tmp_path / "empty-key"
    empty.write_text("\n", encoding="utf-8")
    no_key.setenv(ENV_KEY_FILE, str(empty))
    with pytest.raises(ValueError, match=rf"{ENV_KEY_FILE}=.*empty-key is empty"):
        load_course_key()
    binary = tmp_path / "binary-key"
    binary.write_bytes(b"\xff\xfe" * 20)
    no_key.setenv(ENV_KEY_FILE, str(binary))
    with pytest.raises(ValueError, match="binary-key: cannot read"):
        load_course_key()
    home_file = tmp_path / "home" / ".config" / "onlinelib-book" / "course-key"
    home_file.parent.mkdir(parents=True)
    home_file.write_text("", encoding="utf-8")
    no_key.delenv(ENV_KEY_FILE)
    with pytest.raises(ValueError, match=re.escape(f"{home_file} is empty")):
        load_course_key()


def test_labels_and_keys_are_checked():
    for label in ("", None, 3):
        with pytest.raises(ValueError, match="label must be a non-empty string"):
            course_rng(label, key=PUBLIC_TEST_KEY)
    with pytest.raises(ValueError, match="key must be non-empty bytes"):
        course_rng("halving/streams", key="text")
    with pytest.raises(TypeError, match="must be text"):
        parse_key(b"bytes", "x")


def test_the_public_key_is_announced_once_on_stderr(no_key, capsys):
    first = course_rng("halving/streams").integers(2**62, size=4)
    assert capsys.readouterr().err.strip() == PUBLIC_KEY_WARNING
    again = course_rng("halving/streams").integers(2**62, size=4)
    assert capsys.readouterr().err == ""
    assert (first == again).all()
    no_key.setenv(ENV_KEY, KEY_A)
    no_key.delenv(course_key._WARNED_ENV)
    course_rng("halving/streams")
    assert capsys.readouterr().err == "", "a course key set: no warning"


def test_a_readable_key_file_is_warned_about(no_key, tmp_path, capsys):
    path = tmp_path / "course-key"
    path.write_text(KEY_A, encoding="utf-8")
    path.chmod(0o644)
    no_key.setenv(ENV_KEY_FILE, str(path))
    load_course_key()
    assert f"readable by other users: chmod 600 {path}" in capsys.readouterr().err
    load_course_key()
    assert capsys.readouterr().err == "", "warned once"
    path.chmod(0o600)
    no_key.delenv(course_key._WARNED_ENV)
    load_course_key()
    assert capsys.readouterr().err == ""


def test_the_seed_is_hmac_sha256_of_the_label():
    """Pinned: the same numbers on every machine and numpy (SeedSequence and PCG64 are stable)."""
    import hashlib
    import hmac

    digest = hmac.new(bytes.fromhex(KEY_A), b"rwma/cases", hashlib.sha256).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 32, 4)]
    expected = np.random.default_rng(np.random.SeedSequence(words)).integers(2**62, size=3)
    assert (course_rng("rwma/cases", key=bytes.fromhex(KEY_A)).integers(2**62, size=3) == expected).all()
    assert not (course_rng("rwma/other", key=bytes.fromhex(KEY_A)).integers(2**62, size=3) == expected).all()


def test_draw_until_returns_the_first_draw_that_holds_and_names_what_it_missed():
    rng = np.random.default_rng(0)
    assert draw_until(rng, lambda r: int(r.integers(10)), lambda v: v == 7, "a seven") == 7
    with pytest.raises(RuntimeError, match="no draw of 5 gave an eleven"):
        draw_until(rng, lambda r: int(r.integers(10)), lambda v: v == 11, "an eleven", tries=5)


# -- the hidden instances follow the key --------------------------------------------------------------

KEYED = ["halving", "rwma", "perceptron_proofs", "normalized_step", "winnow1", "winnow2", "kernel_perceptron"]


@pytest.mark.parametrize("name", KEYED)
def test_the_same_key_gives_the_same_instances_and_another_key_others(no_key, name):
    no_key.setenv(ENV_KEY, KEY_A)
    first = arrays(name)
    assert same(first, arrays(name)), "the same key must rebuild the same instances"
    no_key.setenv(ENV_KEY, KEY_B)
    other = arrays(name)
    assert not same(first, other), f"{name}: another key gave the same instances"
    no_key.setenv(ENV_KEY, KEY_A)
    assert same(first, arrays(name))
    no_key.delenv(ENV_KEY)
    public = arrays(name)
    assert not same(first, public) and not same(other, public)


def test_certificate_classes_follow_the_key_too(no_key):
    tables = {}
    for key in (KEY_A, KEY_B):
        no_key.setenv(ENV_KEY, key)
        tables[key] = [
            c.params["table"] for c in [*hidden("mistake_tree").cases(), *hidden("dimensions").shattered_cases()]
        ]
    differs = [not np.array_equal(a, b) for a, b in zip(tables[KEY_A], tables[KEY_B], strict=True)]
    assert sum(differs) == 2, "exactly the two random classes are keyed; the named ones stay"


def test_every_hidden_file_says_which_instances_are_keyed_and_keeps_no_fixed_seed_for_them():
    allowed = {  # seeds that draw no hidden instance
        "kernel_stream": ["np.random.default_rng(20261212 + n)"],  # the lecturer's own construction
        "winnow2": ["np.random.default_rng(0)"] * 2,  # the chapter's searched sequences, as in the chapter
        "halving": ["np.random.default_rng(0)"],  # Randomized Halving seeded 0, a shortcut that must err
    }
    files = sorted(LECTURER.glob("*_hidden.py"))
    assert len(files) >= 16
    for path in files:
        name = path.name[: -len("_hidden.py")]
        text = path.read_text(encoding="utf-8")
        module = hidden(name)
        assert "Keyed instances" in module.__doc__, f"{path.name}: the docstring must say which instances are keyed"
        public = text[text.index("def public_checks") :] if "def public_checks" in text else ""
        public = public[: public.index("\ndef ", 1)] if "\ndef " in public[1:] else public
        seeds = re.findall(r"np\.random\.default_rng\([^)]*\)", text.replace(public, ""))
        assert seeds == allowed.get(name, []), f"{path.name}: a fixed seed outside the public checks: {seeds}"
        if "Keyed instances: none" not in module.__doc__:
            assert f'course_rng("{name}/' in text, path.name


# -- the key never reaches the sandbox ----------------------------------------------------------------


def test_the_sandbox_environment_holds_no_key_and_no_key_file_is_mounted(no_key, tmp_path):
    assert not any(name.startswith("BOOKTOOLS") for name in WORKER_ENV)
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "course-key").write_text(KEY_A, encoding="utf-8")
    no_key.setenv(ENV_KEY_FILE, str(kit / "course-key"))
    check_key_not_mounted(["bwrap", "--ro-bind", str(tmp_path / "elsewhere"), "/grader/lib", "--dir", str(kit)])
    for mounted in (kit, kit / "course-key", tmp_path):
        with pytest.raises(SystemExit, match="the course key file .* is inside .* which the sandbox mounts"):
            check_key_not_mounted(["bwrap", "--ro-bind", str(mounted), "/submission"])
    # the default place, in the home folder, which the sandbox never mounts
    no_key.delenv(ENV_KEY_FILE)
    home_file = tmp_path / "home" / ".config" / "onlinelib-book" / "course-key"
    home_file.parent.mkdir(parents=True)
    home_file.write_text(KEY_A, encoding="utf-8")
    with pytest.raises(SystemExit, match="is inside"):
        check_key_not_mounted(["bwrap", "--ro-bind", str(tmp_path / "home"), "/x"])


HUNT = (
    MYST_HEADER
    + """
# Attack: read the course key from the environment, the key files and /proc

```{code-cell} ipython3
import numpy as np

import onlinelib as ol
```

```{code-cell} ipython3
import os

found = [name for name in os.environ if "BOOKTOOLS" in name or "KEY" in name]
found += [name for name, value in os.environ.items() if "KEY_HEX" in value]
for path in ["KEY_FILE", os.path.expanduser("~/.config/onlinelib-book/course-key"), "HOME_KEY",
             "/proc/1/environ", "/proc/self/environ", f"/proc/{os.getppid()}/environ"]:
    try:
        with open(path, "rb") as handle:
            found.append(f"{path}: {handle.read(200)!r}")
    except OSError:
        pass
for folder, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/sys", "/dev", "/usr")]
    found += [os.path.join(folder, name) for name in files if name == "course-key"]
if found:
    raise RuntimeError(f"found the course key: {found[:5]}")
```

```{code-cell} ipython3
class HalvingLearner:
    def __init__(self, table):
        if found:  # a key found costs every point, so the score shows it too
            raise RuntimeError("found the course key")
        self.table = np.asarray(table, dtype=bool)
        self.alive = np.ones(self.table.shape[0], dtype=bool)

    @property
    def size(self):
        return int(self.alive.sum())

    def predict(self, x):
        return 1 if 2 * int(self.table[self.alive, x].sum()) >= self.size else -1

    def update(self, x, y):
        self.alive &= self.table[:, x] == (y == 1)
```
"""
)


def grade(folder: Path, out: Path, env: dict, *extra: str, cwd: Path = ROOT) -> tuple[dict, str]:
    """Grade ``folder`` (Assignment 1) as the lecturer does; the CSV rows by submission, and stderr."""
    command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", "halving"]
    command += ["--out", str(out), "--jobs", "1", *extra]
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)
    assert out.is_file(), result.stderr[-3000:]
    with out.open(newline="", encoding="utf-8") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}, result.stderr


def key_env(tmp_path: Path) -> tuple[dict, Path]:
    """The grader's environment with a course key set, and a key file beside it, outside the repository."""
    kit = tmp_path / "kit"
    kit.mkdir()
    key_file = kit / "course-key"
    key_file.write_text(KEY_A + "\n", encoding="utf-8")
    key_file.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOOKTOOLS")}
    env.update({ENV_KEY: KEY_A, ENV_KEY_FILE: str(key_file)})
    return env, key_file


def hunt_notebook(key_file: Path) -> str:
    home_key = Path.home() / ".config" / "onlinelib-book" / "course-key"
    return (
        HUNT.replace("KEY_HEX", KEY_A[:16])
        .replace('"KEY_FILE"', repr(str(key_file)))
        .replace('"HOME_KEY"', repr(str(home_key)))
    )


@needs_bwrap
def test_a_submission_cannot_read_the_course_key_in_the_sandbox(tmp_path):
    env, key_file = key_env(tmp_path)
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "hunt.md").write_text(hunt_notebook(key_file), encoding="utf-8")
    rows, stderr = grade(folder, tmp_path / "scores.csv", env)
    hunt = rows["hunt.md"]
    assert (hunt["status"], hunt["score"]) == ("graded", hunt["max_score"]), hunt
    assert "all checks passed" in hunt["feedback"] and "found the course key" not in hunt["feedback"], hunt
    assert "public test key" not in stderr, "the key set in the environment is the one used"
    for path in tmp_path.rglob("*"):
        if path.is_file() and path != key_file:
            assert KEY_A not in path.read_text(encoding="utf-8", errors="replace"), path


def test_the_hunt_finds_the_key_file_when_the_code_runs_unsandboxed(tmp_path):
    """The control: with the lecturer's own rights (--unsafe-no-sandbox) the same notebook reads the key
    file and scores 0, so the sandboxed run's full marks mean the hunt failed, not that it never ran.
    (The environment variable stays hidden even then: the worker's environment is WORKER_ENV.)"""
    env, key_file = key_env(tmp_path)
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "hunt.md").write_text(hunt_notebook(key_file), encoding="utf-8")
    rows, _ = grade(folder, tmp_path / "scores.csv", env, "--unsafe-no-sandbox")
    hunt = rows["hunt.md"]
    assert (hunt["status"], float(hunt["score"])) == ("graded", 0), hunt
    assert "found the course key" in hunt["feedback"] and str(key_file) in hunt["feedback"], hunt["feedback"]
    assert ENV_KEY not in hunt["feedback"], "the worker's environment holds no key variable"


# -- the lecturer kit outside the repository ------------------------------------------------------------


@needs_bwrap
def test_grading_runs_from_a_lecturer_kit_outside_the_repository(tmp_path):
    """A copy of the tools and the library with no ``lecturer/`` folder, the hidden file in a private kit
    folder given by --hidden-dir, the key from a file there: the honest submission gets full marks, and
    without --hidden-dir the copy has no hidden tests to find."""
    repo = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "lecturer")
    for part in ("booktools", "onlinelib"):
        shutil.copytree(ROOT / part, repo / part, ignore=ignore)
    shutil.copytree(ROOT / "book" / "assignments", repo / "book" / "assignments", ignore=ignore)
    assert not (repo / "book" / "assignments" / "lecturer").exists()
    kit = tmp_path / "private-kit"
    kit.mkdir()
    shutil.copy(LECTURER / "halving_hidden.py", kit)
    (kit / "course-key").write_text(KEY_B, encoding="utf-8")
    (kit / "course-key").chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOOKTOOLS", "PYTHON"))}
    env.update({"PYTHONPATH": str(repo), ENV_KEY_FILE: str(kit / "course-key")})
    where = subprocess.run(
        [sys.executable, "-c", "import booktools, onlinelib; print(booktools.__file__, onlinelib.__file__)"],
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        check=True,
    ).stdout.split()
    assert all(Path(path).is_relative_to(repo) for path in where), where
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "submissions" / "attacks" / "halving" / "control_correct.md", folder)
    missing = subprocess.run(
        [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", "halving"]
        + ["--out", str(tmp_path / "none.csv")],
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=300,
    )
    assert missing.returncode != 0 and "no hidden tests for assignment 'halving'" in missing.stderr
    rows, stderr = grade(folder, tmp_path / "scores.csv", env, "--hidden-dir", str(kit), cwd=repo)
    row = rows["control_correct.md"]
    assert (row["status"], row["score"]) == ("graded", row["max_score"]), row
    assert "public test key" not in stderr


def test_under_any_key_every_hidden_file_builds_its_instances_and_the_reference_earns_every_point(no_key):
    """A lecturer's own key must give a working assignment: every keyed draw finds its condition
    (``draw_until``) and the reference passes every check, for the same maximum as the public key's.

    One key other than the public one here (each key grades all sixteen references, about 25 s);
    when the hidden files change, run this with more keys (e.g. ``secrets.token_hex(32)``)."""
    key = "another course, another term: a passphrase"
    maxima = {}
    for path in sorted(LECTURER.glob("*_hidden.py")):
        name = path.name[: -len("_hidden.py")]
        no_key.delenv(ENV_KEY, raising=False)
        public = hidden(name).grade(hidden(name).REFERENCE).max_score
        no_key.setenv(ENV_KEY, key)
        module = hidden(name)
        report = module.grade(module.REFERENCE)
        assert report.passed and report.score == report.max_score, f"{name}: {report.summary()}"
        maxima[name] = (report.max_score, public)
    assert all(mine == public for mine, public in maxima.values()), maxima
