/** Finding the server executable, and the message when it is missing. */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { ServerNotFound, resolveServerPath } from "../../serverPath";

const temps: string[] = [];
const made = (dir: string): string => {
  temps.push(dir);
  return dir;
};
after(() => {
  for (const dir of temps) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});


function tempBin(): string {
  const dir = made(fs.mkdtempSync(path.join(os.tmpdir(), "agent-ls-bin-")));
  const exe = path.join(dir, "agent-ls");
  fs.writeFileSync(exe, "#!/bin/sh\n");
  fs.chmodSync(exe, 0o755);
  fs.writeFileSync(path.join(dir, "not-exec"), "");
  return dir;
}

test("a bare name is looked up on PATH, first match wins", () => {
  const first = tempBin();
  const second = tempBin();
  const env = { PATH: [path.join(first, "missing"), first, second].join(path.delimiter) };
  assert.equal(resolveServerPath("agent-ls", env, "linux"), path.join(first, "agent-ls"));
  assert.equal(resolveServerPath("  ", env, "linux"), path.join(first, "agent-ls"), "empty setting means agent-ls");
});

test("an explicit path must be an executable file", () => {
  const dir = tempBin();
  assert.equal(resolveServerPath(path.join(dir, "agent-ls"), {}, "linux"), path.join(dir, "agent-ls"));
  assert.throws(() => resolveServerPath(path.join(dir, "not-exec"), {}, "linux"), ServerNotFound);
  assert.throws(() => resolveServerPath(dir, {}, "linux"), /is not an executable file/);
});

test("missing from PATH: the message names the setting and how to install", () => {
  const dir = tempBin();
  assert.throws(
    () => resolveServerPath("agent-ls-nope", { PATH: dir }, "linux"),
    (error: Error) =>
      error instanceof ServerNotFound &&
      error.message.includes('no "agent-ls-nope" on PATH') &&
      error.message.includes("agentLs.serverPath") &&
      error.message.includes("pipx install agent-ls"),
  );
});
