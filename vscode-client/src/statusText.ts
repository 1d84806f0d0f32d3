/** The status-bar text (pure, so it is unit-tested without VS Code). */

export interface ProviderStatus {
  provider: string;
  model: string;
}

export function statusText(status: ProviderStatus | undefined, running: boolean, busy: boolean): string {
  if (busy) {
    return "$(sync~spin) agent working…";
  }
  if (!running || !status) {
    return "$(circle-slash) agent-ls stopped";
  }
  return `$(hubot) ${status.provider} · ${status.model}`;
}
