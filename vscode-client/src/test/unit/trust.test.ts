/**
 * The Workspace Trust declaration of package.json: VS Code silently ignores a misspelt name in
 * `restrictedConfigurations`, so every entry must be a setting the extension contributes, and
 * every setting that starts a program, loads a model file, sends requests elsewhere or loosens
 * a guard is listed.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

interface Manifest {
  capabilities?: { untrustedWorkspaces?: { supported?: unknown; description?: unknown; restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
}

const manifest = JSON.parse(
  fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../package.json"), "utf8"),
) as Manifest;
const trust = manifest.capabilities?.untrustedWorkspaces;
const settings = manifest.contributes.configuration.properties;

/** What a cloned repository must not set before it is trusted. */
const DANGEROUS = {
  "starts a program or loads a model file": ["serverPath", "serverArgs", "cliCommand", "mcpServers", "modelPath"],
  "sends your code or key elsewhere": ["baseUrl", "apiKeyEnv", "indexUrl"],
  "loosens a guard": ["commands", "commandAllowList", "allowSecretFiles", "review"],
};

test("Restricted Mode is supported with limits, and says which", () => {
  assert.equal(trust?.supported, "limited");
  assert.equal(typeof trust?.description, "string");
});

test("every restricted name is a contributed setting", () => {
  for (const name of trust?.restrictedConfigurations ?? []) {
    assert.ok(name in settings, `${name} is not a setting of package.json`);
  }
});

test("every setting that runs, reaches out or loosens a guard is restricted", () => {
  for (const [why, names] of Object.entries(DANGEROUS)) {
    for (const name of names) {
      assert.ok(trust?.restrictedConfigurations?.includes(`agentLs.${name}`), `agentLs.${name} ${why}: it must be restricted`);
    }
  }
});

test("mcpServers can be set per folder (resource scope)", () => {
  assert.equal(settings["agentLs.mcpServers"].scope, "resource");
});
