// The serving planner, as progressive enhancement: without this script the page shows its static
// tables (the three workloads); with it, the reader's workload in, every answer out.
// It holds no formula of its own. The page carries a program (gpuguide/figures/planner.py,
// compiled by gpuguide/figures/expression.py): a list of instructions over the inputs, which this
// script evaluates with exact fractions of BigInts, as the site's build evaluates them with
// Python's Fractions. The words are the page's UI strings; numbers are written as Babel writes
// them for the language (separators and unit affixes read off Babel by the build).
// The inputs live in the address (?ctx=32768&users=10&w=fp8&kv=fp8&tps=20): Back, bookmarks and
// shared links land on the same answer.
(function () {
  "use strict";

  var holder = document.getElementById("planner-data");
  var section = document.querySelector("[data-planner]");
  if (!holder || !section || typeof BigInt !== "function") return;
  var data = JSON.parse(holder.textContent);
  // The model whose program runs: the page's own, or (on a use-case page) the one the reader chose.
  var model = data, program = data.program;

  // --- Exact fractions: [numerator, denominator], denominator > 0 ----------------------------------
  var ZERO = BigInt(0), ONE = BigInt(1), TEN = BigInt(10), LARGE = BigInt(2) ** BigInt(256);

  function gcd(a, b) {
    if (a < ZERO) a = -a;
    while (b) { var t = a % b; a = b; b = t; }
    return a;
  }
  function make(n, d) {
    if (d < ZERO) { n = -n; d = -d; }
    if (d > LARGE || n > LARGE || -n > LARGE) { var g = gcd(n, d); if (g > ONE) { n /= g; d /= g; } }
    return [n, d];
  }
  function num(text) { var parts = text.split("/"); return make(BigInt(parts[0]), BigInt(parts[1])); }
  function cmp(a, b) { var l = a[0] * b[1], r = b[0] * a[1]; return l < r ? -1 : l > r ? 1 : 0; }
  function floorOf(a) {
    var q = a[0] / a[1];
    if (a[0] % a[1] !== ZERO && a[0] < ZERO) q -= ONE;
    return q;
  }
  function ceilOf(a) { return -floorOf([-a[0], a[1]]); }
  function exponent(a) {  // ⌊log10 a⌋ of a positive fraction
    var e = a[0].toString().length - a[1].toString().length;
    if (cmp(pow10(e), a) > 0) e -= 1;
    return e;
  }
  function pow10(e) { return e >= 0 ? [TEN ** BigInt(e), ONE] : [ONE, TEN ** BigInt(-e)]; }
  function significant(a, digits, direction) {
    if (a[0] <= ZERO) return [ZERO, ONE];
    var e = exponent(a) - Number(digits[0] / digits[1]) + 1, p = pow10(e);
    var scaled = make(a[0] * p[1], a[1] * p[0]);
    var whole = direction[0] > ZERO ? ceilOf(scaled) : floorOf(scaled);
    return make(whole * p[0], p[1]);
  }

  var ARITHMETIC = {
    add: function (a, b) { return make(a[0] * b[1] + b[0] * a[1], a[1] * b[1]); },
    sub: function (a, b) { return make(a[0] * b[1] - b[0] * a[1], a[1] * b[1]); },
    mul: function (a, b) { return make(a[0] * b[0], a[1] * b[1]); },
    div: function (a, b) { return make(a[0] * b[1], a[1] * b[0]); },
    min: function (a, b) { return cmp(a, b) <= 0 ? a : b; },
    max: function (a, b) { return cmp(a, b) >= 0 ? a : b; },
    le: function (a, b) { return cmp(a, b) <= 0; },
    lt: function (a, b) { return cmp(a, b) < 0; },
    not: function (a) { return !a; },
    floor: function (a) { return [floorOf(a), ONE]; },
    ceil: function (a) { return [ceilOf(a), ONE]; },
    sig: significant,
  };

  // Each value computed once, and only when needed: a select computes the option it picks, a
  // "first" its conditions up to the first true one, "and"/"or" until the answer is known. A
  // model's program runs once for each GPU type: what reads none of a GPU type's figures (the
  // memory a configuration holds, the bytes a step reads) is computed once for all of them
  // (``shared``: its values, and which instructions read a GPU type's figures).
  function evaluator(inputs, shared) {
    var memo = new Array(program.instructions.length), done = new Uint8Array(program.instructions.length);
    function value(index) {
      if (done[index]) return memo[index];
      if (shared && !shared.readsGpu[index] && shared.done[index]) return shared.memo[index];
      var instruction = program.instructions[index], op = instruction[0], result, i;
      if (op === "n") result = num(instruction[1]);
      else if (op === "v") {
        var given = inputs[instruction[1]];  // an integer, a fraction as "72/25", null when not published
        result = given === null ? null : typeof given === "string" ? num(given) : [BigInt(given), ONE];
      }
      else if (op === "s") result = instruction[1];
      else if (op === "b") result = instruction[1] === 1;
      else if (op === "z") result = null;
      else if (op === "select") {
        var chosen = value(instruction[1]);
        result = value(instruction[2 + Number(chosen[0] / chosen[1])]);
      } else if (op === "first") {
        result = [BigInt(-1), ONE];
        for (i = 1; i < instruction.length; i++) if (value(instruction[i])) { result = [BigInt(i - 1), ONE]; break; }
      } else if (op === "and") {
        result = true;
        for (i = 1; i < instruction.length; i++) if (!value(instruction[i])) { result = false; break; }
      } else if (op === "or") {
        result = false;
        for (i = 1; i < instruction.length; i++) if (value(instruction[i])) { result = true; break; }
      } else {
        var args = [], missing = false;
        for (i = 1; i < instruction.length; i++) {
          args.push(value(instruction[i]));
          if (args[i - 1] === null) missing = true;
        }
        // A figure computed from a missing one is missing; a comparison with one does not hold.
        if (missing) result = op === "le" || op === "lt" ? false : op === "not" ? true : null;
        else result = ARITHMETIC[op].apply(null, args);
      }
      memo[index] = result; done[index] = 1;
      if (shared && !shared.readsGpu[index]) { shared.memo[index] = result; shared.done[index] = 1; }
      return result;
    }
    return value;
  }

  // Which of the program's instructions read a GPU type's figures (an input that is not the
  // workload's), directly or through their arguments, which come before them.
  function gpuReaders(workload) {
    var flags = new Uint8Array(program.instructions.length);
    program.instructions.forEach(function (instruction, index) {
      var op = instruction[0];
      if (op === "v") flags[index] = workload.hasOwnProperty(instruction[1]) ? 0 : 1;
      else if (op !== "n" && op !== "s" && op !== "b" && op !== "z") {
        for (var i = 1; i < instruction.length; i++) if (flags[instruction[i]]) { flags[index] = 1; break; }
      }
    });
    return flags;
  }

  function read(item, value) {
    if (Array.isArray(item)) return item.map(function (part) { return read(part, value); });
    if (item !== null && typeof item === "object") {
      var out = {};
      Object.keys(item).forEach(function (key) { out[key] = read(item[key], value); });
      return out;
    }
    return value(item);
  }

  // --- Words and numbers, as the pages write them -------------------------------------------------
  var plural = new Intl.PluralRules(data.lang);

  function text(key, values) {
    var template = data.texts[key];
    if (typeof template !== "string") {
      var count = values.count;
      template = template[plural.select(Number(count[0] / count[1]))] || template.other;
    }
    return template.replace(/\{\{|\}\}|\{(\w+)\}/g, function (match, name) {
      if (match === "{{") return "{";
      if (match === "}}") return "}";
      var v = values[name];
      return Array.isArray(v) ? decimal(v, 0, null) : String(v);
    });
  }

  // A fraction as decimal digits (it is rounded already: to units, tenths or three significant
  // digits), at least minFraction decimals, at most maxFraction (half to even, as Babel rounds).
  function decimal(a, minFraction, maxFraction) {
    var negative = a[0] < ZERO, n = negative ? -a[0] : a[0], d = a[1], places = 0;
    while (n % d !== ZERO && places < 30) { n *= TEN; places += 1; }
    var digits = (n / d).toString();
    if (maxFraction !== null && places > maxFraction) {
      var cut = TEN ** BigInt(places - maxFraction), whole = (n / d) / cut, rest = (n / d) % cut, half = cut / BigInt(2);
      if (rest > half || (rest === half && whole % BigInt(2) === ONE)) whole += ONE;
      digits = whole.toString(); places = maxFraction;
    }
    while (digits.length <= places) digits = "0" + digits;
    var integer = digits.slice(0, digits.length - places), fraction = digits.slice(digits.length - places);
    fraction = fraction.replace(/0+$/, "");
    while (fraction.length < minFraction) fraction += "0";
    var grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, data.number.group);
    return (negative ? "-" : "") + grouped + (fraction ? data.number.decimal + fraction : "");
  }
  function gb(a) { return data.number.gb[0] + decimal(a, 0, null) + data.number.gb[1]; }
  function usd(a) { return data.number.usd[0] + decimal(a, 2, null) + data.number.usd[1]; }
  function whole(a) { return decimal(a, 0, null); }
  function plain(a) { return (a[0] / a[1]).toString(); }  // a whole number as a command line writes it

  // --- Inputs -------------------------------------------------------------------------------------
  var form = section.querySelector("form");
  var fields = { m: form.elements.m, ctx: form.elements.ctx, users: form.elements.users, w: form.elements.w,
                 kv: form.elements.kv, tps: form.elements.tps };
  var KV = ["bf16", "fp8"];

  function clampInt(value, low, high, fallback) {
    var n = parseInt(value, 10);
    if (!isFinite(n) || String(n) !== String(value).trim()) return fallback;
    return Math.min(Math.max(n, low), high);
  }

  // A state from raw values (the address's or the form's), each brought within the model's range.
  function settle(raw) {
    var inputs = model.inputs, d = inputs.defaults;
    var state = {
      ctx: clampInt(raw.ctx || "", 1, inputs.maxContext, d.ctx),
      users: clampInt(raw.users || "", 1, inputs.maxUsers, d.users),
      kv: KV.indexOf(raw.kv) >= 0 ? raw.kv : d.kv,
      tps: raw.tps ? clampInt(raw.tps, 0, inputs.maxTarget || 0, 0) : 0,
    };
    if (inputs.formats.length) {
      var keys = inputs.formats.map(function (f) { return f.key; });
      state.w = keys.indexOf(raw.w) >= 0 ? raw.w : d.w;
    }
    if (data.kind === "choose") state.m = model.modelId;
    return state;
  }

  function addressValues() {
    var params = new URLSearchParams(window.location.search), raw = {};
    ["m", "ctx", "users", "w", "kv", "tps"].forEach(function (name) { raw[name] = params.get(name); });
    return raw;
  }

  function formValues() {
    var raw = {};
    Object.keys(fields).forEach(function (name) { if (fields[name]) raw[name] = fields[name].value; });
    return raw;
  }

  function toForm(state) {
    if (fields.m) fields.m.value = state.m;
    fields.ctx.value = state.ctx;
    fields.ctx.max = model.inputs.maxContext;
    fields.users.value = state.users;
    fields.kv.value = state.kv;
    if (fields.w) fields.w.value = state.w;
    if (fields.tps) fields.tps.value = state.tps ? state.tps : "";
  }

  function address(state) {
    var params = new URLSearchParams(window.location.search);
    if (state.m !== undefined) params.set("m", state.m);
    params.set("ctx", state.ctx);
    params.set("users", state.users);
    if (state.w !== undefined) params.set("w", state.w);
    params.set("kv", state.kv);
    if (state.tps) params.set("tps", state.tps); else params.delete("tps");
    return window.location.pathname + "?" + params.toString() + window.location.hash;
  }

  // --- Another model (a use-case page) -------------------------------------------------------------
  // Its program is read off its own page, where the build wrote it: no model's program twice.
  var loaded = {}, wanted = null;
  if (data.kind === "choose") loaded[data.modelId] = data;

  function choice(id) {
    for (var i = 0; i < (data.models || []).length; i++) if (data.models[i].id === id) return data.models[i];
    return null;
  }

  function load(id) {
    if (loaded[id]) return Promise.resolve(loaded[id]);
    var url = new URL(choice(id).url, window.location.href);
    return fetch(url.href).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      return response.text();
    }).then(function (html) {
      var found = JSON.parse(new DOMParser().parseFromString(html, "text/html").getElementById("planner-data").textContent);
      found.rows.forEach(function (row) { if (row.url) row.url = new URL(row.url, url).pathname; });
      found.modelId = id;
      loaded[id] = found;
      return found;
    });
  }

  function useModel(found) {
    model = found; program = found.program;
    if (fields.w) {
      fields.w.replaceChildren.apply(fields.w, found.inputs.formats.map(function (f) { return new Option(f.label, f.key); }));
    }
    var link = section.querySelector("[data-planner-model-link]");
    if (link) {
      link.href = choice(found.modelId).url;
      link.textContent = text("planner_model_page", { model: found.model });
      link.parentNode.hidden = false;
    }
  }

  // Run ``then`` with the model ``id`` in use (at once, but for a model still to load).
  function withModel(id, then) {
    if (data.kind !== "choose" || !choice(id)) { then(); return; }
    wanted = id;
    if (!loaded[id]) {
      section.setAttribute("aria-busy", "true");
      answer.textContent = text("planner_loading", { model: choice(id).name });
    }
    load(id).then(function (found) {
      if (wanted !== id) return;  // the reader chose again meanwhile
      section.removeAttribute("aria-busy");
      useModel(found);
      then();
    }, function () {
      if (wanted !== id) return;
      section.removeAttribute("aria-busy");
      answer.textContent = text("planner_load_failed", { model: choice(id).name });
    });
  }

  // --- The answer ---------------------------------------------------------------------------------
  var body = section.querySelector("tbody");
  var answer = section.querySelector("[data-planner-answer]");
  var command = section.querySelector("[data-planner-command]");
  var launch = section.querySelector("[data-planner-launch]");
  var REASONS = ["memory", "fast_link", "speed", "no_offer"];

  // A model's program answers for one GPU type, run with each one's figures; a GPU page's, for
  // every model, run with that GPU's.
  function evaluate(state) {
    var formats = model.inputs.formats.map(function (f) { return f.key; });
    var workload = { context: state.ctx, users: state.users, kv: KV.indexOf(state.kv), target: state.tps || 0,
                     weights: formats.length ? formats.indexOf(state.w) : 0 };
    if (data.kind === "gpu") return read(program.outputs, evaluator(Object.assign({}, workload, data.figures)));
    if (!program.readsGpu) program.readsGpu = gpuReaders(workload);
    var shared = { readsGpu: program.readsGpu, memo: [], done: new Uint8Array(program.instructions.length) };
    return { rows: model.rows.map(function (row) {
      return read(program.outputs, evaluator(Object.assign({}, workload, row.figures), shared));
    }) };
  }

  function compareKeys(a, b) {
    for (var i = 0; i < a.length; i++) { var c = cmp(a[i], b[i]); if (c) return c; }
    return 0;
  }

  function cell(tag, content, className) {
    var element = document.createElement(tag);
    if (className) element.className = className;
    if (typeof content === "string") element.textContent = content; else element.appendChild(content);
    return element;
  }

  function link(name, url) {
    if (!url) return document.createTextNode(name);
    var a = document.createElement("a");
    a.href = url; a.textContent = name;
    return a;
  }

  function reasonOf(row) { var code = Number(row.code[0] / row.code[1]); return code < 0 ? null : REASONS[code]; }

  function modelRows(result, state) {
    var rows = result.rows.map(function (row, index) { row.meta = model.rows[index]; return row; });
    rows.sort(function (a, b) { return compareKeys(a.key, b.key); });
    var fragment = document.createDocumentFragment(), best = null;
    rows.forEach(function (row) {
      var reason = reasonOf(row), meta = row.meta, tr = document.createElement("tr");
      var fits = reason !== "memory", bounds = fits && row.user_tokens_per_second !== null;
      var missing = fits ? text("not_published", {}) : text("not_held", {});
      var name = cell("th", link(meta.name, meta.url));
      name.scope = "row";
      tr.setAttribute("data-gpu", meta.id);
      tr.setAttribute("data-reason", reason || "rent");
      if (fits && !row.native) {
        name.firstChild && (name.textContent = "");
        var main = cell("span", link(meta.name, meta.url), "cell-main");
        name.appendChild(main);
        name.appendChild(cell("span", text("plan_weight_only", {}), "cell-detail"));
      }
      tr.appendChild(name);
      tr.appendChild(cell("td", fits ? whole(row.count) : text("more_than_gpus", { count: [BigInt(8), ONE] }), "number"));
      tr.appendChild(cell("td", text("memory_of_budget", { memory: gb(row.used_gb), budget: gb(row.budget_gb) }), "number"));
      tr.appendChild(cell("td", bounds ? text("tokens_per_second_upper_bound", { value: whole(row.user_tokens_per_second) }) : missing, "number"));
      tr.appendChild(cell("td", bounds ? text("tokens_per_second_upper_bound", { value: whole(row.total_tokens_per_second) }) : missing, "number"));
      tr.appendChild(cell("td", bounds ? (row.first_token_seconds === null ? text("not_published", {})
        : text("seconds_lower_bound", { value: decimal(row.first_token_seconds, 0, 3) })) : missing, "number"));
      var priced = fits && row.price !== null;
      // Without an offer, a bid for the GPU (as the pages print it); nothing to price when nothing fits.
      tr.appendChild(cell("td", !fits ? text("not_held", {}) : priced ? text("price_per_hour", { price: usd(row.price) })
        : meta.bid ? link(text("no_offer_bid", {}), meta.bid) : text("no_offer", {}), "number"));
      tr.appendChild(cell("td", bounds ? (priced && row.usd_per_million_tokens !== null
        ? text("usd_lower_bound", { price: usd(row.usd_per_million_tokens) }) : text("no_offer", {})) : missing, "number"));
      var status = reason === null ? text("plan_rent", {})
        : reason === "fast_link" ? (meta.link === 1 ? text("plan_no_fast_link", { count: row.count })
          : text("plan_fast_link", { count: row.count, link: meta.link })) : text("plan_" + reason, {});
      tr.appendChild(cell("td", status));
      fragment.appendChild(tr);
      if (reason === null && best === null) best = row;
    });
    body.replaceChildren(fragment);
    if (best) {
      var configuration = text("plan_configuration", { count: best.count, gpu: best.meta.name, price: usd(best.price),
        per_million: best.usd_per_million_tokens !== null ? text("usd_lower_bound", { price: usd(best.usd_per_million_tokens) }) : text("no_offer", {}) });
      answer.textContent = text("planner_cheapest", { model: model.model, configuration: configuration });
      var weights = model.inputs.formats.filter(function (f) { return f.key === state.w; })[0];
      var parts = ["vllm serve " + weights.model].concat(best.settings.filter(function (pair) {
        return pair[1] !== null;
      }).map(function (pair) {
        return pair[0] + " " + (Array.isArray(pair[1]) ? plain(pair[1]) : pair[1]);
      }));
      // Each argument with its value on one line, as the pages print a command.
      command.replaceChildren.apply(command, parts.reduce(function (nodes, part, index) {
        if (index) nodes.push(document.createTextNode(" "));
        nodes.push(index ? cell("span", part, "launch-argument") : document.createTextNode(part));
        return nodes;
      }, []));
      launch.hidden = false;
    } else {
      answer.textContent = text("planner_no_rental", { model: model.model });
      launch.hidden = true;
    }
  }

  function gpuRows(result) {
    var fragment = document.createDocumentFragment(), served = 0;
    result.rows.forEach(function (row, index) {
      var meta = model.rows[index], reason = reasonOf(row), tr = document.createElement("tr");
      var fits = reason === null || reason === "no_offer" || reason === "speed";
      tr.setAttribute("data-model", meta.id);
      tr.setAttribute("data-reason", reason || "rent");
      var name = cell("th", "");
      name.scope = "row";
      name.appendChild(cell("span", link(meta.name, meta.url), "cell-main"));
      name.appendChild(cell("span", meta.format, "cell-detail"));
      tr.appendChild(name);
      var count = reason === "memory" ? text("plan_memory", {})
        : reason === "fast_link" ? (data.link === 1 ? text("plan_no_fast_link", { count: row.count })
          : text("plan_fast_link", { count: row.count, link: data.link })) : whole(row.count);
      tr.appendChild(cell("td", count, "number"));
      tr.appendChild(cell("td", fits && row.user_tokens_per_second !== null
        ? text("tokens_per_second_upper_bound", { value: whole(row.user_tokens_per_second) }) : text("not_held", {}), "number"));
      tr.appendChild(cell("td", fits && row.user_tokens_per_second !== null ? (row.usd_per_million_tokens !== null
        ? text("usd_lower_bound", { price: usd(row.usd_per_million_tokens) }) : text("no_offer", {})) : text("not_held", {}), "number"));
      fragment.appendChild(tr);
      if (fits) served += 1;
    });
    body.replaceChildren(fragment);
    answer.textContent = served ? text("planner_served", { count: [BigInt(served), ONE], gpu: data.gpu })
      : text("planner_not_served", { gpu: data.gpu });
  }

  function show(state) {
    var result = evaluate(state);
    if (data.kind === "gpu") gpuRows(result); else modelRows(result, state);
    if (launch && data.kind === "gpu") launch.hidden = true;
    section.setAttribute("data-state", JSON.stringify(state));
    section.dispatchEvent(new CustomEvent("planner-shown"));  // for what waits on an answer (tests, benchmark)
  }

  // A settled state: in the form, answered, and a step of the history when it is a new one.
  function commit(state, push) {
    toForm(state);
    show(state);
    var next = address(state);
    if (push && next !== window.location.pathname + window.location.search + window.location.hash) {
      // Written once the answer is on screen: the history is not what the reader waits for.
      window.setTimeout(function () { window.history.pushState(state, "", next); }, 0);
    }
  }

  function fromAddress() {
    var raw = addressValues();
    withModel(raw.m || data.modelId, function () { commit(settle(raw), false); });  // the page's own model by default
  }

  section.hidden = false;
  document.querySelectorAll("[data-planner-fallback]").forEach(function (element) { element.hidden = true; });
  fromAddress();

  form.addEventListener("submit", function (event) { event.preventDefault(); });
  // Typing updates the answer; a settled change (a choice, or leaving a field) makes a step of the
  // history, so Back returns to the previous answer.
  form.addEventListener("input", function (event) {
    if (event.target === fields.m || (fields.m && fields.m.value !== model.modelId)) return;
    show(settle(formValues()));
  });
  form.addEventListener("change", function () {
    var raw = formValues();
    if (fields.m && raw.m !== model.modelId) delete raw.w;  // another model starts in its published format
    withModel(raw.m, function () { commit(settle(raw), true); });
  });
  // The shortcuts to the three workloads keep the rest of the workload (the model, the formats).
  section.querySelectorAll(".planner-presets a").forEach(function (shortcut) {
    shortcut.addEventListener("click", function (event) {
      event.preventDefault();
      var raw = formValues(), params = new URLSearchParams(shortcut.getAttribute("href").slice(1));
      raw.ctx = params.get("ctx"); raw.users = params.get("users");
      commit(settle(raw), true);
    });
  });
  window.addEventListener("popstate", fromAddress);
})();
