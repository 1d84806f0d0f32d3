/** The chat panel's script: state kept with getState/setState, messages to and from the host. */

import { type ChatState, newChat, reduce, restoreState, switchTo } from "../src/chatState";
import type { HostMessage, ViewMessage } from "../src/messages";
import { TranscriptView } from "./render";

interface VsCodeApi {
  postMessage(message: ViewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const transcript = new TranscriptView(byId("transcript"), (m) => vscode.postMessage(m));
const input = byId<HTMLTextAreaElement>("message");
const sessions = byId<HTMLSelectElement>("sessions");
const sendButton = byId<HTMLButtonElement>("send");
const stopButton = byId<HTMLButtonElement>("stop");
const status = byId<HTMLSpanElement>("status");
let state: ChatState = restoreState(vscode.getState());

function render(): void {
  transcript.render(state);
  sessions.replaceChildren(
    ...state.sessions.map((s, i) => {
      const option = new Option(s.title, String(i), false, i === state.active);
      return option;
    }),
  );
  sessions.disabled = state.busy;
  sendButton.disabled = state.busy;
  stopButton.hidden = !state.busy;
  byId<HTMLButtonElement>("undo").disabled = state.busy;
  byId<HTMLButtonElement>("redo").disabled = state.busy;
  byId<HTMLButtonElement>("new-chat").disabled = state.busy;
  status.textContent = state.busy ? "working…" : state.status;
  const serverError = byId<HTMLDivElement>("server-error");
  serverError.hidden = !state.serverError;
  serverError.textContent = state.serverError ? `The agent-ls server is not running: ${state.serverError}` : "";
  document.body.classList.toggle("busy", state.busy);
}

function update(next: ChatState): void {
  state = next;
  vscode.setState(state);
  render();
}

function send(): void {
  const text = input.value.trim();
  if (!text || state.busy) {
    return;
  }
  const sessionId = state.sessions[state.active]?.id;
  vscode.postMessage(sessionId ? { type: "send", text, sessionId } : { type: "send", text });
  input.value = "";
}

window.addEventListener("message", (event: MessageEvent<HostMessage>) => {
  if (typeof event.data === "object" && event.data !== null && typeof event.data.type === "string") {
    update(reduce(state, event.data));
  }
});
sendButton.addEventListener("click", send);
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
stopButton.addEventListener("click", () => vscode.postMessage({ type: "stop" }));
byId("undo").addEventListener("click", () => vscode.postMessage({ type: "undo" }));
byId("redo").addEventListener("click", () => vscode.postMessage({ type: "redo" }));
byId("new-chat").addEventListener("click", () => update(newChat(state)));
sessions.addEventListener("change", () => update(switchTo(state, Number(sessions.value))));

render();
vscode.postMessage({ type: "ready" });
