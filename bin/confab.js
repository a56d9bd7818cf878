#!/usr/bin/env node
// `npx confab start [--processes N]` serves; any other command is a management command
// (build first: `npm run build`).
if (process.argv[2] === "start") {
  await import("../dist/src/main.js");
} else {
  const { main } = await import("../dist/src/cli/manage.js");
  process.exitCode = await main(process.argv.slice(2));
}
