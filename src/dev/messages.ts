/** A small conversation history for the development organization, sent as real messages, and messages scheduled for later. */
import type { AppContext } from "../context.js";
import { PendingEvents, type Tx } from "../actions/run.js";
import { sendMessageInTx, type MessageTarget } from "../actions/messages.js";
import { getStream } from "../store/streams.js";
import { scheduleMessageInTx } from "../actions/scheduled_messages.js";
import type { DevOrganization, DevPerson } from "./seed.js";

type Line = [sender: DevPerson, where: { channel: string; topic: string } | { to: DevPerson[] }, content: string];

const HISTORY: Line[] = [
  ["iago", { channel: "Verona", topic: "test" }, "Welcome to Verona! This is where we test things."],
  ["hamlet", { channel: "Verona", topic: "test" }, "To be, or not to be: that is the question."],
  ["othello", { channel: "Verona", topic: "Verona2" }, "Keep up your bright swords, for the dew will rust them."],
  ["cordelia", { channel: "Verona", topic: "test" }, "Nothing will come of nothing. @**King Hamlet**, speak again."],
  ["hamlet", { channel: "Denmark", topic: "castle" }, "Something is rotten in the state of Denmark."],
  ["iago", { channel: "Denmark", topic: "castle" }, "I am not what I am."],
  ["prospero", { channel: "Scotland", topic: "weather" }, "We are such stuff as dreams are made on."],
  ["ZOE", { channel: "Venice", topic: "canals" }, "The canals are lovely this time of year."],
  ["ZOE", { channel: "Rome", topic: "history" }, "Rome was not built in a day. This channel is web-public."],
  ["desdemona", { channel: "core team", topic: "planning" }, "Let's plan the next release here."],
  ["hamlet", { to: ["othello"] }, "Othello, a word in private?"],
  ["othello", { to: ["hamlet"] }, "Speak, my lord."],
  ["iago", { to: ["cordelia", "hamlet"] }, "A group conversation among the three of us."],
];

export async function seedDevMessages(tx: Tx, app: AppContext, org: DevOrganization): Promise<void> {
  // Nobody can have an event queue before the server listens, so the events go nowhere.
  const events = new PendingEvents();
  for (const [senderKey, where, content] of HISTORY) {
    const sender = org.people[senderKey];
    let target: MessageTarget;
    if ("channel" in where) {
      const stream = (await getStream(tx, org.realm.id, org.channels[where.channel]))!;
      target = { kind: "stream", stream, topic: where.topic };
    } else {
      target = { kind: "direct", recipients: where.to.map((k) => org.people[k]) };
    }
    await sendMessageInTx(tx, app, events, org.realm, sender, target, content, { clientName: "populate_db", readBySender: true });
  }
}

const YEAR_SECONDS = 365 * 24 * 3600;

/** Iago's two messages scheduled a year ahead, which the API documentation's examples use. */
export async function seedDevScheduledMessages(tx: Tx, app: AppContext, org: DevOrganization): Promise<void> {
  const events = new PendingEvents();
  const iago = { user: org.people.iago, realm: org.realm, clientName: "populate_db" };
  const inAYear = Math.floor(app.clock.now()) + YEAR_SECONDS;
  await scheduleMessageInTx(tx, app, events, iago, {
    type: "stream",
    to: org.channels.Denmark,
    topic: "test-api",
    content: "It's time to celebrate the anniversary of provisioning this development environment :tada:!",
    scheduledDeliveryTimestamp: inAYear,
    readBySender: undefined,
  });
  await scheduleMessageInTx(tx, app, events, iago, {
    type: "private",
    to: [org.people.iago.id],
    topic: undefined,
    content: "Note to self: It's been a while since you've provisioned this development environment.",
    scheduledDeliveryTimestamp: inAYear,
    readBySender: undefined,
  });
}
