"""The students' maths on the review pages: an allow-list of TeX, and MathJax set up to match (issue 35).

Issue 35 ("student CSS on the marker's page"): MathJax's ``\\unicode[font]{..}``, ``\\mmlToken`` with
``fontfamily=`` or ``mathbackground=``, ``\\style``, ``\\bbox[..]`` and the like carry whatever a student
writes into a style attribute (``background:url(..)``, ``filter:url(..)``) or a link of the review page;
only the page's Content-Security-Policy stood between them and a load. So two locks, each enough alone:

* :func:`tex_refusal` checks every maths span a student writes before it reaches the page: each
  control sequence must be one of :data:`ALLOWED_COMMANDS` (MathJax 3.2's own base, AMS and a few
  extension tables, minus everything that can carry a style, a link, an id, a class or a definition),
  ``\\begin``/``\\end`` name one of :data:`ALLOWED_ENVIRONMENTS`, ``\\color``/``\\textcolor`` one of
  :data:`NAMED_COLOURS`, and the ``\\cancel``/``\\fbox`` family takes no ``[options]``. A span that
  fails is shown as escaped text with the reason (:func:`math_html`), never given to MathJax.
* :func:`mathjax_config` loads no TeX extension but those the list needs (no ``html``, ``unicode``,
  ``bbox``, ``action``, ``require``, ``newcommand``, ``autoload``, ``textmacros``, ...), so
  ``\\href``, ``\\unicode``, ``\\require`` and the rest are undefined in MathJax itself; it removes
  ``\\label``, ``\\ref``, ``\\eqref``, ``\\DeclareMathOperator``, ``\\definecolor``, ``\\colorbox``,
  ``\\fcolorbox`` and ``\\framebox``; ``\\mmlToken`` runs only in the fixed forms ``\\bmod``, ``\\pmod``,
  ``\\mod`` and ``\\varliminf`` expand to, ``\\color`` only with a name, ``\\cancel`` only without
  options. MathJax's ``ui/safe`` filter stays on as a third layer.
"""

from __future__ import annotations

import html
import json
import re

# -- the allow-list ----------------------------------------------------------------------------------
# Taken from MathJax 3.2.2 as sphinx-mathjax-offline installs it, by listing the TeX input jax's own
# tables in a browser (MapHandler.getMap(...) of each configuration's handler): base ("macros",
# "mathchar0mi", "mathchar0mo", "mathchar7", "delimiter"), AMS ("AMSmath-*", "AMSsymbols-*") and the
# extensions loaded below (boldsymbol, cancel, color, braket, gensymb, upgreek). Left out on purpose:  # codespell:ignore
# \mmlToken (any MathML attribute), \label, \ref, \eqref (ids and links), \DeclareMathOperator (a
# definition), \definecolor, \colorbox, \fcolorbox, \framebox (colours as values, box styles).
# tests/test_review_safety.py checks that MathJax, as configured here, defines every name listed.

