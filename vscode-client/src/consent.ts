/**
 * The server's consents, shown as cards in the chat panel instead of toasts: a model's shell
 * command, an MCP tool call (Run / Always allow / Deny) and a project's `.mcp.json` (Trust /
 * Deny). The server sends a plain `window/showMessageRequest` (any editor can answer it) whose
 * params also carry `agentLs`, what is asked, typed (`ConsentPrompt`, generated from
 * server/protocol.py); this client reads that, never the prose of the message.
 *
 * `parseConsent` is pure (unit-tested); `ConsentBroker` keeps the requests the panel has not
 * answered yet and answers each one exactly once: the button clicked, else Deny (null) when
 * the panel closes, the turn is cancelled or the server withdraws the request.
 */

import {
  CONSENT_ALWAYS,
  CONSENT_DENY,
  CONSENT_PREFIX,
  CONSENT_RUN,
  CONSENT_TRUST,
  type ConsentPrompt,
  type ProjectServer,
} from "./protocol";

/** The actions of a command or MCP tool call consent, in order. */
export const CONSENT_CHOICES = [CONSENT_RUN, CONSENT_ALWAYS, CONSENT_DENY] as const;
/** The actions of the `.mcp.json` trust prompt, in order. */
export const TRUST_CHOICES = [CONSENT_TRUST, CONSENT_DENY] as const;
export type ConsentChoice = (typeof CONSENT_CHOICES)[number] | (typeof TRUST_CHOICES)[number];

interface MessageRequest {
  type: number;
  message: string;
  actions?: { title: string }[] | null;
  agentLs?: unknown;
}

const WARNING = 2; // MessageType.Warning

export function isConsentChoice(value: unknown): value is ConsentChoice {
  return (CONSENT_CHOICES as readonly unknown[]).includes(value) || (TRUST_CHOICES as readonly unknown[]).includes(value);
}

/** The buttons of a prompt's card, in the server's order. */
export function choicesFor(prompt: ConsentPrompt): readonly ConsentChoice[] {
  return prompt.kind === "mcp_trust" ? TRUST_CHOICES : CONSENT_CHOICES;
}

/** The consent in `params`, or undefined for any other message request. */
export function parseConsent(params: MessageRequest): ConsentPrompt | undefined {
  if (params.type !== WARNING) {
    return undefined;
  }
  const prompt = params.agentLs === undefined ? legacyCommand(params.message) : parsePrompt(params.agentLs);
  const titles = (params.actions ?? []).map((a) => a.title);
  if (!prompt || titles.join("\n") !== choicesFor(prompt).join("\n")) {
    return undefined;
  }
  return prompt;
}

const isString = (value: unknown): value is string => typeof value === "string";

function isServer(value: unknown): value is ProjectServer {
  const s = value as Record<string, unknown> | null;
  return typeof s === "object" && s !== null && isString(s.name) && isString(s.runs);
}

/** `agentLs` checked field by field (it comes over the wire): undefined when malformed. */
function parsePrompt(raw: unknown): ConsentPrompt | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const p = raw as Record<string, unknown>;
  switch (p.kind) {
    case "command":
      return isString(p.command) && isString(p.folder) ? { kind: "command", command: p.command, folder: p.folder } : undefined;
    case "mcp_tool":
      return isString(p.server) && isString(p.tool) && isString(p.arguments)
        ? { kind: "mcp_tool", server: p.server, tool: p.tool, arguments: p.arguments }
        : undefined;
    case "mcp_trust":
      return isString(p.path) && Array.isArray(p.servers) && p.servers.every(isServer)
        ? { kind: "mcp_trust", path: p.path, servers: p.servers.map((s) => ({ name: s.name, runs: s.runs })) }
        : undefined;
    default:
      return undefined;
  }
}

/** A server older than `agentLs`: its command consent, by the message's exact words. */
function legacyCommand(message: string): ConsentPrompt | undefined {
  if (!message.startsWith(CONSENT_PREFIX)) {
    return undefined;
  }
  const rest = message.slice(CONSENT_PREFIX.length);
  const cut = rest.indexOf(":\n\n");
  return cut < 0 ? undefined : { kind: "command", folder: rest.slice(0, cut), command: rest.slice(cut + 3) };
}

/** A tool call's arguments for the card: the JSON indented, else the text as it came. */
export function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

type Answer = (choice: ConsentChoice | undefined) => void;

/** The consents waiting for a click, each answered once. */
export class ConsentBroker {
  private readonly pending = new Map<string, Answer>();
  private next = 0;

  get waiting(): number {
    return this.pending.size;
  }

  /** A new request: its id and the promise of its answer (undefined: Deny). */
  open(): { id: string; answer: Promise<ConsentChoice | undefined> } {
    const id = `consent-${++this.next}`;
    const answer = new Promise<ConsentChoice | undefined>((resolve) => this.pending.set(id, resolve));
    return { id, answer };
  }

  /** Answer `id` (a click, or undefined for Deny); false when it was answered already. */
  answer(id: string, choice: ConsentChoice | undefined): boolean {
    const resolve = this.pending.get(id);
    if (!resolve) {
      return false;
    }
    this.pending.delete(id);
    resolve(choice);
    return true;
  }

  /** Deny every waiting request; their ids. */
  denyAll(): string[] {
    const ids = [...this.pending.keys()];
    for (const id of ids) {
      this.answer(id, undefined);
    }
    return ids;
  }
}
