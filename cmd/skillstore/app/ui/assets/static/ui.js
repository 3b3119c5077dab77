// skillstore ui: the page's only script (served as a file: the page's
// Content-Security-Policy allows no inline script). It asks the server
// every few seconds whether the store changed, and reloads the page when
// it did, unless a form is being filled in (then it says so instead) or
// sent; and it asks before a reject.
"use strict";
(function () {
  var poll = parseInt(document.body.dataset.poll, 10) || 2000;
  var first = null;
  // Once a form is sent (accept changes the store) or the page is left,
  // a change seen must not reload this page over the one coming.
  var leaving = false;
  window.addEventListener("beforeunload", function () { leaving = true; });
  document.addEventListener("submit", function (e) {
    if (!e.defaultPrevented) { leaving = true; }
  });
  function typing() {
    var a = document.activeElement;
    return a && (a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT") && a.value !== "";
  }
  function check() {
    fetch("/stamp", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (stamp) {
        if (stamp === null || leaving) { return; }
        if (first === null) { first = stamp; return; }
        if (stamp !== first) {
          if (typing()) {
            document.getElementById("changed").hidden = false;
          } else {
            // Drop the outcome of an action from the address: it was said.
            var u = new URL(location.href);
            u.searchParams.delete("flash");
            u.searchParams.delete("error");
            location.replace(u.toString());
          }
        }
      })
      .catch(function () {});
  }
  check();
  setInterval(check, poll);
  document.querySelectorAll("form.confirm").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      if (!window.confirm(f.dataset.confirm)) { e.preventDefault(); }
    });
  });
})();
