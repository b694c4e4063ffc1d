// Small enhancements every page gets; without this script the page works the same, less handily.
// - The header's "Use cases" menu (a <details>) closes on Escape, giving focus back to its button,
//   and when the reader clicks or moves focus outside it.
// - Printing: closed <details> (FAQ answers) are opened for the print and closed again after.
(function () {
  "use strict";

  document.querySelectorAll(".site-nav details").forEach(function (menu) {
    var summary = menu.querySelector("summary");
    menu.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && menu.open) {
        menu.open = false;
        summary.focus();
        event.preventDefault();
      }
    });
    document.addEventListener("click", function (event) {
      if (menu.open && !menu.contains(event.target)) menu.open = false;
    });
    menu.addEventListener("focusout", function (event) {
      if (menu.open && event.relatedTarget && !menu.contains(event.relatedTarget)) menu.open = false;
    });
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
