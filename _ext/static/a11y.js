// Accessibility repairs for markup that the theme and the ipywidgets manager produce.
// Each block names the axe-core rule it satisfies (tests/test_browser.py runs axe on every page).
(() => {
  const repair = (root) => {
    // label-content-name-mismatch: an accessible name must contain the visible text. The colour
    // switch shows one icon whose title names the mode; the folded cells' toggles show "Show code
    // cell source" but are labelled "Toggle hidden content": let their text be their name.
    root.querySelectorAll(".theme-switch-button").forEach((button) => {
      const current = document.documentElement.dataset.mode || "auto";
      // Font Awesome turns each <i title> into an <svg> with a <title> child.
      const icon = button.querySelector(`[data-mode="${current}"]`);
      const mode = icon && (icon.getAttribute("title") || icon.querySelector("title")?.textContent);
      button.setAttribute("aria-label", mode ? `Color mode: ${mode}` : "Color mode");
    });
    root.querySelectorAll(".search-button__button[aria-label]").forEach((button) => {
      const visible = button.innerText.replace(/\s+/g, " ").trim();
      if (visible) button.setAttribute("aria-label", visible);   // e.g. "Search Ctrl + K"
    });
    root.querySelectorAll("summary[aria-label]").forEach((summary) => {
      if (summary.innerText.trim()) summary.removeAttribute("aria-label");
    });
    // summary-name: the sidebar's expand toggles are empty <summary> elements.
    root.querySelectorAll("summary").forEach((summary) => {
      if (!summary.innerText.trim() && !summary.hasAttribute("aria-label")) {
        const section = summary.closest("li")?.querySelector(":scope > a")?.innerText.trim();
        summary.setAttribute("aria-label", section ? `Show or hide the pages of ${section}` : "Show or hide");
      }
    });
    // aria-required-children: docutils marks the bibliography's citation list role="list" but its
    // entries role="doc-biblioentry", which a list may not hold; make them its list items.
    root.querySelectorAll('.citation-list[role="list"] > [role="doc-biblioentry"]').forEach((entry) => {
      entry.setAttribute("role", "listitem");
    });
    // aria-input-field-name: the widgets' slider handles (noUiSlider) have no name; use the
    // slider's description label.
    root.querySelectorAll('.noUi-handle[role="slider"]').forEach((handle) => {
      if (handle.hasAttribute("aria-label")) return;
      const slider = handle.closest(".widget-slider, .jupyter-widgets");
      const label = slider?.querySelector(".widget-label")?.innerText.trim();
      handle.setAttribute("aria-label", label || "slider");
    });
  };
  const start = () => {
    repair(document);
    // The widget manager draws the explorers after the load event: repair what it adds.
    new MutationObserver(() => repair(document)).observe(document.body, {childList: true, subtree: true});
    // The colour switch changes the mode on <html>: rename the switch.
    new MutationObserver(() => repair(document)).observe(document.documentElement,
      {attributes: true, attributeFilter: ["data-mode", "data-theme"]});
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
