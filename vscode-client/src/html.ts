/** The chat webview's HTML: nonce CSP, resources only through `asWebviewUri`. */

import { randomBytes } from "node:crypto";

export function nonce(): string {
  return randomBytes(18).toString("base64url");
}

export interface PageResources {
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
}

function attr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

export function chatHtml(r: PageResources): string {
  const csp = [
    "default-src 'none'",
    `style-src ${r.cspSource}`,
    `img-src ${r.cspSource} data:`,
    `font-src ${r.cspSource}`,
    `script-src 'nonce-${r.nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${attr(r.styleUri)}" rel="stylesheet">
<title>Agent chat</title>
</head>
<body>
<header class="toolbar">
  <select id="sessions" title="Chat sessions" aria-label="Chat sessions"></select>
  <button id="new-chat" title="New chat">New chat</button>
  <button id="undo" title="Undo the last plan (agent.undo)">Undo</button>
  <button id="redo" title="Redo the last undone plan (agent.redo)">Redo</button>
</header>
<div id="server-error" class="server-error" role="alert" hidden></div>
<main id="transcript" aria-live="polite"></main>
<footer class="composer">
  <textarea id="message" rows="3" placeholder="Ask the agent… (Enter to send, Shift+Enter for a new line)" aria-label="Message"></textarea>
  <div class="composer-row">
    <span id="status" class="status"></span>
    <button id="stop" title="Stop the running turn" hidden>Stop</button>
    <button id="send" title="Send">Send</button>
  </div>
</footer>
<script nonce="${attr(r.nonce)}" src="${attr(r.scriptUri)}"></script>
</body>
</html>`;
}