_BASE = """
And Arrowvert Bbb Big Bigg Biggl Biggm Biggr Bigl Bigm Bigr Delta Downarrow Gamma Huge Im LARGE LaTeX Lambda
Large Leftarrow Leftrightarrow Longleftarrow Longleftrightarrow Longrightarrow Omega Phi Pi Pr Psi Re
Rightarrow Rule S Sigma Space TeX Theta Tiny Uparrow Updownarrow Upsilon Vert Xi above abovewithdelims acute
aleph alpha amalg angle approx arccos arcsin arctan arg array arrowvert ast asymp atop atopwithdelims
backslash bar bbFont beta bf big bigcap bigcirc bigcup bigg biggl biggm biggr bigl bigm bigodot bigoplus
bigotimes bigr bigsqcup bigtriangledown bigtriangleup biguplus bigvee bigwedge bmod bot bowtie boxed brace
bracevert brack breve buildrel bullet cal cap cases cdot cdotp cdots check chi choose circ clubsuit colon cong
coprod cos cosh cot coth cr csc cup dagger dashv ddagger ddot ddots deg delta det diamond diamondsuit dim
displaylines displaystyle div divsymbol dot doteq dots dotsb dotsc dotsi dotsm dotso downarrow ell emptyset
enspace epsilon eqalign eqalignno equiv eta exists exp fbox flat forall frac frak frown gamma gcd ge geq gets
gg grave gt hat hbar hbox hdashline heartsuit hfil hfill hfilll hline hom hookleftarrow hookrightarrow
hphantom hskip hspace huge iff iiint iint imath in inf infty int intop iota it jmath kappa ker kern lambda
land langle large lbrace lbrack lceil ldotp ldots le left leftarrow leftharpoondown leftharpoonup
leftrightarrow leftroot leq leqalignno lfloor lg lgroup lim liminf limits limsup ll llap lmoustache ln lnot
log longleftarrow longleftrightarrow longmapsto longrightarrow lor lower lt mapsto mathbb mathbf mathbfcal
mathbffrak mathbfit mathbfscr mathbfsf mathbfsfit mathbfsfup mathbfup mathbin mathcal mathchoice mathclose
mathfrak mathinner mathit mathnormal mathop mathopen mathord mathpunct mathrel mathrm mathscr mathsf mathsfit
mathsfup mathstrut mathtt mathup matrix max mbox mid middle min mit mkern mod models moveleft moveright mp
mskip mspace mu nabla natural ne nearrow neg negthinspace neq newline ni nolimits nonscript nonumber
normalsize not notChar nu nwarrow odot oldstyle omega omicron ominus oplus oslash otimes over overbrace
overleftarrow overleftrightarrow overline overparen overrightarrow overset overunderset overwithdelims owns
parallel partial perp phantom phi pi pm pmatrix pmb pmod pod prec preceq prime prod propto psi qquad quad
raise rangle rbrace rbrack rceil rfloor rgroup rho right rightarrow rightharpoondown rightharpoonup
rightleftharpoons rlap rm rmoustache root rule scr scriptscriptstyle scriptsize scriptstyle searrow sec
setminus sf sharp sigma sim simeq sin sinh skew small smallint smash smile space spadesuit sqcap sqcup sqrt
sqsubseteq sqsupseteq stackbin stackrel star strut subset subseteq succ succeq sum sup supset supseteq surd
swarrow symbb symbf symbfcal symbffrak symbfit symbfscr symbfsf symbfsfit symbfsfup symbfup symcal symfrak
symit symnormal symrm symscr symsf symsfit symsfup symtt symup tan tanh tau text textbf textit textnormal
textrm textsf textstyle texttt textup theta thinspace tilde times tiny to top triangle triangleleft
triangleright tt underbrace underleftarrow underleftrightarrow underline underparen underrightarrow underset
uparrow updownarrow uplus uproot upsilon varepsilon varphi varpi varrho varsigma vartheta vcenter vdash vdots
vec vee vert vphantom wedge widehat widetilde wp wr xi zeta
"""
_AMS = """
Bbbk Box Bumpeq Cap Cup Diamond Doteq Finv Game Join Lleftarrow Lsh Rrightarrow Rsh Subset Supset Vdash Vvdash
approxeq backepsilon backprime backsim backsimeq barwedge because beth between bigstar binom blacklozenge
blacksquare blacktriangle blacktriangledown blacktriangleleft blacktriangleright boxdot boxminus boxplus
boxtimes bumpeq centerdot cfrac checkmark circeq circlearrowleft circlearrowright circledR circledS circledast
circledcirc circleddash complement curlyeqprec curlyeqsucc curlyvee curlywedge curvearrowleft curvearrowright
daleth dashleftarrow dashrightarrow dbinom ddddot dddot dfrac diagdown diagup digamma divideontimes doteqdot
dotplus doublebarwedge doublecap doublecup downdownarrows downharpoonleft downharpoonright eqcirc eqsim
eqslantgtr eqslantless eth fallingdotseq genfrac geqq geqslant ggg gggtr gimel gnapprox gneq gneqq gnsim
gtrapprox gtrdot gtreqless gtreqqless gtrless gtrsim gvertneqq hslash idotsint iiiint impliedby implies injlim
intercal lVert leadsto leftarrowtail leftleftarrows leftrightarrows leftrightharpoons leftrightsquigarrow
leftthreetimes leqq leqslant lessapprox lessdot lesseqgtr lesseqqgtr lessgtr lesssim lhd llcorner lll llless
lnapprox lneq lneqq lnsim looparrowleft looparrowright lozenge lrcorner ltimes lvert lvertneqq maltese
mathring measuredangle mho multimap nLeftarrow nLeftrightarrow nRightarrow nVDash nVdash ncong negmedspace
negthickspace nexists ngeq ngeqq ngeqslant ngtr nleftarrow nleftrightarrow nleq nleqq nleqslant nless nmid
nobreakspace notag nparallel nprec npreceq nrightarrow nshortmid nshortparallel nsim nsubseteq nsubseteqq
nsucc nsucceq nsupseteq nsupseteqq ntriangleleft ntrianglelefteq ntriangleright ntrianglerighteq nvDash nvdash
operatorname pitchfork precapprox preccurlyeq precnapprox precneqq precnsim precsim projlim rVert restriction
rhd rightarrowtail rightleftarrows rightrightarrows rightsquigarrow rightthreetimes risingdotseq rtimes rvert
shortmid shortparallel shoveleft shoveright sideset smallfrown smallsetminus smallsmile sphericalangle
sqsubset sqsupset square subseteqq subsetneq subsetneqq substack succapprox succcurlyeq succnapprox succneqq
succnsim succsim supseteqq supsetneq supsetneqq tag tbinom tfrac therefore thickapprox thicksim triangledown
trianglelefteq triangleq trianglerighteq twoheadleftarrow twoheadrightarrow ulcorner unlhd unrhd upharpoonleft
upharpoonright upuparrows urcorner vDash varDelta varGamma varLambda varOmega varPhi varPi varPsi varSigma
varTheta varUpsilon varXi varinjlim varkappa varliminf varlimsup varnothing varprojlim varpropto varsubsetneq
varsubsetneqq varsupsetneq varsupsetneqq vartriangle vartriangleleft vartriangleright veebar xleftarrow
xrightarrow yen
"""
_EXTENSIONS = """
Set Updelta Upgamma Uplambda Upomega Upphi Uppi Uppsi Upsigma Uptheta Upupsilon Upxi bcancel boldsymbol cancel
cancelto celsius color degree micro ohm perthousand set textcolor upalpha upbeta upchi updelta upepsilon upeta
upgamma upiota upkappa uplambda upmu upnu upomega upomicron upphi uppi uppsi uprho upsigma uptau uptheta
upupsilon upvarepsilon upvarphi upvarpi upvarrho upvarsigma upvartheta upxi upzeta xcancel
"""
_SPELLED_ODDLY = "notin oint bra ket braket ketbra Bra Ket Braket Ketbra"  # codespell:ignore (TeX's names)
# Control symbols (a backslash and one non-letter): spacing, escaped specials, \| and \\ (a new line).
# A backslash before a line break is a space for MathJax, as "\ " is.
_SYMBOLS = frozenset(", : > ; ! \\ _ # $ % & | { }".split()) | {" ", "\n", "\xa0"}

