(function () {
  var filter = document.getElementById("filter"), status = document.getElementById("status"), shown = document.getElementById("shown");
  var tasks = Array.prototype.slice.call(document.querySelectorAll("details.task"));
  function matches(el, text, want) {
    if (text && el.getAttribute("data-search").toLowerCase().indexOf(text) < 0) return false;
    switch (want) {
    case "all": return true;
    case "failing": return el.getAttribute("data-failing") === "true";
    case "changed": return el.getAttribute("data-changed") === "true";
    }
    return el.getAttribute("data-status") === want;
  }
  function apply() {
    var text = filter.value.trim().toLowerCase(), want = status.value, n = 0;
    tasks.forEach(function (el) {
      var ok = matches(el, text, want);
      el.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n + " of " + tasks.length + " tasks shown";
    var hash = new URLSearchParams();
    if (text) hash.set("q", text);
    if (want !== "all") hash.set("status", want);
    var h = hash.toString();
    if (history.replaceState && ("#" + h) !== location.hash && (h || location.hash)) history.replaceState(null, "", h ? "#" + h : location.pathname);
  }
  // A link can carry a filter: report.html#q=rounding&status=failing
  var params = new URLSearchParams(location.hash.slice(1));
  if (params.get("q")) filter.value = params.get("q");
  if (params.get("status")) status.value = params.get("status");
  filter.addEventListener("input", apply);
  status.addEventListener("change", apply);
  apply();
})();
