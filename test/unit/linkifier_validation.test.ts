import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { linkifierErrors, playgroundErrors, validPygmentsLanguageCharacters } from "../../src/domain/linkifiers.js";

const blank = "This field cannot be blank.";

describe("linkifier validation", () => {
  test("valid linkifiers, with every kind of RFC 6570 expression", () => {
    const valid: [string, string][] = [
      ["#(?P<id>[123])", "https://realm.com/my_realm_filter/{id}"],
      ["ZUL-(?P<id>\\d+)", "https://realm.com/my_realm_filter/#hashtag/{id}"],
      ["PR (?P<id>[0-9]+)", "https://example.com/~user/web#view_type=type&model=model&action=12345&id={id}"],
      ["ZUL-URL-(?P<id>\\d+)", "https://example.com/%ba/{id}"],
      ["(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)", "https://github.com/{org}/{repo}/issue/{id}"],
      [
        "FOO_(?P<id>[a-f]{5});(?P<zone>[a-f]);(?P<domain>[a-z]+);(?P<location>[a-z]+);(?P<name>[a-z]{2,8});(?P<chapter>[0-9]{2,3});(?P<fragment>[a-z]{2,8})",
        "https://zone_{zone}{.domain}.net/ticket{/location}{/id}{?name,chapter}{#fragment:5}",
      ],
      ["3#123", "https://example.com"],
      ["(?P<foo>x)", "$not_a_url${foo}%%(foo)s"],
    ];
    for (const [pattern, template] of valid) assert.deepEqual(linkifierErrors(pattern, template), {}, pattern);
  });

  test("blank fields; the other checks still run", () => {
    assert.deepEqual(linkifierErrors("", "https://realm.com/my_realm_filter/{id}"), {
      pattern: [blank],
      __all__: ["Group 'id' in URL template is not present in linkifier pattern."],
    });
    assert.deepEqual(linkifierErrors("#(?P<id>[0-9]+)", ""), {
      url_template: [blank],
      __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
    });
    assert.deepEqual(linkifierErrors("", ""), { pattern: [blank], url_template: [blank] });
  });

  test("a pattern RE2 refuses, in RE2's words; the template's groups are then not compared", () => {
    assert.deepEqual(linkifierErrors("(foo", "https://x.com/{id}"), { __all__: ["Bad regular expression: missing ): (foo"] });
    assert.deepEqual(linkifierErrors("ZUL-(?P<id>\\d????)", "{id"), {
      url_template: ["Invalid URL template."],
      __all__: ["Bad regular expression: bad repetition operator: ????"],
    });
    assert.deepEqual(linkifierErrors("(?P<x>a)(?=b)", "https://x.com/{x}"), {
      __all__: ["Bad regular expression: invalid perl operator: (?="],
    });
  });

  test("an invalid template is reported once, without group comparisons", () => {
    for (const t of ["{id", "https://example.com/{foo", "https://example.com/{{}", "https://example.com/{//foo}", "https://example.com/{bar++}"]) {
      assert.deepEqual(linkifierErrors("#(?P<id>[0-9]+)", t), { url_template: ["Invalid URL template."] }, t);
    }
  });

  test("groups and variables must be the same set; template variables are checked first, smallest name first", () => {
    assert.deepEqual(linkifierErrors("ZUL-(?P<id>\\d+)", "https://realm.com/my_realm_filter/{hello}"), {
      __all__: ["Group 'hello' in URL template is not present in linkifier pattern."],
    });
    assert.deepEqual(linkifierErrors("ZUL-(?P<id>\\d+)-(?P<hello>\\d+)-(?P<world>\\d+)", "https://realm.com/{hello}"), {
      __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
    });
    assert.deepEqual(linkifierErrors("(?P<b>x)(?P<a>y)", "{z}{y}"), {
      __all__: ["Group 'y' in URL template is not present in linkifier pattern."],
    });
    assert.deepEqual(linkifierErrors("ZUL-(?P<id>\\d+)", "$fgfg"), {
      __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
    });
  });

  test("templates whose links could run script or whose scheme the matched text could choose are invalid", () => {
    const invalid = { url_template: ["Invalid URL template."] };
    for (const template of ["javascript:alert({x})", "JavaScript:{x}", "data:text/html,{x}", "vbscript:{x}", "java\tscript:{x}"]) {
      assert.deepEqual(linkifierErrors("(?P<x>a)", template), invalid, template);
    }
    for (const template of ["{+x}", "{+x}/y", "{x}:y", "a{x}:y", "{/x}javascript:y"]) {
      assert.deepEqual(linkifierErrors("(?P<x>a)", template), invalid, template);
    }
    for (const template of ["HTTPS://x.com/{x}", "http://x.com/{+x}", "/relative/{x}", "?q={x}", "#{x}", "{x}/y", "{/x}", "{#x}", "a{x}b"]) {
      assert.deepEqual(linkifierErrors("(?P<x>a)", template), {}, template);
    }
  });

  test("null characters are refused", () => {
    assert.deepEqual(linkifierErrors("a\u0000b", "https://x.com"), { pattern: ["Null characters are not allowed."] });
    assert.deepEqual(linkifierErrors("ab", "https://x.com/\u0000"), { url_template: ["Null characters are not allowed."] });
  });
});

describe("code playground validation", () => {
  const pg = (url_template: string, name = "Python playground", pygments_language = "Python") => ({ name, pygments_language, url_template });

  test("the template's one variable is code", () => {
    assert.deepEqual(playgroundErrors(pg("https://python.example.com?code={code}")), {});
    assert.deepEqual(playgroundErrors(pg("https://python.example.com{?code}")), {});
    assert.deepEqual(playgroundErrors(pg("https://python.example.com?code={foo}")), {
      __all__: ['Missing the required variable "code" in the URL template'],
    });
    assert.deepEqual(playgroundErrors(pg("https://template.com{?test,code}")), {
      __all__: ['"code" should be the only variable present in the URL template'],
    });
    assert.deepEqual(playgroundErrors(pg("https://template.com?test={test")), { url_template: ["Invalid URL template."] });
    assert.deepEqual(playgroundErrors(pg("javascript:run({code})")), { url_template: ["Invalid URL template."] });
    assert.deepEqual(playgroundErrors(pg("data:text/html,{code}")), { url_template: ["Invalid URL template."] });
  });

  test("blank fields, in field order, then the template rule", () => {
    assert.deepEqual(playgroundErrors(pg("", "", "")), {
      url_template: [blank],
      name: [blank],
      pygments_language: [blank],
      __all__: ['Missing the required variable "code" in the URL template'],
    });
  });

  test("language characters: letters, digits, space and _ + , - . / #, and one final newline", () => {
    for (const ok of ["Python", "c++", "c#", "objective-c", "a.b/c d_e,f", "python\n", ""]) assert.ok(validPygmentsLanguageCharacters(ok), ok);
    for (const bad of ["py$", "py\n\n", "\npy", "pyth*n", "日本"]) assert.ok(!validPygmentsLanguageCharacters(bad), bad);
  });
});
