import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { checkPollData, checkTodoData, checkWidgetData, widgetFromContent, widgetTypeOf } from "../../src/domain/widgets.js";

const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  return null;
};

describe("widgetFromContent", () => {
  test("/poll: the rest of the first line is the question, each later non-empty line an option", () => {
    assert.deepEqual(widgetFromContent("/poll Best editor?\n- vim\n* emacs\n   nano  \n\n"), {
      widget_type: "poll",
      extra_data: { question: "Best editor?", options: ["vim", "emacs", "nano"] },
    });
    assert.deepEqual(widgetFromContent("/poll"), { widget_type: "poll", extra_data: { question: "", options: [] } });
    assert.deepEqual(widgetFromContent("/poll\r\nA\r\nB"), { widget_type: "poll", extra_data: { question: "", options: ["A", "B"] } });
    // Only one bullet goes, and only at the start; a bullet alone is no option.
    assert.deepEqual(widgetFromContent("/poll Q\n- - x\n**bold**\n-\n*"), { widget_type: "poll", extra_data: { question: "Q", options: ["- x", "*bold**"] } });
  });

  test("/todo: the title, then tasks whose description follows the first ': '", () => {
    assert.deepEqual(widgetFromContent("/todo\nBuy milk: two litres\nCall: Bob: tonight\nnote:no space"), {
      widget_type: "todo",
      extra_data: {
        task_list_title: "",
        tasks: [
          { task: "Buy milk", desc: "two litres" },
          { task: "Call", desc: "Bob: tonight" },
          { task: "note:no space", desc: "" },
        ],
      },
    });
  });

  test("the command must be the whole first word", () => {
    for (const content of ["/polling", "/poll?", " /poll x", "poll", "/Poll x", "/todo-list", "text /todo"]) assert.equal(widgetFromContent(content), null, content);
    assert.deepEqual(widgetFromContent("/poll\tQ"), { widget_type: "poll", extra_data: { question: "Q", options: [] } });
  });
});

describe("submessage data", () => {
  test("widgetTypeOf reads only poll and todo widgets", () => {
    assert.equal(widgetTypeOf('{"widget_type":"poll","extra_data":{}}'), "poll");
    assert.equal(widgetTypeOf('{"widget_type":"todo"}'), "todo");
    for (const c of ['{"widget_type":"zform"}', "null", "[]", "{", '"poll"']) assert.equal(widgetTypeOf(c), null, c);
  });

  test("poll data", () => {
    assert.equal(refusal(() => checkPollData({ type: "vote", key: "canned,0", vote: -1 }, false)), null);
    assert.equal(refusal(() => checkPollData({ type: "new_option", option: "x", idx: 1000 }, false)), null);
    assert.equal(refusal(() => checkPollData({ type: "question", question: "q" }, true)), null);
    assert.equal(refusal(() => checkPollData({ type: "question", question: "q" }, false)), "You can't edit a question unless you are the author.");
    // The author check comes before the shape's.
    assert.equal(refusal(() => checkPollData({ type: "question" }, false)), "You can't edit a question unless you are the author.");
    assert.equal(refusal(() => checkPollData({ type: "vote", key: "canned,1", vote: 0 }, false)), 'Invalid poll data["vote"]');
    for (const key of ["k", "canned", "1,2,3", "canned,", "x,1", "12,canned"]) {
      assert.equal(refusal(() => checkPollData({ type: "vote", key, vote: 1 }, false)), 'Invalid poll data["key"]', key);
    }
    assert.equal(refusal(() => checkPollData({ type: "vote", key: "12,3", vote: 1 }, false)), null);
    for (const key of ["canned,0", "0", "0,x"]) {
      assert.equal(refusal(() => checkTodoData({ type: "strike", key }, false)), 'Invalid todo data["key"]', key);
    }
    assert.equal(refusal(() => checkTodoData({ type: "strike", key: "3,12" }, false)), null);
    assert.equal(refusal(() => checkPollData({ type: "vote", key: "canned,0", vote: 1, x: 1 }, false)), "Unexpected arguments: x");
  });

  test("todo data", () => {
    assert.equal(refusal(() => checkTodoData({ type: "new_task", key: 0, task: "t", desc: "", completed: false }, false)), null);
    assert.equal(refusal(() => checkTodoData({ type: "strike", key: "0,canned" }, false)), null);
    assert.equal(refusal(() => checkTodoData({ type: "new_task_list_title", title: "t" }, true)), null);
    assert.equal(refusal(() => checkTodoData({ type: "new_task_list_title", title: "t" }, false)), "You can't edit the task list title unless you are the author.");
    assert.equal(refusal(() => checkTodoData({ type: "new_task", key: -1, task: "t", desc: "", completed: false }, false)), 'todo data["key"] is too small');
    assert.equal(refusal(() => checkTodoData("x", false)), "todo data is not a dict");
  });

  test("other widgets' data is not checked", () => {
    assert.equal(refusal(() => checkWidgetData(null, "anything", false)), null);
  });
});
