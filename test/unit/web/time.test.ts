/** The web client's times: message times and global times, 12- or 24-hour by the reader's setting. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { dateOnly, dayLabel, fullTime, globalTime, timeOfDay } from "../../../web/src/time.js";

const utc = { locale: "en-US", timeZone: "UTC" };
const afternoon = Date.UTC(2026, 0, 15, 15, 5);
const morning = Date.UTC(2026, 0, 15, 9, 5);
const midnight = Date.UTC(2026, 0, 16, 0, 5);

test("a message's time of day follows twenty_four_hour_time", () => {
  assert.equal(timeOfDay(afternoon, false, utc), "3:05 PM");
  assert.equal(timeOfDay(afternoon, true, utc), "15:05");
  assert.equal(timeOfDay(morning, true, utc), "09:05");
  assert.equal(timeOfDay(midnight, true, utc), "00:05", "never 24:05");
  assert.equal(timeOfDay(midnight, false, utc), "12:05 AM");
});

test("without a boolean setting (null since feature level 408) the locale decides", () => {
  assert.equal(timeOfDay(afternoon, null, utc), "3:05 PM");
  assert.equal(timeOfDay(afternoon, undefined, { locale: "en-GB", timeZone: "UTC" }), "15:05");
  assert.equal(timeOfDay(afternoon, false, { locale: "en-GB", timeZone: "UTC" }), "3:05 pm", "an explicit setting beats the locale");
});

test("a full time gives the weekday, date and time, in the reader's zone", () => {
  assert.equal(fullTime(afternoon, false, utc), "Thu, Jan 15, 2026, 3:05 PM");
  assert.equal(fullTime(afternoon, true, utc), "Thu, Jan 15, 2026, 15:05");
  assert.equal(fullTime(afternoon, false, { locale: "en-US", timeZone: "Asia/Tokyo" }), "Fri, Jan 16, 2026, 12:05 AM");
  assert.equal(fullTime(afternoon, true, { locale: "en-US", timeZone: "America/New_York" }), "Thu, Jan 15, 2026, 10:05");
});

test("a global time reads the server's datetime attribute, microseconds included", () => {
  assert.equal(globalTime("2026-01-15T15:05:00Z", false, utc), "Thu, Jan 15, 2026, 3:05 PM");
  assert.equal(globalTime("2026-01-15T15:05:00.250000Z", true, { locale: "en-US", timeZone: "Europe/Berlin" }), "Thu, Jan 15, 2026, 16:05");
  assert.equal(globalTime("not a time", true, utc), null);
});

test("a day is Today, Yesterday, Tomorrow or its date, in the reader's zone", () => {
  const noon = Date.UTC(2026, 0, 15, 12, 0);
  assert.equal(dateOnly(afternoon, utc), "Thu, Jan 15, 2026");
  assert.equal(dayLabel(afternoon, noon, utc), "Today");
  assert.equal(dayLabel(morning - 86_400_000, noon, utc), "Yesterday");
  assert.equal(dayLabel(midnight, noon, utc), "Tomorrow");
  assert.equal(dayLabel(Date.UTC(2026, 0, 10, 12), noon, utc), "Sat, Jan 10, 2026");
  // 23:30 UTC on the 15th is already the 16th in Tokyo.
  assert.equal(dayLabel(Date.UTC(2026, 0, 15, 23, 30), noon, { locale: "en-US", timeZone: "Asia/Tokyo" }), "Tomorrow");
});
