/* tailmem run site: filters and search over every page of an item list (the rows are in items.js, loaded as a
   plain script so the page works from file:// with no server), and opening a folded store file named in the URL. */
(function () {
  "use strict";

  function parseHash() {
    var out = {};
    var text = window.location.hash.replace(/^#/, "");
    if (!text) { return out; }
    text.split("&").forEach(function (part) {
      var eq = part.indexOf("=");
      if (eq > 0) { out[decodeURIComponent(part.slice(0, eq))] = decodeURIComponent(part.slice(eq + 1)); }
    });
    return out;
  }

  function writeHash(state) {
    var parts = [];
    Object.keys(state).forEach(function (k) {
      if (state[k]) { parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(state[k])); }
    });
    var next = parts.length ? "#" + parts.join("&") : window.location.pathname + window.location.search;
    if (window.history && window.history.replaceState) { window.history.replaceState(null, "", next); }
  }

  function cell(value) {
    if (value === null || value === undefined) { return "–"; }
    if (typeof value === "number" && !Number.isInteger(value)) { return value.toFixed(3); }
    if (typeof value === "boolean") { return value ? "yes" : "no"; }
    return String(value);
  }

  window.tailmemList = function (linkCol) {
    var form = document.getElementById("filters");
    if (!form) { return; }
    var items = window.SITE_ITEMS || [];
    var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-key]"));
    var search = document.getElementById("q");
    var staticPart = document.getElementById("static-part");
    var dynamic = document.getElementById("dynamic");
    var body = dynamic.querySelector("tbody");
    var count = document.getElementById("count");
    var initialCount = count.textContent;
    var LIMIT = 500;

    function state() {
      var s = {};
      selects.forEach(function (el) { s[el.getAttribute("data-key")] = el.value; });
      s.q = search.value.trim();
      return s;
    }

    function apply() {
      var s = state();
      writeHash(s);
      var active = Object.keys(s).some(function (k) { return s[k]; });
      if (!active) {
        staticPart.hidden = false;
        dynamic.hidden = true;
        count.textContent = initialCount;
        return;
      }
      var words = s.q.toLowerCase().split(/\s+/).filter(Boolean);
      var hits = items.filter(function (it) {
        for (var i = 0; i < selects.length; i++) {
          var key = selects[i].getAttribute("data-key");
          if (s[key] && String(it.f[key]) !== s[key]) { return false; }
        }
        return words.every(function (w) { return it.t.indexOf(w) >= 0; });
      });
      while (body.firstChild) { body.removeChild(body.firstChild); }
      hits.slice(0, LIMIT).forEach(function (it) {
        var tr = document.createElement("tr");
        it.c.forEach(function (value, i) {
          var td = document.createElement("td");
          if (i === linkCol) {
            var a = document.createElement("a");
            a.href = it.h;
            a.textContent = cell(value);
            td.appendChild(a);
          } else {
            td.textContent = cell(value);
          }
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      staticPart.hidden = true;
      dynamic.hidden = false;
      count.textContent = hits.length + " of " + items.length + " rows match" +
        (hits.length > LIMIT ? " (the first " + LIMIT + " shown; narrow the filters)" : "") + ".";
    }

    var start = parseHash();
    selects.forEach(function (el) {
      var want = start[el.getAttribute("data-key")];
      if (want) {
        if (!Array.prototype.some.call(el.options, function (o) { return o.value === want; })) {
          var opt = document.createElement("option");
          opt.textContent = want;
          el.appendChild(opt);
        }
        el.value = want;
      }
      el.addEventListener("change", apply);
    });
    if (start.q) { search.value = start.q; }
    search.addEventListener("input", apply);
    if (Object.keys(start).length) { apply(); }
  };

  window.tailmemOpenAnchor = function () {
    function open() {
      var id = window.location.hash.replace(/^#/, "");
      var el = id ? document.getElementById(decodeURIComponent(id)) : null;
      if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
    }
    window.addEventListener("hashchange", open);
    open();
  };
}());
