// The upload form of a league's "my bots" page: posts the chosen file as the body of
// POST /api/bots (the session's cookie, and its CSRF token in a header), then shows the
// answer. Everything the server says back is shown as text (textContent), never markup.
"use strict";
(() => {
  const form = document.getElementById("upload");
  if (!form) return;
  const status = document.getElementById("upload-status");
  const check = document.getElementById("upload-check");
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = form.elements.bot.files[0];
    if (!file) return;
    const query = new URLSearchParams({ file: file.name });
    if (form.elements.botname.value) query.set("name", form.elements.botname.value);
    if (form.elements.entry.value) query.set("entry", form.elements.entry.value);
    status.textContent = "checking " + file.name + "…";
    status.className = "";
    check.hidden = true;
    let answer;
    try {
      const response = await fetch("/api/bots?" + query, {
        method: "POST", body: file, credentials: "same-origin",
        headers: { "X-CSRF-Token": csrf, "Content-Type": "application/octet-stream" },
      });
      const doc = await response.json().catch(() => ({ error: "HTTP " + response.status }));
      answer = { ok: response.ok, doc };
    } catch (err) {
      answer = { ok: false, doc: { error: "the upload failed: " + err } };
    }
    if (answer.ok) {
      status.textContent = "added " + answer.doc.bot + ": in the pool";
      status.className = "added";
      form.reset();
    } else {
      status.textContent = answer.doc.error;
      status.className = "error";
      if (answer.doc.check) {
        check.textContent = answer.doc.check;
        check.hidden = false;
      }
    }
  });
})();
