// "Compare two GPUs": open the page of the chosen pair. The form is hidden until this script runs,
// so a reader without JavaScript never meets a dead control (the comparisons index lists every pair).
document.querySelectorAll("form.compare-picker").forEach((form) => {
  const message = form.querySelector(".compare-picker-error");
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const [a, b] = ["a", "b"].map((name) => form.elements[name].selectedOptions[0]);
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
