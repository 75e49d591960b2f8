"""Issue 35, "student CSS on the marker's page": the review pages in headless Chromium.

A red team carried a student's CSS (``background:url(..)``, ``filter:url(..)``) into a review page
through MathJax (``\\unicode[font]``, ``\\mmlToken`` with ``fontfamily=``/``mathbackground=``, ...);
only the page's Content-Security-Policy refused the loads. Here every such vector is an answer of
its own, the review is written by ``write_review``, and each page is opened offline (every request
routed and recorded, anything but the page and its ``mathjax/`` copy aborted). After MathJax has
typeset, the page may hold no student-made style, link, id, class or load, and honest maths (a
fraction, a sum, an aligned environment, ...) must be typeset as SVG.

Each lock is checked alone too: the TeX allow-list (``review_math.tex_refusal``) with the old MathJax
configuration, and the new configuration with the allow-list switched off. The control runs the
same checks on the configuration of the code before issue 35 (``booktools/manual.py`` at commit
66d7334, frozen below and compared with git's copy when git has it) with the allow-list off: it
finds the student's CSS, so the checks can fail.
"""

import json
import re
import runpy
import shutil
import subprocess
from pathlib import Path

import pytest

from booktools.grading import review_math
from booktools.grading.questions import questions_from_hidden
from booktools.grading.review import _mathjax_source, write_review

QUESTIONS = questions_from_hidden([{"id": "proof", "title": "Prove the bound", "items": [("all", "all of it", 1)]}])
HONEST = {
    "AHONES": (
        r"A fraction $\frac{a}{b}$ and a sum $$\sum_{i=1}^n w_i \le \sqrt{n}$$ then"
        "\n\n$$\n\\begin{aligned} \\Phi_{t+1} &\\le \\Phi_t \\left(1 + \\tfrac{\\eta}{2}\\right) \\\\ "
        "&= \\operatorname{sgn}(x) \\in \\mathbb{R} \\end{aligned}\n$$\n\n"
        r"with $\begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}$, $\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}$,"
        r" $a \bmod n$, $\color{red}{x} \textcolor{Blue}{y}$, $\cancel{0}$, $\boldsymbol{w}$, $\boxed{M \le k}$,"
        r" $\hat{w}_t$, $\|w\|_2$ and $\varliminf_n x_n$."
    )
}
HONEST_SPANS = 13
# code: (answer, the commands its refusal names); markers like "x-style" are the student's own strings
VECTORS = {
    "ASTYLE": (r"$\style{background:url(x-style)}{x}$", ["\\style"]),
    "AUNIC1": (r"$\unicode[some-font]{x41}$", ["\\unicode"]),
    "AUNIC2": (r"$\unicode[x;background:url(x-unicode)]{x41}$", ["\\unicode"]),
    "AMMLBG": (r'$\mmlToken{mi}[mathbackground="url(x-mml)"]{x}$', ["\\mmlToken"]),
    "AMMLFF": (r'$\mmlToken{mi}[fontfamily="x;background:url(x-font)"]{x}$', ["\\mmlToken"]),
    "AHREF1": (r"$\href{javascript:alert(1)}{x}$ $\href{https://example.com/h}{x}$", ["\\href", "\\href"]),
    "ACLASS": (r"$\class{card}{x}$", ["\\class"]),
    "ACSSID": (r"$\cssId{a-AHONES}{x}$", ["\\cssId"]),
    "ABBOX1": (r"$\bbox[background:url(x-bbox)]{x}$", ["\\bbox"]),
    "ATOGGL": (r"$\toggle{a}{b}\endtoggle$", ["\\toggle"]),
    "ATIPS1": (r"$\texttip{a}{b}$ $\mathtip{a}{b}$ $\tooltip{a}{b}$", ["\\texttip", "\\mathtip", "\\tooltip"]),
    "AREQUI": (r"$\require{html}\href{https://example.com/r}{x}$", ["\\require"]),
    "ADEFIN": (r"$\def\x{\style{background:url(x-def)}{y}}\x$", ["\\def"]),
    "ANEWCM": (r"$\newcommand{\y}{\style{filter:url(x-new)}{y}}\y$", ["\\newcommand"]),
    "ACOLOR": (r"$\color{url(x-color)}{x}$ $\textcolor[rgb]{1,0,0}{x}$", ["\\color", "\\textcolor"]),
    "ACANCL": (r'$\cancel[mathbackground="url(x-cancel)"]{x}$', ["\\cancel"]),
    "ABOXES": (
        r"$\colorbox{red}{x}$ $\fcolorbox{red}{blue}{x}$ $\fbox[x-fbox]{x}$",
        ["\\colorbox", "\\fcolorbox", "\\fbox"],
    ),
    "ALABEL": (r"$$x \label{a-AHONES}$$ and $\ref{a-AHONES}$ $\eqref{a-AHONES}$", ["\\label", "\\ref", "\\eqref"]),
    "ATEXTM": (r"$\text{\href{https://example.com/t}{x}}$", ["\\href"]),
    "AARRAY": (r"$\begin{array}{>{\style{background:url(x-array)}}c} x \end{array}$", ["\\style"]),
    "AHTMLX": (r"$\htmlStyle{background:url(x-html)}{x}$ $\data{a=b}{x}$", ["\\htmlStyle", "\\data"]),
    "AACTIO": (r"$\actiontype{x}$ $\DeclareMathOperator{\z}{z}$ $\let\a\b$", ["\\actiontype", "\\Declare", "\\let"]),
    "AENVIR": (r"$\begin{x-env}x\end{x-env}$", ["environment"]),
    "AMDOWN": (
        "[link](https://example.com/l) ![img](https://example.com/i.png) <https://example.com/auto> [ref][1]"
        "\n\n[1]: https://example.com/ref",
        [],
    ),
    "ARAWHT": (
        '<a href="https://example.com/a">a</a> <img src="https://example.com/img.png"> '
        "<style>body{background:url(x-css)}</style> <svg><image href='https://example.com/svg.png'/></svg> "
        '<div style="background:url(x-div)">d</div>',
        [],
    ),
    "APROSE": (r"\(\style{background:url(x-prose)}{x}\) and \[\unicode[x;background:url(x-prose2)]{x41}\]", []),
}
# never in an attribute of the page (but MathJax's error text, data-mjx-error, and the refusals' titles)
MARKERS = re.compile(r"url\(|\bx-[a-z]|some-font|example\.com|javascript:", re.I)
PAGE_CLASSES = set(
    "meta rubric pts id cards card answer math inline display block tex-refused tex-refused-why tex-refused-block "
    "missing why reason problems overview num MathJax".split()
)
PAGE_LINKS = {"index.html", "proof.html", "rubric.csv"}  # the pages' own navigation
GENERIC_FONTS = {"serif", "sans-serif", "monospace", "cursive", "fantasy"}

