// Small enhancements every page gets; without this script the page works the same, less handily.
// - The phone menu: the header's "Menu" link (to the footer's site map) becomes a disclosure button.
// - Escape, a click or focus outside close it and the "Use cases" menu (Escape: focus back on its button).
// - Printing: closed <details> (FAQ answers) are opened for the print and closed again after.
(function () {
  "use strict";

  var wide = window.matchMedia("(min-width: 48rem)");  // the navigation is shown (style.css)
  var link = document.querySelector("[data-menu-toggle]");
  var nav = document.getElementById("site-menu");
  var button = null;
  var openedUseCases = false;

  function setMenu(open, focusButton) {
    if (!button) return;
    button.setAttribute("aria-expanded", open ? "true" : "false");
    var useCases = nav.querySelector("details");
    if (open && useCases && !useCases.open) {  // the whole menu, use cases included
      useCases.open = true;
      openedUseCases = true;
    } else if (!open && useCases && openedUseCases) {
      useCases.open = false;
      openedUseCases = false;
    }
    if (focusButton) button.focus();
  }

  function menuOpen() {
    return !!button && button.getAttribute("aria-expanded") === "true";
  }

  if (link && nav) {
    button = document.createElement("button");
    button.type = "button";
    button.className = link.className;
    while (link.firstChild) button.appendChild(link.firstChild);
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", nav.id);
    link.parentNode.replaceChild(button, link);
    button.addEventListener("click", function () { setMenu(!menuOpen(), false); });
    document.addEventListener("click", function (event) {
      if (menuOpen() && !nav.contains(event.target) && !button.contains(event.target)) setMenu(false, false);
    });
    nav.addEventListener("focusout", function (event) {
      var to = event.relatedTarget;
      if (menuOpen() && to && !nav.contains(to) && to !== button) setMenu(false, false);
    });
    var onWidth = function () { if (wide.matches) setMenu(false, false); };
    if (wide.addEventListener) wide.addEventListener("change", onWidth);
  }

  document.querySelectorAll(".site-nav details").forEach(function (menu) {
    document.addEventListener("click", function (event) {
      if (menu.open && !menuOpen() && !menu.contains(event.target)) menu.open = false;
    });
    menu.addEventListener("focusout", function (event) {
      if (menu.open && !menuOpen() && event.relatedTarget && !menu.contains(event.relatedTarget)) menu.open = false;
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    if (menuOpen()) {
      setMenu(false, true);
      event.preventDefault();
      return;
    }
    var open = document.querySelector(".site-nav details[open]");
    if (open && open.contains(document.activeElement)) {
      open.open = false;
      open.querySelector("summary").focus();
      event.preventDefault();
    }
  });

  var openedForPrint = [];
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("main details:not([open])").forEach(function (details) {
      details.open = true;
      openedForPrint.push(details);
    });
  });
  window.addEventListener("afterprint", function () {
    openedForPrint.forEach(function (details) { details.open = false; });
    openedForPrint = [];
  });
})();
