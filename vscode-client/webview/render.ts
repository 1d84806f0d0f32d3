/** DOM for the chat panel's state: one element per transcript entry, rebuilt only when it changes. */

import type { ChatState, Entry, PlanFile } from "../src/chatState";
import type { ViewMessage } from "../src/messages";
import { renderMarkdown } from "./markdown";

export type Post = (message: ViewMessage) => void;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function planFileRow(file: PlanFile, checkpointId: string | undefined, post: Post): HTMLElement {
  const row = el("li", `plan-file status-${file.status}`);
  const link = el("button", "link", file.path);
  link.title = checkpointId ? "Show the diff against the checkpoint" : "Open the file";
  link.addEventListener("click", () =>
    post(checkpointId ? { type: "openDiff", checkpointId, path: file.path } : { type: "openFile", path: file.path }),
  );
  row.append(link, el("span", "badge", file.action ? `${file.status} · ${file.action}` : file.status));
  return row;
}

function renderEntry(entry: Entry, post: Post): HTMLElement {
  switch (entry.kind) {
    case "user": {
      const node = el("div", "entry user");
      if (entry.context) {
        node.append(el("div", "context", entry.context));
      }
      node.append(el("div", "text", entry.text));
      return node;
    }
    case "assistant": {
      const node = el("div", "entry assistant markdown");
      node.innerHTML = renderMarkdown(entry.text);
      return node;
    }
    case "tool": {
      const node = el("details", `entry tool${entry.ok === false ? " failed" : ""}`);
      const state = entry.result === undefined ? "running…" : entry.ok === false ? "failed" : "done";
      node.append(el("summary", undefined, `${entry.name} — ${state}`));
      node.append(el("pre", "tool-args", entry.args));
      if (entry.result !== undefined) {
        node.append(el("pre", "tool-result", entry.result));
      }
      return node;
    }
    case "plan": {
      const node = el("div", `entry plan${entry.done ? " done" : ""}`);
      node.append(el("div", "plan-title", `Plan: ${entry.description || "(no description)"}`));
      const list = el("ul", "plan-files");
      for (const file of entry.files) {
        list.append(planFileRow(file, entry.checkpointId, post));
      }
      node.append(list);
      if (entry.checkpointId) {
        node.append(el("div", "checkpoint", `checkpoint ${entry.checkpointId}`));
      }
      return node;
    }
    case "notice":
      return el("div", `entry notice ${entry.level}`, entry.text);
  }
}

/** Keeps the rendered entries and replaces only those whose content changed. */
export class TranscriptView {
  private keys: string[] = [];
  private session = -1;

  constructor(
    private readonly root: HTMLElement,
    private readonly post: Post,
  ) {}

  render(state: ChatState): void {
    const entries = state.sessions[state.active]?.entries ?? [];
    if (this.session !== state.active) {
      this.root.replaceChildren();
      this.keys = [];
      this.session = state.active;
    }
    const atBottom = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 40;
    while (this.keys.length > entries.length) {
      this.root.lastElementChild?.remove();
      this.keys.pop();
    }
    entries.forEach((entry, index) => {
      const key = JSON.stringify(entry);
      if (this.keys[index] === key) {
        return;
      }
      const node = renderEntry(entry, this.post);
      const old = this.root.children[index];
      if (old) {
        if (old instanceof HTMLDetailsElement && node instanceof HTMLDetailsElement) {
          node.open = old.open;
        }
        old.replaceWith(node);
      } else {
        this.root.append(node);
      }
      this.keys[index] = key;
    });
    if (entries.length === 0) {
      this.root.replaceChildren(el("div", "empty", "Ask the agent to change your code. The selection in the active editor is sent along."));
      this.keys = [];
      this.session = -1;
    }
    if (atBottom) {
      this.root.scrollTop = this.root.scrollHeight;
    }
  }
}
