/** The parts of zulip-js (which ships no types) that the tests use. */
declare module "zulip-js" {
  type Params = Record<string, unknown>;
  type Response = Promise<Record<string, any>>;
  interface ZulipClient {
    config: { apiKey: string; username: string; realm: string; apiURL: string };
    callEndpoint(endpoint: string, method?: string, params?: Params): Response;
    messages: {
      send(params: Params): Response;
      retrieve(params: Params): Response;
      render(params: string | Params): Response;
      update(params: Params): Response;
      getById(params: Params): Response;
      deleteById(params: Params): Response;
      flags: { add(params: Params): Response; remove(params: Params): Response };
    };
    queues: { register(params?: Params): Response };
    events: { retrieve(params: Params): Response };
    streams: {
      deleteById(params: Params): Response;
      topics: { retrieve(params: Params): Response };
      subscriptions: { retrieve(params?: Params): Response };
    };
    emojis: {
      retrieve(params?: Params): Response;
    };
    reactions: {
      add(params: Params): Response;
      remove(params: Params): Response;
    };
    typing: {
      send(params: Params): Response;
    };
    users: {
      retrieve(params?: Params): Response;
      create(params: Params): Response;
      me: {
        getProfile(): Response;
        subscriptions: { add(params: Params): Response; remove(params: Params): Response };
      };
    };
    messages: {
      send(params: Params): Response;
      retrieve(params: Params): Response;
      render(content: string | Params): Response;
    };
  }
  interface InitialConfig {
    username?: string;
    password?: string;
    apiKey?: string;
    realm?: string;
    zuliprc?: string;
  }
  export default function zulip(config: InitialConfig): Promise<ZulipClient>;
}