# What the page holds once MathJax is done: attributes, classes, styles, links, per-card results.
_FACTS = """() => {
  const attributes = [], styles = [], classes = new Set(), ids = [], anchors = [];
  for (const e of document.querySelectorAll('body *')) {
    for (const a of e.attributes) {
      if (a.name !== 'title' && a.name !== 'data-mjx-error') attributes.push([e.tagName, a.name, a.value]);
      if (/(^|:)(href|src|srcset|action|formaction|data|poster|background)$/i.test(a.name)) anchors.push([e.tagName, a.name, a.value]);
    }
    if (e.hasAttribute('style')) styles.push(e.getAttribute('style'));
    for (const c of e.classList) classes.add(c);
    if (e.id) ids.push(e.id);
  }
  const cards = {};
  for (const card of document.querySelectorAll('article.card')) {
    const maths = [...card.querySelectorAll('.math')];
    cards[card.id.slice(2)] = {
      maths: maths.length,
      svg: maths.filter(m => m.querySelector('mjx-container svg')).length,
      errors: [...card.querySelectorAll('mjx-merror, [data-mml-node="merror"], [data-mjx-error]')].map(m => m.getAttribute('data-mjx-error') || m.textContent),
      refused: [...card.querySelectorAll('.tex-refused-why')].map(e => e.textContent),
      elements: [...new Set([...card.querySelectorAll('.answer *')].filter(e => !e.parentElement.closest('mjx-container')).map(e => e.tagName.toLowerCase()))],
    };
  }
  return {attributes, styles, classes: [...classes], ids, anchors, cards,
          a: [...document.querySelectorAll('a')].map(a => a.getAttribute('href'))};
}"""


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright)")
    if not Path("/usr/bin/chromium").is_file():
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


