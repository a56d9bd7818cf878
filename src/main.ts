/**
 * Entry point of `npm start`, `npm run dev` and `confab start`. It imports nothing of Confab
 * statically: V8 flags set here must be in force before the module graph is loaded and parsed.
 */
import v8 from "node:v8";
import vm from "node:vm";

// Loading the modules, migrating and building the routes allocate heavily for a second. V8 doubles
// the young generation whenever much of it survives a scavenge, up to 2 × 16 MiB, and gives it
// back only when its memory reducer notices the process idle, about 30 s later; so an idle server
// held 24 MiB of young generation it no longer used. Kept at its first size during start, it
// stays at 2 MiB.
v8.setFlagsFromString("--semi-space-growth-factor=1");
// Code that runs only while starting got hot enough to be compiled by Sparkplug and TurboFan;
// their code and what the compilers' threads had allocated stayed with the process (8 MiB).
// Start is no slower interpreted; what requests make hot is compiled once start is over.
v8.setFlagsFromString("--no-turbofan");
v8.setFlagsFromString("--no-sparkplug");

const { start } = await import("./start.js");
await start();

// V8's defaults: from here the young generation grows under load and hot code is compiled.
v8.setFlagsFromString("--semi-space-growth-factor=2");
v8.setFlagsFromString("--turbofan");
v8.setFlagsFromString("--sparkplug");
// What start promoted out of the small young generation and then dropped leaves the old
// generation's pages partly empty; one compacting collection now returns them (about 8 MiB).
v8.setFlagsFromString("--compact-on-every-full-gc");
try {
  await vm.measureMemory({ execution: "eager" });
} finally {
  v8.setFlagsFromString("--no-compact-on-every-full-gc");
}
