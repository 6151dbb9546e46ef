// The leaderboard table: sorting, filtering, a column chooser, and all of it kept in the address
// (#sort=...&dir=...&q=...&drill=...) so that a link reopens the same view. No dependencies, no network,
// nothing inline: the page's columns come from data/index.js (window.vlcBoard), loaded before this file.
(function () {
  "use strict";
  var table = document.getElementById("board");
  var data = window.vlcBoard;
  if (!table || !data || !data.columns) { return; }

  var columns = data.columns;
  var arrows = data.arrows;  // the sort arrows and the order words come from the page data (fmt.py)
  var orders = data.orders;
  var byKey = {};
  columns.forEach(function (c, i) { c.index = i; byKey[c.key] = c; });
  var headers = {};
  Array.prototype.forEach.call(table.querySelectorAll("thead th[data-col]"), function (th) {
    headers[th.getAttribute("data-col")] = th;
  });
  var groupRow = table.querySelector("thead tr.groups");
  var groupHeaders = table.querySelectorAll("thead th[data-cols]");
  var body = document.getElementById("models");
  var allRows = Array.prototype.slice.call(table.querySelectorAll("tbody tr"));
  var modelRows = Array.prototype.slice.call(body.rows);
  modelRows.forEach(function (row, i) { row.setAttribute("data-order", String(i)); });

  var el = function (id) { return document.getElementById(id); };
  var inputs = { q: el("f-text"), family: el("f-family"), open: el("f-open"), pmin: el("f-pmin"), pmax: el("f-pmax") };
  var sortSelect = el("f-sort");
  var dirSelect = el("f-dir");
  var status = el("status");
  var empty = el("empty");
  var chooserBody = el("chooser-body");
  var chooserSummary = document.querySelector("#chooser summary");
  var defaults = columns.filter(function (c) { return !c.hidden; }).map(function (c) { return c.key; });
  var defaultSort = byKey[data.defaultSort] ? data.defaultSort : "";  // the overall column: the page's own order
  var state = { sort: defaultSort, dir: defaultSort ? naturalDir(byKey[defaultSort]) : "", visible: defaults.slice() };
  var drillButtons = Array.prototype.slice.call(table.querySelectorAll("button.drill"));

  function naturalDir(col) {
    if (col.type === "text") { return "asc"; }
    return col.better === "lower" ? "asc" : "desc";
  }

  // ---- values and sorting ----
  function cellValue(row, col) {
    if (col.key === "model") { return (row.getAttribute("data-name") || "").toLowerCase(); }
    var cell = row.cells[col.index];
    if (!cell) { return col.type === "num" ? NaN : ""; }
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (col.type === "num") { return raw === "" ? NaN : parseFloat(raw); }
    return raw.toLowerCase();
  }

  // a ranked value's rank (#); a value without one sorts after every ranked value, best first
  function rankOf(row, col) {
    var cell = row.cells[col.index];
    var rank = cell ? cell.getAttribute("data-rank") : null;
    return rank ? parseInt(rank, 10) : Infinity;
  }

  // numbers by rank, then value (so ranks read monotone best first), text A to Z; missing values last
  function compare(col, dir) {
    var sign = dir === "asc" ? 1 : -1;
    var rankSign = dir === naturalDir(col) ? 1 : -1;
    return function (a, b) {
      var x = cellValue(a, col), y = cellValue(b, col), result;
      var missingX = col.type === "num" ? isNaN(x) : x === "";
      var missingY = col.type === "num" ? isNaN(y) : y === "";
      var rx = rankOf(a, col), ry = rankOf(b, col);
      if (missingX || missingY) {
        result = missingX === missingY ? 0 : (missingX ? 1 : -1);  // missing values always last
      } else if (col.type === "num" && rx !== ry) {
        result = rankSign * (rx < ry ? -1 : 1);
      } else if (col.type === "num") {
        result = sign * (x - y);
      } else {
        result = sign * x.localeCompare(y);
      }
      return result || (Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order")));
    };
  }

  function applySort() {
    var col = byKey[state.sort];
    Object.keys(headers).forEach(function (key) {
      headers[key].removeAttribute("aria-sort");
      var arrow = headers[key].querySelector(".sort-arrow");
      if (arrow) { arrow.textContent = ""; }
    });
    var rows = modelRows.slice();
    if (col) {
      var sorted = state.dir === "asc" ? "ascending" : "descending";
      if (headers[col.key]) {
        headers[col.key].setAttribute("aria-sort", sorted);
        var mark = headers[col.key].querySelector(".sort-arrow");
        if (mark) { mark.textContent = " " + arrows[sorted]; }  // the one arrow; the lower-is-better mark hides (CSS)
      }
      rows.sort(compare(col, state.dir));
    } else {
      rows.sort(function (a, b) { return Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order")); });
    }
    rows.forEach(function (r) { body.appendChild(r); });
    sortSelect.value = col ? col.key : "";
    var words = orders[col && col.type === "text" ? "text" : "num"];
    dirSelect.options[0].textContent = words[0];
    dirSelect.options[1].textContent = words[1];
    dirSelect.value = col ? state.dir : "desc";
    dirSelect.disabled = !col;
  }

  function sortBy(key, dir) {
    var col = byKey[key];
    if (!col) { state.sort = ""; state.dir = ""; return; }
    state.sort = key;
    state.dir = dir || naturalDir(col);
  }

  // ---- filters ----
  function applyFilters() {
    var needle = inputs.q.value.trim().toLowerCase();
    var lo = inputs.pmin.value === "" ? -Infinity : parseFloat(inputs.pmin.value);
    var hi = inputs.pmax.value === "" ? Infinity : parseFloat(inputs.pmax.value);
    var shown = 0;
    modelRows.forEach(function (row) {
      var name = (row.getAttribute("data-name") + " " + row.getAttribute("data-family")).toLowerCase();
      var params = row.getAttribute("data-params");
      var p = params === "" ? NaN : parseFloat(params);
      var visible = (!needle || name.indexOf(needle) >= 0)
        && (!inputs.family.value || row.getAttribute("data-family") === inputs.family.value)
        && (!inputs.open.checked || row.getAttribute("data-open") === "yes")
        && ((lo === -Infinity && hi === Infinity) || (!isNaN(p) && p >= lo && p <= hi));
      row.hidden = !visible;
      if (visible) { shown += 1; }
    });
    empty.hidden = shown > 0;
    return shown;
  }

  function clearFilters() {
    inputs.q.value = ""; inputs.family.value = ""; inputs.open.checked = false;
    inputs.pmin.value = ""; inputs.pmax.value = "";
  }

  // ---- visible columns ----
  function applyColumns() {
    var visible = {};
    state.visible.forEach(function (key) { visible[key] = true; });
    visible.model = true;
    columns.forEach(function (col) {
      var show = !!visible[col.key];
      if (headers[col.key]) { headers[col.key].hidden = !show; }
      allRows.forEach(function (row) { if (row.cells[col.index]) { row.cells[col.index].hidden = !show; } });
    });
    Array.prototype.forEach.call(groupHeaders, function (th) {
      var keys = th.getAttribute("data-cols").split(" ").filter(function (k) { return k && visible[k]; });
      th.hidden = keys.length === 0;
      th.colSpan = Math.max(1, keys.length);
    });
    drillButtons.forEach(function (button) {
      var keys = drillKeys(button.getAttribute("data-drill"));
      var open = keys.length > 0 && keys.every(function (k) { return visible[k]; });
      button.setAttribute("aria-expanded", open ? "true" : "false");
      var verb = button.querySelector(".verb");
      if (verb) { verb.textContent = open ? "Hide" : "Show"; }
    });
    Array.prototype.forEach.call(chooserBody.querySelectorAll("input[type=checkbox]"), function (box) {
      box.checked = !!visible[box.value];
    });
    var hidden = columns.length - 1 - state.visible.filter(function (k) { return k !== "model" && byKey[k]; }).length;
    chooserSummary.textContent = hidden > 0 ? "Columns (" + hidden + " hidden)" : "Columns";
    updateStickyOffsets();
  }

  function buildChooser() {
    var groups = [];
    var byGroup = {};
    columns.forEach(function (col) {
      if (col.key === "model") { return; }
      var name = col.group || "Model";
      if (!byGroup[name]) { byGroup[name] = []; groups.push(name); }
      byGroup[name].push(col);
    });
    groups.forEach(function (name) {
      var fieldset = document.createElement("fieldset");
      var legend = document.createElement("legend");
      legend.textContent = name;
      fieldset.appendChild(legend);
      byGroup[name].forEach(function (col) {
        var id = "col-" + col.index;
        var wrap = document.createElement("div");
        wrap.className = "check";
        var box = document.createElement("input");
        box.type = "checkbox";
        box.id = id;
        box.value = col.key;
        var label = document.createElement("label");
        label.htmlFor = id;
        label.textContent = col.title;
        if (col.metric) { label.title = col.tooltip; }
        wrap.appendChild(box);
        wrap.appendChild(label);
        fieldset.appendChild(wrap);
      });
      chooserBody.appendChild(fieldset);
    });
    var buttons = document.createElement("div");
    buttons.className = "chooser-buttons";
    [["Show all", function () { state.visible = columns.map(function (c) { return c.key; }); }],
     ["Default columns", function () { state.visible = defaults.slice(); }]].forEach(function (pair) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = pair[0];
      button.addEventListener("click", function () { pair[1](); applyColumns(); writeState(); });
      buttons.appendChild(button);
    });
    chooserBody.appendChild(buttons);
    chooserBody.addEventListener("change", function (e) {
      var box = e.target;
      if (!box || box.type !== "checkbox") { return; }
      var keep = state.visible.filter(function (k) { return k !== box.value; });
      if (box.checked) { keep.push(box.value); }
      state.visible = columns.map(function (c) { return c.key; }).filter(function (k) { return keep.indexOf(k) >= 0; });
      applyColumns();
      writeState();
    });
  }

  // ---- a benchmark's drilldown: its per-category columns, shown and hidden together ----
  function drillKeys(base) {
    return columns.filter(function (c) { return c.drill === base; }).map(function (c) { return c.key; });
  }

  function toggleDrill(base) {
    var keys = drillKeys(base);
    var open = keys.every(function (k) { return state.visible.indexOf(k) >= 0; });
    var keep = state.visible.filter(function (k) { return keys.indexOf(k) < 0; });
    if (!open) { keep = keep.concat(keys); }
    state.visible = columns.map(function (c) { return c.key; }).filter(function (k) { return keep.indexOf(k) >= 0; });
    applyColumns();
    writeState();
  }

  // ---- the sticky header's second row sits below the first, whatever its height ----
  function updateStickyOffsets() {
    if (groupRow) { table.style.setProperty("--group-h", groupRow.getBoundingClientRect().height + "px"); }
  }

  // ---- the address: #sort=KEY&dir=asc|desc&q=...&family=...&open=1&pmin=..&pmax=..&drill=BENCH&show=KEY&hide=KEY ----
  function writeState() {
    var params = new URLSearchParams();
    var isDefault = state.sort === defaultSort && (!defaultSort || state.dir === naturalDir(byKey[defaultSort]));
    if (state.sort && !isDefault) { params.set("sort", state.sort); params.set("dir", state.dir); }
    if (inputs.q.value.trim()) { params.set("q", inputs.q.value.trim()); }
    if (inputs.family.value) { params.set("family", inputs.family.value); }
    if (inputs.open.checked) { params.set("open", "1"); }
    if (inputs.pmin.value !== "") { params.set("pmin", inputs.pmin.value); }
    if (inputs.pmax.value !== "") { params.set("pmax", inputs.pmax.value); }
    var diff = columnDiff();
    ["drill", "show", "hide"].forEach(function (name) { if (diff[name].length) { params.set(name, diff[name].join(",")); } });
    var text = params.toString();
    var url = text ? "#" + text : location.pathname + location.search;
    if (("#" + text) !== location.hash && (text || location.hash)) {
      try { history.replaceState(null, "", url); } catch (err) { location.replace(text ? url : "#"); }
    }
    announce();
  }

  function readState() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    sortBy(byKey[params.get("sort")] ? params.get("sort") : defaultSort,
           params.get("dir") === "asc" || params.get("dir") === "desc" ? params.get("dir") : "");
    inputs.q.value = params.get("q") || "";
    var family = params.get("family") || "";
    inputs.family.value = family;
    if (inputs.family.value !== family) { inputs.family.value = ""; }
    inputs.open.checked = params.get("open") === "1";
    inputs.pmin.value = params.get("pmin") || "";
    inputs.pmax.value = params.get("pmax") || "";
    var listed = function (name) { return (params.get(name) || "").split(",").filter(function (k) { return k; }); };
    var wanted = defaults.filter(function (k) { return listed("hide").indexOf(k) < 0; }).concat(listed("show"));
    listed("drill").forEach(function (base) { wanted = wanted.concat(drillKeys(base)); });
    var cols = listed("cols").filter(function (k) { return byKey[k]; });  // the older form: every visible column
    if (params.has("cols") && cols.length) { wanted = cols; }
    state.visible = columns.map(function (c) { return c.key; }).filter(function (k) { return wanted.indexOf(k) >= 0; });
  }

  // The columns as the address keeps them, relative to the defaults: the benchmarks whose drilldown is open
  // (drill=), other columns shown (show=) and default ones hidden (hide=). A benchmark added later shows its
  // default columns under an old link, and the link stays short.
  function columnDiff() {
    var visible = function (k) { return state.visible.indexOf(k) >= 0; };
    var drills = drillButtons.map(function (b) { return b.getAttribute("data-drill"); }).filter(function (base) {
      var keys = drillKeys(base);
      return keys.length > 0 && keys.every(visible) && !keys.every(function (k) { return defaults.indexOf(k) >= 0; });
    });
    var opened = function (k) { return byKey[k] && byKey[k].drill && drills.indexOf(byKey[k].drill) >= 0; };
    return {
      drill: drills,
      show: state.visible.filter(function (k) { return defaults.indexOf(k) < 0 && !opened(k); }),
      hide: defaults.filter(function (k) { return !visible(k); })
    };
  }

  function announce() {
    var shown = modelRows.filter(function (r) { return !r.hidden; }).length;
    var text = "Showing " + shown + " of " + modelRows.length + " models";
    var col = byKey[state.sort];
    if (col) {
      var name = (col.group ? col.group + " " : "") + col.title;
      var order = orders[col.type === "text" ? "text" : "num"][state.dir === "asc" ? 1 : 0];
      text += ", sorted by " + name + ", " + order;
    }
    status.textContent = text + ".";
  }

  function applyAll() {
    applyColumns();
    applyFilters();
    applySort();
    announce();
  }

  // ---- wiring ----
  Object.keys(headers).forEach(function (key) {
    var button = headers[key].querySelector("button.sort");
    if (!button) { return; }
    button.addEventListener("click", function () {  // a button: Enter and Space both sort
      if (state.sort === key) {
        state.dir = state.dir === "asc" ? "desc" : "asc";
      } else {
        sortBy(key, "");
      }
      applySort();
      writeState();
    });
  });
  sortSelect.addEventListener("change", function () { sortBy(sortSelect.value, ""); applySort(); writeState(); });
  dirSelect.addEventListener("change", function () {
    if (state.sort) { state.dir = dirSelect.value; applySort(); writeState(); }
  });
  ["q", "family", "open", "pmin", "pmax"].forEach(function (name) {
    inputs[name].addEventListener("input", function () { applyFilters(); writeState(); });
    inputs[name].addEventListener("change", function () { applyFilters(); writeState(); });
  });
  [el("f-clear"), el("f-clear-empty")].forEach(function (button) {
    button.addEventListener("click", function () { clearFilters(); applyFilters(); writeState(); inputs.q.focus(); });
  });
  el("filters").addEventListener("submit", function (e) { e.preventDefault(); });
  window.addEventListener("hashchange", function () { readState(); applyAll(); });
  if (window.ResizeObserver && groupRow) {
    new ResizeObserver(updateStickyOffsets).observe(groupRow);
  } else {
    window.addEventListener("resize", updateStickyOffsets);
  }

  drillButtons.forEach(function (button) {
    button.addEventListener("click", function () { toggleDrill(button.getAttribute("data-drill")); });
  });
  // an opened "?" explanation widens its cell: scroll the table so the whole text is in view, not past its right edge
  table.addEventListener("toggle", function (e) {
    var why = e.target;
    if (!why.open || !why.classList || !why.classList.contains("why")) { return; }
    var text = why.querySelector(".why-text");
    if (text) { text.scrollIntoView({ block: "nearest", inline: "nearest" }); }
  }, true);
  buildChooser();
  readState();
  applyAll();
}());
