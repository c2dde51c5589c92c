// Sorting of tables, filtering of the per-record table and the record view; no library, no network.
(function () {
  "use strict";

  function sortBy(table, header, index) {
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[index].getAttribute("data-sort"), y = b.cells[index].getAttribute("data-sort");
      var nx = parseFloat(x), ny = parseFloat(y);
      var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
      if (isNaN(nx) !== isNaN(ny)) { order = isNaN(nx) ? 1 : -1; }
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
      header.classList.add("sortable");
      header.addEventListener("click", function () { sortBy(table, header, index); });
    });
  });

  var table = document.getElementById("records");
  if (!table) { return; }
  var body = table.tBodies[0];
  var search = document.getElementById("record-filter");
  var status = document.getElementById("status-filter");
  var label = document.getElementById("label-filter");
  var count = document.getElementById("record-count");
  var labels = Array.prototype.map.call(body.rows, function (row) {
    return JSON.parse(row.getAttribute("data-labels") || "[]");
  });
  Array.prototype.forEach.call(body.rows, function (row, n) { row.setAttribute("data-n", String(n)); row.tabIndex = 0; });

  function applyFilter() {
    var text = search.value.toLowerCase();
    var wanted = status.value;
    var pair = label ? label.value : "";
    var shown = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var visible = (!text || row.textContent.toLowerCase().indexOf(text) !== -1) &&
        (!wanted || (" " + row.getAttribute("data-status") + " ").indexOf(" " + wanted + " ") !== -1) &&
        (!pair || labels[Number(row.getAttribute("data-n"))].indexOf(pair) !== -1);
      row.hidden = !visible;
      if (visible) { shown += 1; }
    });
    count.textContent = shown + " of " + body.rows.length + " records shown";
  }

  var open = null;
  function openRecord(row) {
    var view = document.getElementById("record-" + row.getAttribute("data-record"));
    if (!view) { return; }
    if (open) { open.view.hidden = true; open.row.classList.remove("selected"); }
    view.hidden = false;
    row.classList.add("selected");
    document.getElementById("record-hint").hidden = true;
    open = {view: view, row: row};
  }

  body.addEventListener("click", function (event) {
    var row = event.target.closest("tr");
    if (row && row.parentNode === body) { openRecord(row); }
  });
  body.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && event.target.parentNode === body) { openRecord(event.target); }
  });
  search.addEventListener("input", applyFilter);
  status.addEventListener("change", applyFilter);
  if (label) { label.addEventListener("change", applyFilter); }
  applyFilter();
}());
