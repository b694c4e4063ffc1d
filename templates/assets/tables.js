// Sortable comparison tables, as progressive enhancement: without this script every table is
// complete and readable; with it, each column header becomes a button that sorts the rows.
// Numbers sort on the raw value in data-value, never on the formatted text; a cell without a
// value ("not published") always sorts last; the header announces the order with aria-sort.
(function () {
  "use strict";

  function cellKey(row, index) {
    var cell = row.cells[index];
    if (!cell) return { missing: true };
    if (cell.hasAttribute("data-value")) return { number: parseFloat(cell.getAttribute("data-value")) };
    if (cell.classList.contains("not-published") || cell.classList.contains("not-supported")) return { missing: true };
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
    });
    header.setAttribute("aria-sort", direction);
  }

  function enhance(table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort-button";
      while (header.firstChild) button.appendChild(header.firstChild);
      header.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, header, index); });
    });
    table.classList.add("sortable");
  }

  document.querySelectorAll("table.gpu-table").forEach(enhance);
})();
