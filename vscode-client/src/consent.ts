/**
 * The server's consent to a model's shell command, shown as a card in the chat panel instead
 * of a toast. The server sends a plain `window/showMessageRequest` (any editor can answer it);
 * this client recognises it by its message prefix and its three exact action titles.
 *
 * `parseConsent` is pure (unit-tested); `ConsentBroker` keeps the requests the panel has not
 * answered yet and answers each one exactly once: the button clicked, else Deny (null) when
 * the panel closes, the turn is cancelled or the server withdraws the request.
 */

import { CONSENT_ALWAYS, CONSENT_DENY, CONSENT_PREFIX, CONSENT_RUN } from "./protocol";

export const CONSENT_CHOICES = [CONSENT_RUN, CONSENT_ALWAYS, CONSENT_DENY] as const;
export type ConsentChoice = (typeof CONSENT_CHOICES)[number];

/** What the card shows: the command line and where it runs. */
export interface CommandConsent {
  command: string;
  folder: string;
}

interface MessageRequest {
  type: number;
  message: string;
  actions?: { title: string }[] | null;
}

const WARNING = 2; // MessageType.Warning

export function isConsentChoice(value: unknown): value is ConsentChoice {
  return (CONSENT_CHOICES as readonly unknown[]).includes(value);
}

/** The command consent in `params`, or undefined for any other message request. */
export function parseConsent(params: MessageRequest): CommandConsent | undefined {
  const titles = (params.actions ?? []).map((a) => a.title);
  if (params.type !== WARNING || titles.join("\n") !== CONSENT_CHOICES.join("\n")) {
    return undefined;
  }
  if (!params.message.startsWith(CONSENT_PREFIX)) {
    return undefined;
  }
  const rest = params.message.slice(CONSENT_PREFIX.length);
  const cut = rest.indexOf(":\n\n");
  if (cut < 0) {
    return undefined;
  }
  return { folder: rest.slice(0, cut), command: rest.slice(cut + 3) };
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
