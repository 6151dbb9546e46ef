// The instance browser of the compare view: instance by instance, where one picked model is right and
// another wrong (A-B, A-C, B-C, either way) or all are right or wrong, with the gold caption and image
// marked, each model's verdict and stored scores, captions and thumbnails where the license allows.
// Its data loads on demand with <script src> (data/instances/BENCH/...: the index, the picked models'
// verdicts, then only the shards that hold the instances shown). The state is kept in the address
// (#a=..&b=..&c=..&bench=ID&show=ac&inst=ID). No dependencies, no network, nothing inline.
(function () {
  "use strict";
  var data = window.vlcCompare;
  var el = function (id) { return document.getElementById(id); };
  var ui = { bench: el("browse-bench"), which: el("browse-which"), list: el("browse-list"), more: el("browse-more"),
             status: el("browse-status"), note: el("browse-note"), missing: el("browse-missing") };
  if (!data || !ui.list) { return; }
  var opener = el("browse-open");  // the browser's <details>: closed, it loads nothing
  var byId = {};
  data.models.forEach(function (m) { byId[m.id] = m; });
  var picks = [el("pick-a"), el("pick-b"), el("pick-c")];
  var LETTERS = ["A", "B", "C"];
  var PAGE = 25;
  var RIGHT = "RU", WRONG = "WTA";  // full credit; no credit (data/instances/*/index.js "letters" names them)
  var ALIASES = { both: "all", neither: "none" };  // older permalinks
  var view = { shown: PAGE, shards: 0, inst: "", fresh: true };

  function make(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = text; }
    if (cls) { node.className = cls; }
    return node;
  }
  function count(n) { return n.toLocaleString("en-US"); }

  function chosen() {
    var out = [];
    picks.forEach(function (select) {
      var m = byId[select.value];
      if (m && out.indexOf(m) < 0) { out.push(m); }
    });
    return out;
  }

  // ---- loading page data with <script src>, once per file ----
  var loaded = {};
  function load(src, done) {
    if (loaded[src] === true || loaded[src] === false) { done(); return; }
    if (loaded[src]) { loaded[src].push(done); return; }
    loaded[src] = [done];
    var script = document.createElement("script");
    script.src = src;
    var finish = function (ok) { var waiting = loaded[src]; loaded[src] = ok; waiting.forEach(function (fn) { fn(); }); };
    script.addEventListener("load", function () { finish(true); });
    script.addEventListener("error", function () { finish(false); });
    document.head.appendChild(script);
  }
  function loadAll(srcs, done) {
    var pending = srcs.length;
    if (!pending) { done(); return; }
    srcs.forEach(function (src) { load(src, function () { pending -= 1; if (!pending) { done(); } }); });
  }
  function failed(srcs) { return srcs.filter(function (src) { return loaded[src] === false; }); }

  // ---- the address ----
  function readState() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    var bench = params.get("bench");
    if (bench && data.instances[bench]) { ui.bench.value = bench; }
    var show = params.get("show") || "ab";
    ui.which.dataset.wanted = ALIASES[show] || show;
    view.inst = params.get("inst") || "";
    // a permalink into the browser opens it; otherwise nothing of it is loaded until the reader opens it
    if (opener && (params.get("bench") || params.get("show") || params.get("inst"))) { opener.open = true; }
  }

  function writeState() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    params.set("bench", ui.bench.value);
    if (ui.which.value && ui.which.value !== "ab") { params.set("show", ui.which.value); } else { params.delete("show"); }
    if (view.inst) { params.set("inst", view.inst); } else { params.delete("inst"); }
    var url = "#" + params.toString();
    if (url !== location.hash) {
      try { history.replaceState(null, "", url); } catch (err) { location.replace(url); }
    }
  }

  function linkTo(inst) {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (inst) { params.set("inst", inst); } else { params.delete("inst"); }
    return "#" + params.toString();
  }

  // ---- filters: every ordered pair of the picked models, all right, all wrong, every instance ----
  function filters(picked) {
    var out = [];
    for (var x = 0; x < picked.length; x++) {
      for (var y = x + 1; y < picked.length; y++) {
        out.push({ value: LETTERS[x].toLowerCase() + LETTERS[y].toLowerCase(), right: [x], wrong: [y] });
        out.push({ value: LETTERS[y].toLowerCase() + LETTERS[x].toLowerCase(), right: [y], wrong: [x] });
      }
    }
    var all = picked.map(function (m, k) { return k; });
    out.push({ value: "all", right: all, wrong: [] }, { value: "none", right: [], wrong: all }, { value: "any", right: [], wrong: [] });
    out.forEach(function (f) {
      var everyone = picked.length === 2 ? "both" : "all " + picked.length;
      f.label = f.value === "all" ? everyone + " right" : f.value === "none" ? everyone + " wrong" : f.value === "any" ? "every instance"
        : LETTERS[f.right[0]] + " right, " + LETTERS[f.wrong[0]] + " wrong";
      f.says = f.value === "all" || f.value === "none" || f.value === "any" ? f.label
        : picked[f.right[0]].name + " right, " + picked[f.wrong[0]].name + " wrong";
    });
    return out;
  }

  function fillFilters(picked) {
    var wanted = ui.which.dataset.wanted || ui.which.value || "ab";
    var list = filters(picked);
    while (ui.which.firstChild) { ui.which.removeChild(ui.which.firstChild); }
    list.forEach(function (f) { ui.which.appendChild(make("option", f.label)).value = f.value; });
    var found = list.filter(function (f) { return f.value === wanted; })[0];
    ui.which.value = found ? wanted : list[0].value;
    delete ui.which.dataset.wanted;
    return found || list[0];
  }

  // ---- where an instance's data is ----
  function shardOf(info, pos) {
    var lo = 0, hi = info.shards.length - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (info.shards[mid].start <= pos) { lo = mid; } else { hi = mid - 1; } }
    return lo;
  }
  function shardFiles(info, picked, k) {
    var files = info.shards[k].file ? [info.shards[k].file] : [];
    picked.forEach(function (m) { var e = info.models[m.id]; if (e && e.scores && e.scores[k]) { files.push(e.scores[k]); } });
    return files;
  }
  function item(benchId, info, k, pos) {
    var shard = (window.vlcShards || {})[benchId + "#" + k];
    return shard ? shard.items[pos - shard.start] : null;
  }
  // A model's scores on a shard come packed (score_packing.py): base64, 3 bytes a score, instance after instance, each
  // its images x captions (text-text: captions x captions) in row order: the sign, the decimal exponent + 32 and the
  // 5 significant digits (0x1FFFF: none stored, 0x1FFFE: infinite). A shard it cannot pack keeps JSON numbers.
  var unpacked = {};
  function unpack(packed, shard, dims) {
    if (typeof packed !== "string") { return packed; }
    var bytes = atob(packed), at = 0;
    return shard.items.map(function (it) {
      var shape = dims(it), rows = [], any = false;
      for (var i = 0; i < shape[0]; i++) {
        var row = [];
        for (var j = 0; j < shape[1]; j++, at += 3) {
          var code = bytes.charCodeAt(at) * 65536 + bytes.charCodeAt(at + 1) * 256 + bytes.charCodeAt(at + 2);
          var digits = code & 0x1FFFF, sign = code >= 0x800000 ? "-" : "";
          if (digits === 0x1FFFF) { row.push(null); continue; }
          any = true;
          row.push(digits === 0x1FFFE ? Number(sign + "Infinity") : Number(sign + digits + "e" + (((code >> 17) & 63) - 36)));
        }
        rows.push(row);
      }
      return any ? rows : null;
    });
  }
  function scoresOf(benchId, m, k, pos) {
    var key = benchId + "#" + m.id + "#" + k;
    var s = (window.vlcScores || {})[key], shard = (window.vlcShards || {})[benchId + "#" + k];
    if (!s || !shard) { return null; }
    if (!unpacked[key]) {
      unpacked[key] = { s: unpack(s.s, shard, function (it) { return [it.m.length, it.r.length]; }),
                        x: unpack(s.x, shard, function (it) { return [it.r.length, it.r.length]; }) };
    }
    var u = unpacked[key], i = pos - s.start;
    return { s: u.s ? u.s[i] : null, x: u.x ? u.x[i] : null, a: s.a ? s.a[i] : null };
  }

  function overBudget(info, k) {
    return "Instances " + count(info.shards[k].start + 1) + "–" + count(info.shards[k].end) + " are over the size budget (" +
      count(info.budget.maxFileBytes) + " bytes per file) and not published; their verdicts still count above.";
  }

  // ---- drawing one instance ----
  function verdictText(info, letter) { return info.letters[letter] || "no result"; }
  function verdictClass(letter) {
    return RIGHT.indexOf(letter) >= 0 ? "verdict v-right" : WRONG.indexOf(letter) >= 0 ? "verdict v-wrong" : "verdict v-other";
  }

  function drawImages(entry, node) {
    if (!entry.m.length) { return; }
    var box = make("div", null, "instance-images");
    entry.m.forEach(function (image, k) {
      var figure = make("figure", null, "instance-image");
      if (image[2]) {
        var img = document.createElement("img");
        img.src = image[2];
        img.alt = "image " + (k + 1) + " of instance " + entry.i + (image[3] ? ", " + image[3] : "");
        figure.appendChild(img);
      }
      var caption = make("figcaption");
      caption.appendChild(make("strong", "Image " + (k + 1)));
      if (image[3]) { caption.appendChild(make("span", " · " + image[3], "gold-mark")); }
      caption.appendChild(document.createTextNode(" "));
      if (image[1]) {
        var a = make("a", image[0]);
        a.href = image[1];
        a.rel = "noopener noreferrer";
        a.setAttribute("aria-label", image[0] + " at its source (COCO)");
        caption.appendChild(a);
      } else {
        caption.appendChild(make("code", image[0]));
      }
      figure.appendChild(caption);
      box.appendChild(figure);
    });
    node.appendChild(box);
  }

  function drawCaptions(entry, node) {
    var list = make("ol", null, "captions");
    entry.r.forEach(function (role, j) {
      var gold = role.indexOf("gold") === 0 || role === "also true";
      var li = make("li", null, gold ? "caption caption-gold" : "caption");
      var mark = gold ? "✓ " + role : role === "foil" ? "✗ foil" : role;
      li.appendChild(make("span", mark, "role"));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(entry.t ? make("span", entry.t[j]) : make("span", "(caption " + (j + 1) + " not published: license)", "sub-inline"));
      list.appendChild(li);
    });
    node.appendChild(list);
    if (entry.q) {
      var qs = make("ul", null, "questions");
      entry.q.forEach(function (q) { qs.appendChild(make("li", q[1] + ": gold " + q[2][q[3]])); });
      node.appendChild(qs);
    }
  }

  function scoreColumns(entry, rows) {
    var cols = [], seen = {};
    var gold = {};
    entry.g.forEach(function (c) { gold[c[0] + "," + c[1]] = true; });
    var single = entry.m.length <= 1;
    rows.forEach(function (r) {
      (r.scores && r.scores.s || []).forEach(function (row, i) {
        row.forEach(function (v, j) {
          var key = "s" + i + "," + j;
          if (v === null || seen[key]) { return; }
          seen[key] = true;
          var label = (single ? "" : "image " + (i + 1) + " · ") + "caption " + (j + 1) + (gold[i + "," + j] ? " ✓" : "");
          cols.push({ key: key, order: [0, i, j], label: label, get: function (s) { return s.s && s.s[i] ? s.s[i][j] : null; } });
        });
      });
      (r.scores && r.scores.x || []).forEach(function (row, i) {
        row.forEach(function (v, j) {
          var key = "x" + i + "," + j;
          if (v === null || j <= i || seen[key]) { return; }
          seen[key] = true;
          cols.push({ key: key, order: [1, i, j], label: "caption " + (i + 1) + " · caption " + (j + 1),
                      get: function (s) { return s.x && s.x[i] ? s.x[i][j] : null; } });
        });
      });
    });
    cols.sort(function (p, q) { return p.order[0] - q.order[0] || p.order[1] - q.order[1] || p.order[2] - q.order[2]; });
    return cols;
  }

  function drawScores(entry, rows, node) {
    var cols = scoreColumns(entry, rows);
    var answers = rows.some(function (r) { return r.scores && r.scores.a; });
    var wrap = make("div", null, "table-wrap short");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    var table = make("table", null, "instance-scores cards");
    var caption = make("caption", "Verdicts and stored scores on " + entry.i + (cols.length ? " (✓: a gold pair)" : ""));
    table.appendChild(caption);
    wrap.setAttribute("aria-label", caption.textContent);
    var head = make("tr");
    var labels = ["Model", "Verdict"].concat(cols.map(function (c) { return c.label; })).concat(answers ? ["Answers"] : []);
    labels.forEach(function (text) { head.appendChild(make("th", text)).setAttribute("scope", "col"); });
    table.appendChild(make("thead")).appendChild(head);
    var body = make("tbody");
    rows.forEach(function (r) {
      var tr = make("tr");
      var th = make("th", r.letter + ": " + r.model.name);
      th.setAttribute("scope", "row");
      tr.appendChild(th);
      tr.appendChild(make("td", verdictText(r.info, r.verdict), verdictClass(r.verdict)));
      cols.forEach(function (c) {
        var v = r.scores ? c.get(r.scores) : null;
        tr.appendChild(make("td", v === null || v === undefined ? "—" : String(v), "num"));
      });
      if (answers) {
        var a = r.scores && r.scores.a;
        tr.appendChild(make("td", a && entry.q ? a.map(function (choice, n) {
          var q = entry.q[n];
          return q ? q[1] + ": " + (choice === null ? "abstained" : q[2][choice]) : "";
        }).join("; ") : "—"));
      }
      // each cell keeps its column's name, which a phone shows beside it (the header row is hidden there)
      Array.prototype.forEach.call(tr.cells, function (cell, n) { if (n) { cell.setAttribute("data-label", labels[n]); } });
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    node.appendChild(wrap);
  }

  function drawInstance(benchId, info, picked, verdicts, pos) {
    var k = shardOf(info, pos);
    var entry = item(benchId, info, k, pos);
    if (!entry) { return null; }
    var node = make("li", null, "instance");
    node.id = "instance-" + pos;
    var head = make("p", null, "instance-id");
    head.appendChild(make("code", entry.i));
    head.appendChild(make("span", " " + info.categories[entry.c] + " ", "sub"));
    var link = make("a", "permalink");
    link.href = linkTo(entry.i);
    link.setAttribute("aria-label", "Permalink to instance " + entry.i);
    head.appendChild(link);
    node.appendChild(head);
    drawImages(entry, node);
    drawCaptions(entry, node);
    var rows = picked.map(function (m, n) {
      return { model: m, letter: LETTERS[n], info: info, verdict: verdicts[n] ? verdicts[n].charAt(pos) || "-" : "-",
               scores: scoresOf(benchId, m, k, pos) };
    });
    drawScores(entry, rows, node);
    return node;
  }

  // ---- the views ----
  function clear() {
    while (ui.list.firstChild) { ui.list.removeChild(ui.list.firstChild); }
    ui.more.hidden = true;
    ui.note.textContent = "";
  }

  function render() {
    clear();
    var picked = chosen();
    var benchId = ui.bench.value;
    var filter = fillFilters(picked);
    if (benchId) { writeState(); }
    if (!benchId) { ui.status.textContent = "No benchmark has per-instance results in this build."; return; }
    if (picked.length < 2 && !view.inst) { ui.status.textContent = "Pick two models."; return; }
    ui.status.textContent = "Loading…";
    var token = view.token = {};
    var index = data.instances[benchId];
    loadAll([index], function () {
      if (token !== view.token) { return; }
      var info = (window.vlcInstances || {})[benchId];
      if (!info) { ui.status.textContent = "Could not load " + index + "."; return; }
      if (!view.shards) { view.shards = info.budget.shardsPerView; }
      var lacking = picked.filter(function (m) { return !info.models[m.id] || info.models[m.id].over; });
      if (lacking.length) {
        ui.status.textContent = lacking.map(function (m) {
          return info.models[m.id] ? m.name + "'s verdicts on this benchmark are over the size budget and not published."
            : "No per-instance results for " + m.name + " on this benchmark.";
        }).join(" ");
        return;
      }
      var files = picked.map(function (m) { return info.models[m.id].verdicts; });
      loadAll(files, function () {
        if (token !== view.token) { return; }
        var verdicts = picked.map(function (m) { return ((window.vlcVerdicts || {})[benchId + "#" + m.id] || {}).verdicts; });
        if (failed(files).length || verdicts.indexOf(undefined) >= 0) {
          ui.status.textContent = "Could not load " + (failed(files).join(", ") || files.join(", ")) + ".";
          return;
        }
        if (view.inst) { showOne(benchId, info, picked, verdicts, token); } else { showList(benchId, info, picked, verdicts, filter, token); }
      });
    });
  }

  function keep(filter, verdicts, pos) {
    for (var n = 0; n < filter.right.length; n++) { if (RIGHT.indexOf(verdicts[filter.right[n]].charAt(pos)) < 0) { return false; } }
    for (n = 0; n < filter.wrong.length; n++) { if (WRONG.indexOf(verdicts[filter.wrong[n]].charAt(pos)) < 0) { return false; } }
    return true;
  }

  function showList(benchId, info, picked, verdicts, filter, token) {
    var hits = [];
    for (var pos = 0; pos < info.count; pos++) { if (keep(filter, verdicts, pos)) { hits.push(pos); } }
    ui.status.textContent = count(hits.length) + " of " + count(info.count) + " instances: " + filter.says + ".";
    var visible = [], shards = [];
    for (var n = 0; n < hits.length && visible.length < view.shown; n++) {
      var k = shardOf(info, hits[n]);
      if (shards.indexOf(k) < 0) { if (shards.length >= view.shards) { break; } shards.push(k); }
      visible.push(hits[n]);
    }
    var files = [];
    shards.forEach(function (k) { files = files.concat(shardFiles(info, picked, k)); });
    loadAll(files, function () {
      if (token !== view.token) { return; }
      var notes = [];
      visible.forEach(function (pos) {
        var node = drawInstance(benchId, info, picked, verdicts, pos);
        if (node) { ui.list.appendChild(node); }
      });
      shards.forEach(function (k) {
        if (!info.shards[k].file) { notes.push(overBudget(info, k)); }
        picked.forEach(function (m) {
          if (!info.models[m.id].scores[k]) { notes.push(m.name + "'s scores on " + overBudget(info, k).replace("Instances", "instances")); }
        });
      });
      notes.push(explain(info, visible.length, hits.length));
      ui.note.textContent = notes.join(" ");
      ui.more.hidden = visible.length >= hits.length;
    });
  }

  function explain(info, shown, total) {
    var ties = info.tieRule ? " (ties: " + info.tieRule + ")" : "";
    return "Showing " + count(shown) + " of " + count(total) + ". Verdicts are the per-instance " + info.metricTitle + ties +
      " from the stored scores; scores are shown to 5 significant digits (a difference of two shown values may differ" +
      " from the exact one in its last digit; each model's scores download has them as stored). The page fetches instances as you browse, in files of up to " +
      count(info.budget.shardInstances) + " instances, at most " + info.budget.shardsPerView + " files per view.";
  }

  function showOne(benchId, info, picked, verdicts, token) {
    var prefixes = info.categories.filter(function (c) { return view.inst.indexOf(c + "/") === 0; });
    var candidates = [];
    prefixes.forEach(function (c) {
      var span = info.categoryShards[c];
      for (var k = span[0]; k <= span[1]; k++) { if (candidates.indexOf(k) < 0) { candidates.push(k); } }
    });
    if (!candidates.length) { candidates = info.shards.map(function (s, k) { return k; }); }
    var back = make("a", "Back to the list");
    back.href = linkTo("");
    var next = function (n) {
      if (n >= candidates.length) {
        ui.status.textContent = "No instance “" + view.inst + "” in this benchmark's published data.";
        ui.note.appendChild(back);
        return;
      }
      var k = candidates[n];
      if (!info.shards[k].file) { next(n + 1); return; }
      loadAll([info.shards[k].file], function () {
        if (token !== view.token) { return; }
        var shard = window.vlcShards[benchId + "#" + k];
        var found = -1;
        for (var i = 0; shard && i < shard.items.length; i++) { if (shard.items[i].i === view.inst) { found = shard.start + i; break; } }
        if (found < 0) { next(n + 1); return; }
        loadAll(shardFiles(info, picked, k), function () {
          if (token !== view.token) { return; }
          ui.list.appendChild(drawInstance(benchId, info, picked, verdicts, found));
          ui.status.textContent = "Instance " + view.inst + " (" + count(found + 1) + " of " + count(info.count) + ").";
          ui.note.appendChild(back);
          if (view.fresh) { ui.list.scrollIntoView(); }
          view.fresh = false;
        });
      });
    };
    next(0);
  }

  // ---- wiring ----
  Object.keys(data.instances).forEach(function (benchId) {
    var bench = data.benchmarks.filter(function (b) { return b.id === benchId; })[0];
    ui.bench.appendChild(make("option", bench ? bench.title : benchId)).value = benchId;
  });
  var missing = Object.keys(data.instancesMissing || {});
  if (missing.length && ui.missing) {
    ui.missing.textContent = "Not in the browser: " + missing.map(function (benchId) {
      var bench = data.benchmarks.filter(function (b) { return b.id === benchId; })[0];
      return (bench ? bench.title : benchId) + " (" + data.instancesMissing[benchId] + ")";
    }).join("; ") + ".";
  }
  function reset() { view.shown = PAGE; view.shards = 0; }
  function go() { if (!opener || opener.open) { render(); } }  // no shard is fetched while the browser is closed
  if (opener) { opener.addEventListener("toggle", function () { if (opener.open) { reset(); render(); } }); }
  ui.bench.addEventListener("change", function () { reset(); view.inst = ""; go(); });
  ui.which.addEventListener("change", function () { reset(); view.inst = ""; go(); });
  ui.more.addEventListener("click", function () {
    var info = (window.vlcInstances || {})[ui.bench.value];
    view.shown += PAGE;
    view.shards += info ? info.budget.shardsPerView : 1;
    render();
  });
  picks.forEach(function (select) { select.addEventListener("change", function () { reset(); go(); }); });
  window.addEventListener("hashchange", function () { readState(); reset(); go(); });
  readState();
  go();
}());
