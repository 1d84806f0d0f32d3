/** DOM for the chat panel's state: one element per transcript entry, rebuilt only when it changes. */

import type { ChatState, Entry, PlanEntry, PlanFile } from "../src/chatState";
import type { ViewMessage } from "../src/messages";
import { renderConsent, renderOutput } from "./commands";
import { renderMarkdown } from "./markdown";

export type Post = (message: ViewMessage) => void;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export function button(label: string, className: string, title: string, onClick: () => void): HTMLButtonElement {
  const node = el("button", className, label);
  node.title = title;
  node.addEventListener("click", onClick);
  return node;
}

/** Where a click on the file's name leads: its diff (staged or checkpoint) or the file. */
function openMessage(file: PlanFile, plan: PlanEntry): ViewMessage {
  const checkpointId = file.checkpointId ?? plan.checkpointId;
  if (file.status === "pending" && plan.planId) {
    return { type: "openStagedDiff", planId: plan.planId, path: file.path };
  }
  if (checkpointId && file.status !== "rejected") {
    return { type: "openDiff", checkpointId, path: file.path };
  }
  return { type: "openFile", path: file.path };
}

function planFileRow(file: PlanFile, plan: PlanEntry, post: Post): HTMLElement {
  const row = el("li", `plan-file status-${file.status}`);
  const message = openMessage(file, plan);
  const link = button(file.path, "link", "", () => post(message));
  link.title =
    message.type === "openStagedDiff"
      ? "Show the proposed change against the file now"
      : message.type === "openDiff"
        ? "Show the diff against the checkpoint"
        : "Open the file";
  const detail = file.action ?? file.op;
  const actions = el("span", "file-actions");
  if (file.status === "pending" && plan.planId) {
    const planId = plan.planId;
    actions.append(
      button("Accept", "accept", `Write the proposed change to ${file.path}`, () => post({ type: "accept", planId, files: [file.path] })),
      button("Reject", "reject secondary", `Discard the proposed change to ${file.path}`, () =>
        post({ type: "reject", planId, files: [file.path] }),
      ),
    );
  }
  actions.append(el("span", "badge", detail ? `${file.status} · ${detail}` : file.status));
  row.append(link, actions);
  if (file.reason) {
    row.title = `Rejected: ${file.reason}`;
    actions.prepend(el("span", "reason", file.reason));
  }
  return row;
}

function renderPlan(entry: PlanEntry, post: Post): HTMLElement {
  const node = el("div", `entry plan${entry.done ? " done" : ""}${entry.planId ? " review" : ""}`);
  const title = entry.planId ? "Proposed plan" : "Plan";
  node.append(el("div", "plan-title", `${title}: ${entry.description || "(no description)"}`));
  const list = el("ul", "plan-files");
  for (const file of entry.files) {
    list.append(planFileRow(file, entry, post));
  }
  node.append(list);
  const pending = entry.files.filter((f) => f.status === "pending").length;
  if (entry.planId && pending > 0) {
    const planId = entry.planId;
    const bar = el("div", "plan-actions");
    bar.append(
      button(`Accept all (${pending})`, "accept-all", "Write every pending file of the plan (one undo step)", () => post({ type: "accept", planId })),
      button(`Reject all (${pending})`, "reject-all secondary", "Discard every pending file of the plan", () => post({ type: "reject", planId })),
    );
    node.append(bar);
  }
  if (entry.refused?.length) {
    node.append(el("div", "refused", `Not accepted: ${entry.refused.join("; ")}`));
  }
  const checkpoints = [...new Set(entry.files.map((f) => f.checkpointId ?? entry.checkpointId).filter((c) => c !== undefined))];
  if (checkpoints.length) {
    node.append(el("div", "checkpoint", `checkpoint ${checkpoints.join(", ")}`));
  }
  return node;
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
    case "plan":
      return renderPlan(entry, post);
    case "notice":
      return el("div", `entry notice ${entry.level}`, entry.text);
    case "consent":
      return renderConsent(entry, post);
    case "output":
      return renderOutput(entry);
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
