// Regenerates src/protocol.ts from server/protocol.py (scripts/gen_protocol_ts.py), run by
// `npm run build`. The Python is $PYTHON, else the project's virtualenv (../.venv), else
// python3. Without a Python that can import the server (a checkout of the extension alone),
// the committed protocol.ts is kept and a warning says so: tests/unit/test_protocol_ts.py
// keeps the committed file current. With $PYTHON set, any failure fails the build.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCRIPT = path.join(REPO, "scripts", "gen_protocol_ts.py");
const NO_SERVER = 3; // the script's exit code when server.protocol cannot be imported

const venv = [path.join(REPO, ".venv", "bin", "python"), path.join(REPO, ".venv", "Scripts", "python.exe")];
const explicit = process.env.PYTHON;
const python = explicit || venv.find((p) => existsSync(p)) || "python3";

const run = spawnSync(python, [SCRIPT], {
  cwd: REPO,
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) },
});
const unavailable = run.error?.code === "ENOENT" || run.status === NO_SERVER;
if (unavailable && !explicit) {
  console.warn(`protocol.ts not regenerated: no Python with agent-ls installed (${python}); set PYTHON to one.`);
} else if (run.error) {
  console.error(`protocol.ts: cannot run ${python}: ${run.error.message}`);
  process.exit(1);
} else if (run.status !== 0) {
  console.error(`protocol.ts: ${python} ${path.relative(REPO, SCRIPT)} failed (exit ${run.status ?? run.signal})`);
  process.exit(1);
}
