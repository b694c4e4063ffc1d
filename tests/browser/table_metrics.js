// What a reader sees of each table of the page, measured in the browser (tests/browser/test_readers.py):
// the scroll region's width, the share of it the sticky first column takes, how many data columns
// are fully in view before scrolling, cells whose text overflows them and words split across lines.
() => {
  const words = /[^\s\u00a0\u202f\u2009\-–\/]+/g;

  // Text for assistive technology only (visually hidden: in a clipped 1-pixel box) is not read on screen.
  function hidden(element) {
    for (let node = element; node && node.tagName !== "TABLE"; node = node.parentElement) {
      const box = node.getBoundingClientRect();
      if (box.width <= 2 || box.height <= 2 || getComputedStyle(node).clipPath !== "none") return true;
    }
    return false;
  }

  function splitWords(cell) {
    const split = [];
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (hidden(node.parentElement)) continue;
      for (const match of node.data.matchAll(words)) {
        if (match[0].length < 2) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) split.push(match[0]);
      }
    }
    return split;
  }

  // A table not rendered (a planner's preset behind "hidden") is measured when shown, not here.
  const rendered = Array.from(document.querySelectorAll("main table"))
    .filter(table => table.closest(".table-scroll").getClientRects().length > 0);
  return rendered.map((table, index) => {
    const region = table.closest(".table-scroll");
    const box = region.getBoundingClientRect();
    const bodyRow = table.tBodies.length && table.tBodies[0].rows.length ? table.tBodies[0].rows[0] : table.rows[0];
    const cells = Array.from(bodyRow.cells);
    const first = cells[0];
    const sticky = getComputedStyle(first).position === "sticky";
    const stickyWidth = sticky ? first.getBoundingClientRect().width : 0;
    const left = box.left + region.clientLeft + stickyWidth;
    const right = box.left + region.clientLeft + region.clientWidth;
    const headed = first.tagName === "TH";
    const data = headed ? cells.slice(1) : cells;
    const visible = data.filter(cell => {
      const r = cell.getBoundingClientRect();
      return r.left >= left - 1 && r.right <= right + 1;
    }).length;
    const overflowing = [], split = [];
    for (const cell of table.querySelectorAll("th, td")) {
      if (hidden(cell)) continue;
      if (cell.scrollWidth > cell.clientWidth + 1) overflowing.push(cell.textContent.trim().slice(0, 40));
      split.push(...splitWords(cell));
    }
    const caption = table.caption ? table.caption.textContent.trim() : "";
    const hintId = region.getAttribute("aria-describedby");
    const hint = hintId ? document.getElementById(hintId) : null;
    return {
      index, caption,
      region: Math.round(region.clientWidth),
      scrolls: region.scrollWidth > region.clientWidth + 1,
      focusable: region.tabIndex === 0,
      hintShown: !!hint && !hint.hidden && hint.getClientRects().length > 0,
      labelled: !!(region.getAttribute("aria-labelledby") || region.getAttribute("aria-label")),
      sticky,
      stickyShare: sticky ? Math.round(1000 * stickyWidth / region.clientWidth) / 1000 : null,
      dataColumns: data.length,
      visibleDataColumns: visible,
      overflowing, split,
    };
  });
}