#: Every control sequence a student's maths may use (``\\begin``/``\\end`` are checked apart).
ALLOWED_COMMANDS = frozenset(f"{_BASE} {_AMS} {_EXTENSIONS} {_SPELLED_ODDLY}".split()) | _SYMBOLS | {"begin", "end"}

#: ``\\begin{..}``: base MathJax's, AMS's, and amscd's ``CD``.
ALLOWED_ENVIRONMENTS = frozenset(
    "array equation equation* eqnarray eqnarray* align align* multline multline* split gather gather* alignat "  # codespell:ignore
    "alignat* alignedat aligned gathered xalignat xalignat* xxalignat flalign flalign* subarray smallmatrix matrix "
    "pmatrix bmatrix Bmatrix vmatrix Vmatrix cases CD".split()
)

#: ``\\color{..}``/``\\textcolor{..}``: the color package's own names (dvips, exact case), and CSS names
#: (any case). MathJax passes any other name through to the colour attribute, so only these are let in.
NAMED_COLOURS = frozenset(
    "Apricot Aquamarine Bittersweet Black Blue BlueGreen BlueViolet BrickRed Brown BurntOrange CadetBlue "
    "CarnationPink Cerulean CornflowerBlue Cyan Dandelion DarkOrchid Emerald ForestGreen Fuchsia Goldenrod Gray "
    "Green GreenYellow JungleGreen Lavender LimeGreen Magenta Mahogany Maroon Melon MidnightBlue Mulberry NavyBlue "
    "OliveGreen Orange OrangeRed Orchid Peach Periwinkle PineGreen Plum ProcessBlue Purple RawSienna Red RedOrange "
    "RedViolet Rhodamine RoyalBlue RoyalPurple RubineRed Salmon SeaGreen Sepia SkyBlue SpringGreen Tan TealBlue "
    "Thistle Turquoise Violet VioletRed White WildStrawberry Yellow YellowGreen YellowOrange".split()
)
_CSS_COLOURS = frozenset(
    "black white gray grey silver red maroon orange yellow olive lime green teal cyan aqua blue navy purple "
    "magenta fuchsia pink brown violet indigo gold crimson darkred darkgreen darkblue darkorange darkgray darkgrey "
    "lightgray lightgrey".split()
)

