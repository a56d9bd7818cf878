// Runs zulip-js's own event loop (register, then long-poll forever) and prints each event it
// hands to its callback as one JSON line. Tests start it as a child process and kill it.
const zulip = require("zulip-js");

const [realm, username, apiKey, eventTypes] = process.argv.slice(2);
zulip({ realm, username, apiKey }).then((client) =>
  client.callOnEachEvent((event) => process.stdout.write(JSON.stringify(event) + "\n"), JSON.parse(eventTypes)),
);
