// Sorting and filtering of the leaderboard table. No dependencies, no network.
(function () {
  "use strict";
  var table = document.getElementById("board");
  if (!table) { return; }
  var body = document.getElementById("models");
  var headers = table.querySelectorAll("tr.columns th");

  function cellValue(row, index, numeric) {
    var cell = row.children[index];
    if (!cell) { return numeric ? NaN : ""; }
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    return numeric ? (raw === "" ? NaN : parseFloat(raw)) : raw.toLowerCase();
  }

  function sortBy(index, header) {
    var numeric = header.getAttribute("data-sort") === "num";
    var descending = header.getAttribute("aria-sort") !== "descending";
    if (numeric && header.getAttribute("data-higher") === "no") { descending = !descending; }
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      if (numeric) {
        if (isNaN(x) && isNaN(y)) { return 0; }
        if (isNaN(x)) { return 1; }   // missing values always last
        if (isNaN(y)) { return -1; }
        return descending ? y - x : x - y;
      }
      return descending ? (x < y ? 1 : x > y ? -1 : 0) : (x < y ? -1 : x > y ? 1 : 0);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  headers.forEach(function (header, index) {
    header.tabIndex = 0;
    header.addEventListener("click", function () { sortBy(index, header); });
    header.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortBy(index, header); } });
  });

  var text = document.getElementById("f-text");
  var family = document.getElementById("f-family");
  var open = document.getElementById("f-open");
  var pmin = document.getElementById("f-pmin");
  var pmax = document.getElementById("f-pmax");

  function applyFilters() {
    var needle = text.value.trim().toLowerCase();
    var lo = pmin.value === "" ? -Infinity : parseFloat(pmin.value);
    var hi = pmax.value === "" ? Infinity : parseFloat(pmax.value);
    Array.prototype.forEach.call(body.rows, function (row) {
      var name = (row.getAttribute("data-name") + " " + row.getAttribute("data-family")).toLowerCase();
      var params = row.getAttribute("data-params");
      var p = params === "" ? NaN : parseFloat(params);
      var visible = (!needle || name.indexOf(needle) >= 0)
        && (!family.value || row.getAttribute("data-family") === family.value)
        && (!open.checked || row.getAttribute("data-open") === "yes")
        && ((lo === -Infinity && hi === Infinity) || (!isNaN(p) && p >= lo && p <= hi));
      row.hidden = !visible;
    });
  }
  [text, family, open, pmin, pmax].forEach(function (el) { el.addEventListener("input", applyFilters); });
  family.addEventListener("change", applyFilters);
}());
