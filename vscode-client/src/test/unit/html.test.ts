/** The webview page: a nonce CSP that allows only our script and stylesheet. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { chatHtml, nonce } from "../../html";

test("the CSP allows scripts only with the page's nonce, and nothing by default", () => {
  const n = nonce();
  assert.match(n, /^[A-Za-z0-9_-]{24}$/);
  assert.notEqual(n, nonce());
  const html = chatHtml({ cspSource: "https://x.vscode-cdn.net", scriptUri: "https://x/dist/webview.js", styleUri: "https://x/dist/webview.css", nonce: n });
  const csp = /content="([^"]*)"/.exec(html.split("Content-Security-Policy")[1])?.[1] ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, new RegExp(`script-src 'nonce-${n}'`));
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [` nonce="${n}" src="https://x/dist/webview.js"`]);
  for (const id of ["message", "send", "stop", "undo", "redo", "new-chat", "sessions", "transcript"]) {
    assert.match(html, new RegExp(`id="${id}"`), id);
  }
});

test("resource URIs are attribute-escaped", () => {
  const html = chatHtml({ cspSource: "s", scriptUri: 'a"><script>x</script>', styleUri: "b", nonce: "n" });
  assert.doesNotMatch(html, /<script>x/);
});