#: Refused always, whatever a future list says: each carries styles, fonts, links, ids, classes, tooltips,
#: MathML attributes, definitions or extensions (issue 35). Named in the reason a student sees.
NEVER = frozenset(
    "unicode mmlToken require href class style cssId bbox toggle texttip tooltip mathtip data def newcommand "
    "renewcommand let newenvironment renewenvironment DeclareMathOperator action label ref eqref definecolor "
    "colorbox fcolorbox framebox enclose".split()
)
_NEVER_PREFIXES = ("html", "action")  # \htmlClass, \htmlStyle, \htmlData, \actiontype, ...
_NO_OPTIONS = frozenset("cancel bcancel xcancel cancelto fbox".split())  # [..] would be MathML attributes

_CONTROL = re.compile(r"\\([A-Za-z]+|.|\Z)", re.S)  # as MathJax's TexParser.GetCS reads a name
_ENVIRONMENT = re.compile(r"[ \t\n]*\{([A-Za-z]+\*?)\}")
_COLOUR = re.compile(r"[ \t\n]*\{[ \t\n]*([A-Za-z]+)[ \t\n]*\}")
_OPTIONS = re.compile(r"[ \t\n]*\[")


def _shown(name: str) -> str:
    name = {"\n": " ", "": ""}.get(name, name)
    return "\\" + (name if len(name) <= 30 else name[:27] + "...")


def tex_refusal(tex: str) -> str | None:
    """Why a student's TeX may not reach MathJax, or None if every command in it is on the allow-list.

    Part of issue 35 (student CSS on the marker's page). The whole span is scanned, ``\\text{..}``
    and comments included, so nothing can hide from the check.

    Parameters
    ----------
    tex : str
        The content of one ``$...$`` or ``$$...$$`` span, as the student wrote it.

    Returns
    -------
    str or None
        A short reason naming the first command refused (``"\\unicode is not allowed"``), or None.
    """
    for match in _CONTROL.finditer(tex):
        name, end = match.group(1), match.end()
        if name in ("begin", "end"):
            found = _ENVIRONMENT.match(tex, end)
            if not found:
                return f"\\{name} without an environment name in braces"
            if found[1] not in ALLOWED_ENVIRONMENTS:
                return f"the environment {found[1][:30]!r} is not allowed"
        elif name in ("color", "textcolor"):
            found = _COLOUR.match(tex, end)
            if not found or not (found[1] in NAMED_COLOURS or found[1].lower() in _CSS_COLOURS):
                return f"\\{name} takes only a named colour here, such as {{red}}"
        elif name in NEVER or name.startswith(_NEVER_PREFIXES) or name not in ALLOWED_COMMANDS:
            return f"{_shown(name)} is not allowed" if name else "a backslash at the end is not allowed"
        elif name in _NO_OPTIONS and _OPTIONS.match(tex, end):
            return f"\\{name}[...] takes no options here"
    return None


def math_html(tex: str, *, display: bool, block: bool = False) -> str:
    """The HTML of one maths span of a student's answer: for MathJax if allowed, else escaped text.

    Part of issue 35. An allowed span becomes ``<span class="math inline">\\(..\\)</span>`` (or
    ``class="math display"`` with ``\\[..\\]``, or a ``<div class="math block">`` for ``block``), the
    TeX escaped: the only elements MathJax typesets. A refused one becomes
    ``<code class="tex-refused" title="not typeset: REASON">$..$</code>`` and the reason in words, in
    elements without the class ``math``, so MathJax never reads it.
    """
    reason = tex_refusal(tex)
    if reason is None:
        escaped = html.escape(tex, quote=False)
        maths = f"\\[{escaped}\\]" if display else f"\\({escaped}\\)"
        if block:
            return f'<div class="math block">\n{maths}\n</div>\n'
        return f'<span class="math {"display" if display else "inline"}">{maths}</span>'
    shown = f"$$\n{tex}\n$$" if block else f"$${tex}$$" if display else f"${tex}$"
    why = html.escape(f"not typeset: {reason}")
    text = f'<code class="tex-refused" title="{why}">{html.escape(shown)}</code>'
    note = f'<small class="tex-refused-why">({why})</small>'
    if block:
        return f'<div class="tex-refused-block">{text}\n{note}</div>\n'
    return f"{text} {note}"


# -- MathJax's configuration -----------------------------------------------------------------------------

