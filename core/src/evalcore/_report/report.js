// Filtering and sorting of the per-record table; no library, no network.
(function () {
  "use strict";
  var table = document.getElementById("records");
  if (!table) { return; }
  var body = table.tBodies[0];
  var search = document.getElementById("record-filter");
  var status = document.getElementById("status-filter");
  var count = document.getElementById("record-count");

  function applyFilter() {
    var text = search.value.toLowerCase();
    var wanted = status.value;
    var shown = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var visible = (!text || row.textContent.toLowerCase().indexOf(text) !== -1) &&
        (!wanted || (" " + row.getAttribute("data-status") + " ").indexOf(" " + wanted + " ") !== -1);
      row.hidden = !visible;
      if (visible) { shown += 1; }
    });
    count.textContent = shown + " of " + body.rows.length + " records shown";
  }

  function sortBy(header, index) {
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
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

  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
    header.classList.add("sortable");
    header.addEventListener("click", function () { sortBy(header, index); });
  });
  search.addEventListener("input", applyFilter);
  status.addEventListener("change", applyFilter);
  applyFilter();
}());
