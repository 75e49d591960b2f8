// Reading on any screen (issue 28); see reading.css.
(() => {
  // Display maths wider than the column scrolls in its mjx-container: mark the container, and
  // which ends hide more, so that reading.css shows a scrollbar and a shadow on that side.
  const markMaths = () => {
    document.querySelectorAll(".bd-article div.math mjx-container").forEach((box) => {
      const hidden = box.scrollWidth - box.clientWidth;
      if (hidden <= 1) {
        box.removeAttribute("data-scrolls");
        return;
      }
      const left = box.scrollLeft > 1;
      const right = box.scrollLeft < hidden - 1;
      box.dataset.scrolls = left && right ? "middle" : left ? "end" : "start";
      if (!box.hasAttribute("tabindex")) box.tabIndex = 0; // scrollable by keyboard too
    });
  };
  // The explorers' widgets have no kernel on the site: inert, so that no key or click reaches them.
  const quietWidgets = () => {
    document.querySelectorAll(".bd-article .cell_output .widget-subarea:not([inert])").forEach((w) => {
      w.inert = true;
    });
  };
  let pending = false;
  const update = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      markMaths();
      quietWidgets();
    });
  };
  const start = () => {
    update();
    const mathjax = window.MathJax;
    if (mathjax && mathjax.startup && mathjax.startup.promise) mathjax.startup.promise.then(update, () => {});
    window.addEventListener("resize", update);
    document.addEventListener("scroll", (e) => {
      if (e.target instanceof Element && e.target.matches("div.math mjx-container")) update();
    }, true);
    new MutationObserver(update).observe(document.body, {childList: true, subtree: true});
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
