// Site search with Pagefind's JavaScript API. The index loaded is the one of this page's language
// (Pagefind picks it from <html lang>), so French pages only find French pages.
// - The count is Pagefind's own: every page that matches, shown ten at a time ("More results").
// - The 190 comparisons of two GPUs per language would bury the other pages: they are counted and
//   listed apart, after them (each page carries its type as a Pagefind filter, data-pagefind-filter).
// - The query lives in the address (?q=): a result's Back button, a shared link or a reload show
//   the same results. The header's search box is a plain form that comes here with ?q=.
(function () {
  "use strict";
  var form = document.querySelector(".search-form");
  if (!form) return;
  var PAGE = 10;
  var input = form.querySelector("input");
  var status = document.querySelector(".search-status");
  var groups = {
    pages: document.querySelector('.search-group[data-group="pages"]'),
    comparison: document.querySelector('.search-group[data-group="comparison"]')
  };
  var types = JSON.parse(form.getAttribute("data-types"));
  var plural = new Intl.PluralRules(document.documentElement.lang || undefined);
  var pagefind = null;
  var latest = 0;
  var timer = null;

  function label(attribute, count) {
    var forms = JSON.parse(form.getAttribute(attribute));
    return (forms[plural.select(count)] || forms.other).replace("{count}", count.toLocaleString(document.documentElement.lang));
  }

  function load() {
    if (!pagefind) {
      pagefind = import(new URL(form.getAttribute("data-pagefind"), document.baseURI).href)
        .then(function (module) {
          // Rank by where a word appears (titles weigh more), not by how often: comparison pages
          // repeat GPU names in every row and would otherwise bury the GPU's own page.
          return Promise.resolve(module.options({ ranking: { termFrequency: 0.0 } })).then(function () {
            return module;
          });
        });
    }
    return pagefind;
  }

  function item(data) {
    var li = document.createElement("li");
    var link = document.createElement("a");
    link.href = data.url;
    link.textContent = (data.meta && data.meta.title) || data.url;
    li.appendChild(link);
    var type = data.meta && data.meta.type;
    if (type && types[type]) {
      var badge = document.createElement("span");
      badge.className = "search-type";
      badge.textContent = types[type];
      li.appendChild(document.createTextNode(" "));
      li.appendChild(badge);
    }
    var excerpt = document.createElement("p");
    excerpt.innerHTML = data.excerpt; // Pagefind escapes the text; only <mark> is added
    li.appendChild(excerpt);
    return li;
  }

  // Show a group's results PAGE at a time; its "More results" button shows the next ones.
  function fill(group, results, ticket) {
    var list = group.querySelector(".search-results");
    var more = group.querySelector(".search-more");
    var shown = 0;
    list.textContent = "";
    group.hidden = results.length === 0;
    function next() {
      var slice = results.slice(shown, shown + PAGE);
      return Promise.all(slice.map(function (result) { return result.data(); })).then(function (data) {
        if (ticket !== latest) return;
        var first = null;
        data.forEach(function (entry) {
          var li = item(entry);
          list.appendChild(li);
          first = first || li;
        });
        shown += slice.length;
        more.hidden = shown >= results.length;
        return first;
      });
    }
    more.onclick = function () {
      next().then(function (first) { if (first) first.querySelector("a").focus(); });
    };
    return next();
  }

  function remember(query) {
    var url = new URL(window.location.href);
    if (query) url.searchParams.set("q", query); else url.searchParams.delete("q");
    if (url.href !== window.location.href) history.replaceState(null, "", url);
    // The other languages' search pages search the same words: switching language keeps the query.
    document.querySelectorAll("a[hreflang]").forEach(function (link) {
      var target = new URL(link.getAttribute("href"), window.location.href);
      if (query) target.searchParams.set("q", query); else target.searchParams.delete("q");
      link.href = target.pathname + target.search + target.hash;
    });
  }

  function search() {
    var query = input.value.trim();
    var ticket = ++latest;
    remember(query);
    if (!query) {
      status.textContent = "";
      groups.pages.hidden = groups.comparison.hidden = true;
      return Promise.resolve();
    }
    return load().then(function (module) {
      return Promise.all([module.search(query), module.search(query, { filters: { type: "comparison" } })]);
    }).then(function (found) {
      if (ticket !== latest) return;
      var all = found[0].results;
      var comparisonIds = {};
      found[1].results.forEach(function (result) { comparisonIds[result.id] = true; });
      var pages = all.filter(function (result) { return !comparisonIds[result.id]; });
      var comparisons = all.filter(function (result) { return comparisonIds[result.id]; });
      status.textContent = all.length ? label("data-results-label", all.length) : form.getAttribute("data-no-results");
      groups.comparison.querySelector(".search-group-count").textContent =
        comparisons.length ? label("data-comparisons-label", comparisons.length) : "";
      return Promise.all([fill(groups.pages, pages, ticket), fill(groups.comparison, comparisons, ticket)]);
    });
  }

  form.hidden = false;
  form.addEventListener("submit", function (event) { event.preventDefault(); clearTimeout(timer); search(); });
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(search, 250); });
  var initial = new URLSearchParams(window.location.search).get("q");
  if (initial) { input.value = initial; search(); } else { input.focus(); }
  // Coming back to this page from a result (the browser's page cache): the results are as they were.
})();
