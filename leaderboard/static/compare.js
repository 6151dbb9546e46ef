// The compare view: two or three models side by side per benchmark and category, with the paired-bootstrap
// verdict for each pair (precomputed in data/compare.js). The choice is kept in the address (#a=ID&b=ID&c=ID);
// the instance browser below (static/instances.js) keeps its own keys there too. No dependencies, no network,
// nothing inline.
(function () {
  "use strict";
  var data = window.vlcCompare;
  var tables = document.getElementById("compare-tables");
  if (!data || !tables) { return; }
  var el = function (id) { return document.getElementById(id); };
  var models = data.models;
  var byId = {};
  models.forEach(function (m, i) { m.index = i; byId[m.id] = m; });
  var picks = [el("pick-a"), el("pick-b"), el("pick-c")];
  var status = el("compare-status");
  var LETTERS = ["A", "B", "C"];

  function make(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = text; }
    if (cls) { node.className = cls; }
    return node;
  }

  function fmt(value, unit, digits) {
    if (value === null || value === undefined) { return ""; }
    return unit === "score" ? value.toFixed(3) : (100 * value).toFixed(digits === undefined ? 1 : digits);
  }

  function diffText(d, unit) {
    var text = unit === "score" ? d.toFixed(3) : (100 * d).toFixed(1);
    return (d > 0 ? "+" : (d < 0 ? "−" : "±")) + text.replace("-", "");
  }

  // ---- choosing models ----
  picks.forEach(function (select, k) {
    if (k === 2) { select.appendChild(make("option", "(none)")).value = ""; }
    models.forEach(function (m) {
      var option = make("option", m.name + (m.kind !== "model" ? " (" + m.kind + ")" : ""));
      option.value = m.id;
      select.appendChild(option);
    });
  });

  function chosen() {
    var out = [];
    picks.forEach(function (select) {
      var m = byId[select.value];
      if (m && out.indexOf(m) < 0) { out.push(m); }
    });
    return out;
  }

  var notFound = [];
  function readState() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    var wanted = [params.get("a"), params.get("b"), params.get("c")];
    notFound = wanted.filter(function (w) { return w && !byId[w]; });  // a permalink to a model with no published result
    picks.forEach(function (select, k) {
      var id = wanted[k] && byId[wanted[k]] ? wanted[k] : "";
      if (!id && k < 2) {  // defaults: the first two models on the board that are not already picked
        var taken = k === 1 ? picks[0].value : "";
        var spare = models.filter(function (m) { return m.id !== taken; })[0];
        id = spare ? spare.id : "";
      }
      select.value = id;
    });
  }

  function writeState() {
    // the models only: other keys (the instance browser's) stay as they are
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    ["a", "b", "c"].forEach(function (key, k) {
      if (picks[k].value) { params.set(key, picks[k].value); } else { params.delete(key); }
    });
    var url = "#" + params.toString();
    if (url !== location.hash) {
      try { history.replaceState(null, "", url); } catch (err) { location.replace(url); }
    }
  }

  // ---- pair codes: the upper triangle, row by row; 1: i better, 2: j better, 0: neither, -: not compared ----
  function pairCode(line, i, j) {
    var n = models.length, lo = Math.min(i, j), hi = Math.max(i, j);
    var pos = lo * n - (lo * (lo + 1)) / 2 + (hi - lo - 1);
    var code = line.pairs.charAt(pos);
    if (i > j && code === "1") { return "2"; }
    if (i > j && code === "2") { return "1"; }
    return code;
  }

  function verdict(line, x, y) {
    var code = pairCode(line, x.index, y.index);
    var vx = line.values[x.index], vy = line.values[y.index];
    if (vx === null || vy === null) { return { text: "—", cls: "na", note: "missing" }; }
    var d = vx - vy;
    var label = diffText(d, line.unit);
    if (code === "1") { return { text: label, cls: "sig-better", note: "significant: first is better" }; }
    if (code === "2") { return { text: label, cls: "sig-worse", note: "significant: second is better" }; }
    if (code === "0") { return { text: label, cls: "same", note: "not significant" }; }
    return { text: label, cls: "na", note: "not compared (different instances)" };
  }

  function missingText() {
    return notFound.map(function (w) {
      return "\u201c" + w + "\u201d cannot be compared: it has no published result on this board. ";
    }).join("");
  }

  function render() {
    var picked = chosen();
    while (tables.firstChild) { tables.removeChild(tables.firstChild); }
    if (picked.length < 2) {
      status.textContent = missingText() + "Pick at least two different models.";
      return;
    }
    var pairs = [[0, 1]];
    if (picked.length === 3) { pairs.push([0, 2], [1, 2]); }
    var significant = 0;
    var tally = pairs.map(function () { return { shared: 0, first: 0, second: 0 }; });  // headline wins per pair
    data.benchmarks.forEach(function (bench) {
      var any = picked.some(function (m) { return bench.lines.some(function (l) { return l.values[m.index] !== null; }); });
      if (!any) { return; }
      var section = make("section", null, "compare-bench");
      var heading = make("h2");
      var link = make("a", bench.title);
      link.href = "benchmarks/" + bench.slug + ".html";
      heading.appendChild(link);
      heading.id = "cmp-" + bench.slug;
      section.setAttribute("aria-labelledby", heading.id);
      section.appendChild(heading);
      var ties = picked.filter(function (m) { return bench.tieHeavy[String(m.index)] !== undefined; });
      if (ties.length) {
        section.appendChild(make("p", ties.map(function (m) {
          return m.name + ": " + Math.round(100 * bench.tieHeavy[String(m.index)]) + "% of its headline outcomes are ties";
        }).join("; ") + ".", "ties"));
      }
      // a region that may scroll is reachable by keyboard and named by its caption
      var wrap = make("div", null, "table-wrap");
      wrap.tabIndex = 0;
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-labelledby", "cap-" + bench.slug);
      var table = make("table", null, "compare cards");
      var caption = make("caption", bench.title + ": overall, then per category; ▲ ▼ mark significant differences.");
      caption.id = "cap-" + bench.slug;
      table.appendChild(caption);
      var head = make("thead");
      var tr = make("tr");
      tr.appendChild(make("th", "value")).setAttribute("scope", "col");
      picked.forEach(function (m, k) {
        var th = make("th", LETTERS[k] + ": " + m.name);
        var mark = make("span", "", m.swatch);  // the family's colour and mark, as on every page
        mark.setAttribute("aria-hidden", "true");
        th.insertBefore(mark, th.firstChild);
        th.setAttribute("scope", "col");
        tr.appendChild(th);
      });
      pairs.forEach(function (p) {
        var th = make("th", LETTERS[p[0]] + " − " + LETTERS[p[1]]);
        th.setAttribute("scope", "col");
        tr.appendChild(th);
      });
      ["Human", "Chance"].forEach(function (name) { tr.appendChild(make("th", name, "ref")).setAttribute("scope", "col"); });
      head.appendChild(tr);
      table.appendChild(head);
      var body = make("tbody");
      bench.lines.forEach(function (line, n) {
        var split = line.category !== "all" && n > 0 && bench.lines[n - 1].category === "all";
        var row = make("tr", null, (line.category === "all" ? "overall-line" : "category-line") + (split ? " split" : ""));
        var th = make("th", line.category === "all" ? line.label : "· " + line.label);
        th.setAttribute("scope", "row");
        if (line.better === "lower") { th.appendChild(make("span", " (lower is better)", "sub")); }
        row.appendChild(th);
        picked.forEach(function (m, k) {
          var td = make("td", null, "num");
          td.setAttribute("data-label", LETTERS[k] + ": " + m.name);  // a phone shows it above the value
          var v = line.values[m.index];
          td.appendChild(make("span", v === null ? "—" : fmt(v, line.unit), "v"));
          var ci = line.ci[m.index];
          if (ci) { td.appendChild(make("span", fmt(ci[0], line.unit) + "–" + fmt(ci[1], line.unit), "ci")); }
          row.appendChild(td);
        });
        pairs.forEach(function (p) {
          var x = picked[p[0]], y = picked[p[1]];
          var result = verdict(line, x, y);
          var td = make("td", null, "num diff " + result.cls);
          td.setAttribute("data-label", LETTERS[p[0]] + " − " + LETTERS[p[1]]);
          td.title = "difference computed from the unrounded values";
          // the pair codes already take the metric's direction into account
          var winner = result.cls === "sig-better" ? LETTERS[p[0]] : (result.cls === "sig-worse" ? LETTERS[p[1]] : "");
          if (result.cls === "sig-better" || result.cls === "sig-worse") { significant += 1; }
          if (n === 0 && line.values[x.index] !== null && line.values[y.index] !== null) {
            var t = tally[pairs.indexOf(p)];
            t.shared += 1;
            if (result.cls === "sig-better") { t.first += 1; } else if (result.cls === "sig-worse") { t.second += 1; }
          }
          var mark = winner ? (winner === LETTERS[p[0]] ? "▲ " : "▼ ") : "";
          td.appendChild(make("span", mark + result.text, "v"));
          td.appendChild(make("span", winner ? winner + " better" : result.note, "sub"));
          row.appendChild(td);
        });
        [line.human, line.chance].forEach(function (ref, k) {
          var td = row.appendChild(make("td", ref === null || ref === undefined ? "—" : fmt(ref, line.unit), "num ref"));
          td.setAttribute("data-label", k ? "Chance" : "Human");
        });
        body.appendChild(row);
      });
      table.appendChild(body);
      wrap.appendChild(table);
      section.appendChild(wrap);
      tables.appendChild(section);
    });
    status.textContent = missingText() + "Comparing " + picked.map(function (m, k) { return LETTERS[k] + " " + m.name; }).join(", ") +
      ": " + significant + " significant difference" + (significant === 1 ? "" : "s") + ". " +
      pairs.map(function (p, k) {
        var t = tally[k];
        return LETTERS[p[0]] + " better on " + t.first + " of " + t.shared + " benchmark" + (t.shared === 1 ? "" : "s") +
          " (headline, significant), " + LETTERS[p[1]] + " on " + t.second;
      }).join("; ") + ".";
  }

  picks.forEach(function (select) {
    select.addEventListener("change", function () { writeState(); render(); });
  });
  window.addEventListener("hashchange", function () { readState(); render(); });
  readState();
  render();
}());
