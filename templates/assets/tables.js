// Tables, as progressive enhancement: without this script every table is complete and readable,
// every scroll region is focusable and its hint shown.
// - Sorting: each column header of a GPU table (or of a table marked data-sortable) becomes a button
//   that sorts the rows. Numbers sort on the raw value in data-value, never on the formatted text;
//   a cell without a value ("not published") always sorts last; the header announces the order
//   with aria-sort, and the arrow is decoration (aria-hidden), not part of the button's name.
// - Table roles: a table laid out as cards or a grid on a phone (comparison tables, tables of
//   sentences) gets explicit ARIA table roles, which some browsers drop with the table's display.
//   Set here, not in the HTML: there they would repeat the elements' own roles, which HTML forbids.
// - Scroll regions: the hint is shown, and the region is a tab stop, only while the table is wider
//   than its region (checked again whenever the region's size changes).
// - While a table scrolls, a "Go to column" select above it brings a column next to the first one.
// - A long column header widens its column: a header row stays a few lines tall.
(function () {
  "use strict";

  var ARROWS = { none: "↕", ascending: "↑", descending: "↓" };
  // The states of a cell without a figure (page_tables.Cell.state): sorted last either way.
  var MISSING = ["not-published", "not-supported", "no-offer", "does-not-fit"];

  function cellKey(row, index) {
    var cell = row.cells[index];
    if (!cell) return { missing: true };
    if (cell.hasAttribute("data-value")) return { number: parseFloat(cell.getAttribute("data-value")) };
    if (MISSING.some(function (name) { return cell.classList.contains(name); })) return { missing: true };
    return { text: cell.textContent.trim() };
  }

  function compare(a, b, direction, collator) {
    if (a.missing || b.missing) return a.missing === b.missing ? 0 : (a.missing ? 1 : -1);
    var order = a.number !== undefined && b.number !== undefined
      ? a.number - b.number
      : collator.compare(a.text !== undefined ? a.text : String(a.number),
                         b.text !== undefined ? b.text : String(b.number));
    return direction === "ascending" ? order : -order;
  }

  function sortBy(table, header, index) {
    var body = table.tBodies[0];
    var direction = header.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    var collator = new Intl.Collator(document.documentElement.lang || undefined, { numeric: true });
    var rows = Array.prototype.slice.call(body.rows).map(function (row, position) {
      return { row: row, key: cellKey(row, index), position: position };
    });
    rows.sort(function (a, b) {
      return compare(a.key, b.key, direction, collator) || a.position - b.position;
    });
    rows.forEach(function (item) { body.appendChild(item.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute("aria-sort");
      var icon = cell.querySelector(".sort-icon");
      if (icon) icon.textContent = ARROWS.none;
    });
    header.setAttribute("aria-sort", direction);
    header.querySelector(".sort-icon").textContent = ARROWS[direction];
  }

  function enhance(table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort-button";
      while (header.firstChild) button.appendChild(header.firstChild);
      var icon = document.createElement("span");
      icon.className = "sort-icon";
      icon.setAttribute("aria-hidden", "true");
      icon.textContent = ARROWS.none;
      button.appendChild(icon);
      header.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, header, index); });
    });
    table.classList.add("sortable");
  }

  // To about a third of a header of over 24 characters, and never so wide that two columns
  // cannot share a phone's region beside the first one (cqi: the region's width).
  function widenLongHeaders(table) {
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header) {
      var length = header.textContent.trim().length;
      var width = Math.min(Math.ceil(length / 3) * 0.55, 11);
      if (length > 24) header.style.minWidth = "min(" + width + "em, 36cqi)";
    });
  }

  var JUMP_LABEL = document.body.getAttribute("data-column-jump");
  var jumps = new Map();
  var jumpCount = 0;

  function headerText(cell) {
    var copy = cell.cloneNode(true);
    copy.querySelectorAll(".sort-icon, .visually-hidden").forEach(function (node) { node.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  function scrollEdge(region, table) {  // where the scrolling columns start
    var first = table.tHead.rows[0].cells[0];
    var sticky = getComputedStyle(first).position === "sticky" ? first.getBoundingClientRect().width : 0;
    return region.getBoundingClientRect().left + region.clientLeft + sticky;
  }

  function addJump(region) {
    var table = region.querySelector(":scope > table");
    if (!JUMP_LABEL || !table || !table.tHead || table.tHead.rows[0].cells.length < 4 ||
        table.classList.contains("comparison-table")) return;
    var headers = table.tHead.rows[0].cells;
    var paragraph = document.createElement("p");
    paragraph.className = "column-jump";
    paragraph.setAttribute("data-pagefind-ignore", "");
    paragraph.hidden = true;
    var label = document.createElement("label");
    var select = document.createElement("select");
    select.id = "column-jump-" + (++jumpCount);
    label.htmlFor = select.id;
    label.appendChild(document.createTextNode(JUMP_LABEL));
    label.appendChild(select);
    paragraph.appendChild(label);
    for (var index = 1; index < headers.length; index++) {
      var option = document.createElement("option");
      option.value = String(index);
      option.textContent = headerText(headers[index]);
      select.appendChild(option);
    }
    var jumpedTo = null;
    select.addEventListener("change", function () {
      var header = headers[Number(select.value)];
      region.scrollLeft += header.getBoundingClientRect().left - scrollEdge(region, table);
      jumpedTo = region.scrollLeft;
    });
    var pending = false;
    region.addEventListener("scroll", function () {  // names the first column in view
      if (pending || region.scrollLeft === jumpedTo) return;
      jumpedTo = null;
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        var edge = scrollEdge(region, table);
        for (var i = 1; i < headers.length; i++) {
          if (headers[i].getBoundingClientRect().right > edge + 8) { select.value = String(i); break; }
        }
      });
    }, { passive: true });
    region.parentNode.insertBefore(paragraph, region);
    jumps.set(region, paragraph);
  }

  function fit(region) {
    var scrolls = region.scrollWidth > region.clientWidth;
    var hint = document.getElementById(region.getAttribute("aria-describedby") || "");
    if (hint) hint.hidden = !scrolls;
    var jump = jumps.get(region);
    if (jump) jump.hidden = !scrolls;
    if (scrolls) region.setAttribute("tabindex", "0");
    else if (document.activeElement !== region) region.removeAttribute("tabindex");
    region.classList.toggle("scrolls", scrolls);
  }

  function keepTableRoles(table) {
    table.setAttribute("role", "table");
    Array.prototype.forEach.call(table.querySelectorAll(":scope > thead, :scope > tbody"), function (group) {
      group.setAttribute("role", "rowgroup");
    });
    Array.prototype.forEach.call(table.rows, function (row) {
      row.setAttribute("role", "row");
      Array.prototype.forEach.call(row.cells, function (cell) {
        var scope = cell.getAttribute("scope");
        cell.setAttribute("role", cell.tagName === "TD" ? "cell" : scope === "row" ? "rowheader" : "columnheader");
      });
    });
  }

  document.querySelectorAll("table.comparison-table, .table-scroll.prose > table").forEach(keepTableRoles);
  document.querySelectorAll(".table-scroll > table").forEach(widenLongHeaders);
  document.querySelectorAll("table.gpu-table, table[data-sortable]").forEach(enhance);
  var regions = document.querySelectorAll(".table-scroll");
  regions.forEach(addJump);
  regions.forEach(fit);
  if ("ResizeObserver" in window) {
    var observer = new ResizeObserver(function (entries) {
      entries.forEach(function (entry) { fit(entry.target); });
    });
    regions.forEach(function (region) { observer.observe(region); });
  }
})();