def _review(tmp_path: Path) -> Path:
    answers = {code: {"proof": text} for code, (text, _) in VECTORS.items()} | {
        code: {"proof": text} for code, text in HONEST.items()
    }
    write_review(tmp_path / "review", QUESTIONS, answers, {code: code for code in answers}, title="Issue 35")
    return tmp_path / "review"


def _visit(browser, review: Path, name: str = "proof.html") -> dict:
    """Open one page offline; its facts once MathJax has typeset, with every request and console line."""
    root = review.as_uri() + "/"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests, aborted, console, errors, dialogs = [], [], [], [], []

    def route(handle):
        url = handle.request.url
        requests.append(url)
        if url == root + name or url.startswith(root + "mathjax/"):
            handle.continue_()
        else:
            aborted.append(url)
            handle.abort()

    try:
        page.route("**/*", route)
        page.on("console", lambda message: console.append(message.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(root + name)
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000)
        page.evaluate("MathJax.startup.promise")
        page.wait_for_timeout(200)  # a load MathJax's output starts (an SVG fill, a font) is requested by now
        facts = page.evaluate(_FACTS)
    finally:
        page.close()
    return dict(facts, requests=requests, aborted=aborted, console=console, errors=errors, dialogs=dialogs, root=root)


def _violations(facts: dict) -> list[str]:
    """Everything on the page a student made: a load, a style, a link, an id, a class, an element."""
    found = [f"request: {url}" for url in facts["aborted"]]
    found += [f"console: {line}" for line in facts["console"] if "Content Security Policy" in line or "Refused" in line]
    found += [f"dialog: {message}" for message in facts["dialogs"]]
    for tag, name, value in facts["attributes"]:
        if MARKERS.search(value):
            found.append(f"attribute: <{tag} {name}={value!r}>")
    for style in facts["styles"]:
        for declaration in filter(None, (d.strip() for d in style.split(";"))):
            prop, _, value = (part.strip() for part in declaration.partition(":"))
            if "url(" in value or prop.startswith(("background", "filter", "mask", "content", "cursor", "behavior")):
                found.append(f"style: {style!r}")
            elif prop == "font-family" and not {f.strip(" '\"") for f in value.split(",")} <= GENERIC_FONTS:
                found.append(f"style: {style!r}")
    for tag, name, value in facts["anchors"]:
        if not (tag == "A" and value in PAGE_LINKS) and not (tag == "use" and value.startswith("#MJX-")):
            found.append(f"link: <{tag} {name}={value!r}>")
    found += [f"<a> not the page's own: {href!r}" for href in facts["a"] if href not in PAGE_LINKS]
    own = {f"a-{code}" for code in facts["cards"]}
    found += [f"id: {i!r}" for i in facts["ids"] if not (i in own or i.startswith("MJX-"))]
    if len(facts["ids"]) != len(set(facts["ids"])):
        found.append("ids: not unique")
    found += [f"class: {c!r}" for c in facts["classes"] if not (c in PAGE_CLASSES or c.startswith("mjx-"))]
    for code, card in facts["cards"].items():
        made = set(card["elements"]) - {
            "p",
            "span",
            "code",
            "small",
            "div",
            "em",
            "strong",
            "br",
            "pre",
            "mjx-container",
        }
        found += [f"{code}: a <{element}> element" for element in sorted(made)]
    return found


def _honest_is_typeset(facts: dict) -> None:
    card = facts["cards"]["AHONES"]
    assert card["maths"] == HONEST_SPANS and card["svg"] == HONEST_SPANS and card["errors"] == [], card
    assert card["refused"] == [], card


def _allow_list_off(monkeypatch) -> None:
    monkeypatch.setattr(review_math, "tex_refusal", lambda tex: None)


# -- the control's configuration: the code before issue 35 -------------------------------------------------

_OLD_EXTENSIONS = (
    "action amscd bbox boldsymbol braket bussproofs cancel cases centernot color colortbl empheq enclose "  # codespell:ignore
    "extpfeil gensymb mathtools mhchem physics textcomp textmacros unicode upgreek verb"
).split()


def _old_config(extensions) -> str:
    """config.js as ``booktools/manual.py`` wrote it at commit 66d7334 (``_install_mathjax``)."""
    config = {
        "tex": {
            "inlineMath": [["\\(", "\\)"]],
            "displayMath": [["\\[", "\\]"]],
            "processEscapes": False,
            "processEnvironments": False,
            "require": {"allow": {name: True for name in extensions}, "defaultAllow": False},
        },
        "options": {
            "processHtmlClass": "math",
            "ignoreHtmlClass": ".*",
            "enableMenu": False,
            "safeOptions": {"allow": {"URLs": "none", "classes": "safe", "cssIDs": "safe", "styles": "safe"}},
        },
        "startup": {"typeset": True},
        "loader": {"load": ["ui/safe"]},
    }
    return (
        "// MathJax's configuration for the review pages, written by booktools/manual.py. A file of its own:\n"
        "// the pages' Content-Security-Policy allows no inline script.\n"
        f"window.MathJax = {json.dumps(config, indent=2)};\n"
    )


def _old_mathjax(review: Path) -> None:
    """Put the old configuration and its extension files in place of the new ones."""
    source = _mathjax_source()
    for name in _OLD_EXTENSIONS:
        target = review / "mathjax/input/tex/extensions" / f"{name}.js"
        shutil.copyfile(source / "input/tex/extensions" / f"{name}.js", target)
    (review / "mathjax/config.js").write_text(_old_config(_OLD_EXTENSIONS), encoding="utf-8")


# -- the tests ------------------------------------------------------------------------------------------------


def test_student_text_reaches_the_review_page_only_as_text(browser, tmp_path):
    review = _review(tmp_path)
    facts = _visit(browser, review)
    assert _violations(facts) == []
    assert facts["errors"] == [] and facts["console"] == [], (facts["errors"], facts["console"])
    assert all(url.startswith(facts["root"]) for url in facts["requests"]), facts["requests"]
    _honest_is_typeset(facts)
    for code, (_, refused) in VECTORS.items():
        card = facts["cards"][code]
        assert card["maths"] == 0 and len(card["refused"]) == len(refused), (code, card)
        for shown, command in zip(card["refused"], refused, strict=True):
            assert shown.startswith("(not typeset: ") and command in shown, (code, shown)
    index = _visit(browser, review, "index.html")
    assert _violations(index) == [] and index["errors"] == []


def test_mathjax_as_configured_refuses_the_vectors_without_the_allow_list(browser, tmp_path, monkeypatch):
    """Belt and braces: with the allow-list off, MathJax itself lets no student CSS or link through."""
    _allow_list_off(monkeypatch)
    facts = _visit(browser, _review(tmp_path))
    assert _violations(facts) == []
    _honest_is_typeset(facts)
    typeset = sum(card["svg"] for code, card in facts["cards"].items() if code in VECTORS)
    assert typeset >= 30  # the vectors reached MathJax this time, as undefined commands or errors


def test_the_allow_list_alone_keeps_the_old_configuration_safe(browser, tmp_path):
    review = _review(tmp_path)
    _old_mathjax(review)
    facts = _visit(browser, review)
    assert _violations(facts) == []
    _honest_is_typeset(facts)


def test_control_the_old_configuration_without_the_allow_list_lets_student_css_in(browser, tmp_path, monkeypatch):
    _allow_list_off(monkeypatch)
    review = _review(tmp_path)
    _old_mathjax(review)
    found = _violations(_visit(browser, review))
    styles = [v for v in found if v.startswith("style:") or v.startswith("attribute:")]
    assert any("url(x-unicode)" in v for v in styles), found  # \unicode[font]: the red team's finding
    assert any("url(x-" in v for v in styles if "mathbackground" in v or "background" in v), found
    assert any(v.startswith(("console:", "request:")) for v in found), found  # and a load the CSP refused


def test_every_allowed_command_is_defined_and_every_refused_one_is_not(browser, tmp_path):
    """The allow-list is MathJax's own (each name typesets, none is undefined) and the refused
    commands are not defined in MathJax as configured (\\mmlToken only in its fixed forms)."""
    page = browser.new_page()
    try:
        page.goto(_review(tmp_path).as_uri() + "/proof.html")
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000)
        page.evaluate("MathJax.startup.promise")
        undefined = """(names) => names.filter(n => {
            const mml = MathJax.tex2mml('\\\\' + n);
            return /mathcolor="red"/.test(mml) && mml.includes('\\\\' + n);
        })"""
        allowed = sorted(review_math.ALLOWED_COMMANDS - {"begin", "end", "\n"})
        assert page.evaluate(undefined, allowed) == []
        never = sorted(review_math.NEVER - {"mmlToken"}) + ["htmlStyle", "htmlClass", "actiontype", "Newextarrow"]
        assert page.evaluate(undefined, never) == never
        guarded = [
            r'\mmlToken{mi}[mathbackground="url(x)"]{x}',
            r'\mmlToken{mi}[fontfamily="x;background:url(y)"]{x}',
            r"\color{url(x)}{x}",
            r"\textcolor[rgb]{1,0,0}{x}",
            r'\cancel[mathbackground="url(x)"]{x}',
        ]
        mml = page.evaluate("(texts) => texts.map(t => MathJax.tex2mml(t))", guarded)
        assert all("merror" in m and "url(" not in m for m in mml), mml
        honest = page.evaluate("(t) => MathJax.tex2mml(t)", r"a \bmod n + b \pmod{p} + \varliminf_n x_n")
        assert "merror" not in honest and "thickmathspace" in honest
    finally:
        page.close()


