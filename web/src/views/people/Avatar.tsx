/** A person's picture, or the first letter of their name on a tile. */
import { model } from "../../model";

/** Only avatars this server stores are shown: the client must work on a LAN without the internet (no Gravatar). */
export const localAvatar = (url: string | null | undefined): url is string => !!url && url.startsWith("/");

export function AvatarImage({ userId, name }: { userId: number; name: string }) {
  const url = model.users.get(userId)?.avatar_url;
  return localAvatar(url) ? <img src={url} alt="" loading="lazy" /> : <>{name.slice(0, 1)}</>;
}
