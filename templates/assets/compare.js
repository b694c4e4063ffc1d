// "Compare two GPUs": open the page of the chosen pair. The form is hidden until this script has
// filled its lists, so a reader without JavaScript never meets a dead control (the comparisons
// index lists every pair). Both lists offer every GPU, from one file for the whole site
// (form.dataset.options: the same list would otherwise be in every page, twice); the browser
// fetches it once and keeps it for the other pages.
const gpuLists = new Map(); // address → the promise of its GPUs, one fetch per page

function gpusAt(address) {
  if (!gpuLists.has(address)) {
    gpuLists.set(address, fetch(address).then((response) => {
      if (!response.ok) throw new Error(`${address}: ${response.status}`);
      return response.json();
    }).then((data) => data.gpus));
  }
  return gpuLists.get(address);
}

document.querySelectorAll("form.compare-picker").forEach((form) => {
  const message = form.querySelector(".compare-picker-error");
  const selects = ["a", "b"].map((name) => form.elements[name]);
  gpusAt(form.dataset.options).then((gpus) => {
    for (const select of selects) {
      gpus.forEach(([id, name], order) => {
        const chosen = id === select.dataset.chosen;
        const option = new Option(name, id, chosen, chosen);
        option.dataset.order = String(order);
        select.add(option);
      });
    }
    form.hidden = false;
  }).catch(() => {}); // no list, no form: it stays hidden, as without JavaScript
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const [a, b] = selects.map((select) => select.selectedOptions[0]);
    if (a.value === b.value) {
      message.textContent = form.dataset.same;
      return;
    }
    // A pair's page is named after its two GPUs in dataset order (the other order is a redirect to
    // it: going straight there saves the reader a hop).
    const [first, second] = Number(a.dataset.order) < Number(b.dataset.order) ? [a, b] : [b, a];
    window.location.href = form.dataset.base + first.value + "-vs-" + second.value + "/";
  });
});