def test_refusals_name_the_command_and_never_echo_the_argument():
    refusal = review_math.tex_refusal
    assert refusal(r"\frac{1}{2} \le \sum_i w_i") is None
    assert refusal(r"\begin{aligned} a &= b \\ c &\ne d \end{aligned}") is None
    assert refusal(r"\color{red} x \textcolor{ForestGreen}{y}") is None
    assert refusal(r"\unicode[f]{x41}") == "\\unicode is not allowed"
    assert refusal(r"\color{url(x)}") == "\\color takes only a named colour here, such as {red}"
    assert refusal(r"\color{notacolour}") is not None and refusal(r"\color [rgb]{1,0,0}") is not None
    assert refusal(r"\cancel [x]{y}") == "\\cancel[...] takes no options here" and refusal(r"\cancel{y}") is None
    assert refusal(r"\begin{x-env}") == "\\begin without an environment name in braces"
    assert refusal(r"\begin{document}") == "the environment 'document' is not allowed"
    assert refusal("x \\") == "a backslash at the end is not allowed"
    assert refusal("\\" + "a" * 100) == "\\" + "a" * 27 + "... is not allowed"
    assert refusal(r"\(x\)") == "\\( is not allowed"  # no MathJax delimiter inside a span
    assert not review_math.ALLOWED_COMMANDS & review_math.NEVER
    assert len(review_math.ALLOWED_COMMANDS) > 800 and "frac" in review_math.ALLOWED_COMMANDS


def test_the_controls_configuration_is_the_old_codes(tmp_path, monkeypatch):
    """The frozen configuration above is what the code before issue 35 wrote (when git has that commit)."""
    try:
        old = subprocess.run(
            ["git", "show", "66d7334:booktools/manual.py"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git or commit 66d7334 is not available (a shallow clone)")
    (tmp_path / "old_manual.py").write_text(old, encoding="utf-8")
    old_manual = runpy.run_path(str(tmp_path / "old_manual.py"), run_name="old_manual")  # its names, not a module
    assert old_manual["_install_mathjax"](tmp_path / "mathjax")
    written = (tmp_path / "mathjax/config.js").read_text(encoding="utf-8")
    assert written == _old_config(_OLD_EXTENSIONS)
    assert re.search(r'"unicode": true', written) and '"bbox": true' in written