#: The TeX extensions loaded (files under ``input/tex/extensions``): those the allow-list needs, and
#: ``enclose``, which the loader fetches for ``cancel`` (its package is not switched on). Nothing else:
#: not ``autoload`` (which would fetch html, unicode, bbox, action on first use), ``require``,
#: ``newcommand``, ``textmacros`` (\\href and \\style inside \\text), ``extpfeil``/``mathtools`` (they
#: switch ``newcommand`` on).
TEX_EXTENSIONS = ("boldsymbol", "cancel", "color", "braket", "gensymb", "upgreek", "amscd")  # codespell:ignore
TEX_FILES = (*TEX_EXTENSIONS, "enclose")
TEX_PACKAGES = ("base", "ams", "noundefined", *TEX_EXTENSIONS)

# Run by MathJax once its files are loaded, before it typesets: takes out of MathJax's own tables what
# the allow-list refuses (belt and braces), and lets the commands that take attributes or colours run
# only in the forms the allow-list lets through: \mmlToken as base and AMS macros expand it (\bmod,
# \pmod, \varliminf), \color and \textcolor with a name of letters (MathJax passes any other text on as
# the colour: url(...)), the \cancel family without [options] (MathML attributes). If MathJax's
# internals are not as expected this throws, and nothing is typeset (fail closed).
_READY = r"""
window.MathJax.startup.ready = function () {
  var tex = MathJax._.input.tex;
  var maps = tex.MapHandler.MapHandler;
  var removed = %(removed)s;
  Object.keys(removed).forEach(function (name) {
    var map = maps.getMap(name);
    if (map) removed[name].forEach(function (symbol) { map.remove(symbol); });
  });
  var token = /^\{m[io]\}(?:\[lspace="thickmathspace" rspace="thickmathspace"\])?\{[a-z]+\}/;
  var colour = /^\s*\{\s*[A-Za-z]+\s*\}/;
  var plain = /^(?!\s*\[)/;
  [["macros", "mmlToken", token], ["color", "color", colour], ["color", "textcolor", colour],
   ["cancel", "cancel", plain], ["cancel", "bcancel", plain], ["cancel", "xcancel", plain],
   ["cancel", "cancelto", plain]].forEach(function (guard) {
    var map = maps.getMap(guard[0]);
    var macro = map && map.lookup(guard[1]);
    if (!macro) return;  // the extension is not loaded: the command is undefined
    map.add(guard[1], new tex.Symbol.Macro(guard[1], function (parser, name) {
      if (!guard[2].test(parser.string.slice(parser.i))) {
        throw new tex.TexError.default("Refused", "%%1 is not allowed in this form on this page", name);
      }
      return macro.func.apply(this, arguments);
    }, macro.args));
  });
  MathJax.startup.defaultReady();
};
"""
_REMOVED = {
    "macros": ["label", "ref", "framebox"],
    "AMSmath-macros": ["eqref", "DeclareMathOperator"],
    "color": ["definecolor", "colorbox", "fcolorbox"],
}


def mathjax_config(extensions: tuple[str, ...] = TEX_EXTENSIONS, *, safe: bool = True) -> str:
    """The review pages' ``mathjax/config.js``: MathJax's settings and its hardening script.

    Part of issue 35 (and issue 27, which made the review pages). A file of its own: the pages'
    Content-Security-Policy allows no inline script.

    Parameters
    ----------
    extensions : tuple of str
        The TeX extensions whose files were copied (a subset of :data:`TEX_EXTENSIONS`).
    safe : bool
        Whether ``ui/safe.js`` was copied: then it is loaded (MathJax's filter of URLs, classes,
        ids and styles).
    """
    config = {
        "loader": {"load": [*(["ui/safe"] if safe else []), *(f"[tex]/{name}" for name in extensions)]},
        "tex": {
            "packages": [name for name in TEX_PACKAGES if name in ("base", "ams", "noundefined", *extensions)],
            "inlineMath": [["\\(", "\\)"]],
            "displayMath": [["\\[", "\\]"]],
            "processEscapes": False,
            "processEnvironments": False,
            "processRefs": False,
        },
        "options": {
            # Typeset only the elements the page marks as maths: a "\(" in a student's prose stays text.
            "processHtmlClass": "math",
            "ignoreHtmlClass": ".*",
            "enableMenu": False,
            "safeOptions": {"allow": {"URLs": "none", "classes": "safe", "cssIDs": "safe", "styles": "safe"}},
        },
        "startup": {"typeset": True},
    }
    return (
        "// MathJax's configuration for the review pages, written by booktools/grading/review_math.py (issue 35).\n"
        "// A file of its own: the pages' Content-Security-Policy allows no inline script.\n"
        f"window.MathJax = {json.dumps(config, indent=2)};\n" + _READY % {"removed": json.dumps(_REMOVED)}
    )
