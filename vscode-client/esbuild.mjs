// Bundles the extension (Node, CommonJS), the webview script and stylesheet (browser), and
// the tests (Node ESM) into dist/ and out/. `--production` minifies and drops source maps.
import { build } from "esbuild";
import { readdirSync } from "node:fs";

const production = process.argv.includes("--production");
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: "warning" };

await build({
  ...common,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
});
await build({
  ...common,
  entryPoints: { webview: "webview/main.ts" },
  outdir: "dist",
  platform: "browser",
  format: "iife",
  target: "es2022",
});
await build({ ...common, entryPoints: { webview: "webview/style.css" }, outdir: "dist" });
if (!production) {
  const tests = readdirSync("src/test", { recursive: true })
    .filter((f) => String(f).endsWith(".test.ts"))
    .map((f) => `src/test/${f}`);
  await build({
    ...common,
    entryPoints: tests,
    outdir: "out/test",
    outbase: "src/test",
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outExtension: { ".js": ".mjs" },
  });
}
