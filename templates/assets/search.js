// Site search with Pagefind's JavaScript API. The index loaded is the one of this page's language
// (Pagefind picks it from <html lang>), so French pages only find French pages.
(function () {
  "use strict";
  var form = document.querySelector(".search-form");
  if (!form) return;
  var input = form.querySelector("input");
  var status = document.querySelector(".search-status");
  var list = document.querySelector(".search-results");
  var pagefind = null;
  var latest = 0;

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

  function show(results) {
    list.textContent = "";
    results.forEach(function (data) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = data.url;
      link.textContent = (data.meta && data.meta.title) || data.url;
      var excerpt = document.createElement("p");
      excerpt.innerHTML = data.excerpt; // Pagefind escapes the text; only <mark> is added
      item.appendChild(link);
      item.appendChild(excerpt);
      list.appendChild(item);
    });
  }

  function search() {
    var query = input.value.trim();
    var ticket = ++latest;
    if (!query) { list.textContent = ""; status.textContent = ""; return; }
    load().then(function (module) {
      return module.search(query);
    }).then(function (response) {
      return Promise.all(response.results.slice(0, 20).map(function (r) { return r.data(); }));
    }).then(function (results) {
      if (ticket !== latest) return;
      show(results);
      status.textContent = results.length
        ? form.getAttribute("data-results-label").replace("{count}", results.length)
        : form.getAttribute("data-no-results");
    });
  }

  form.addEventListener("submit", function (event) { event.preventDefault(); search(); });
  input.addEventListener("input", search);
  var initial = new URLSearchParams(window.location.search).get("q");
  if (initial) { input.value = initial; search(); }
})();
