/** The config file Zulip's clients read (`zuliprc`): one [api] section. */
export function zuliprcText(email: string, apiKey: string, site: string): string {
  return `[api]\nemail=${email}\nkey=${apiKey}\nsite=${site}\n`;
}
