/** What a view fetched when it opened (and again when `inputs` change): null while it loads; a failure is shown in its place. */
import { useEffect, useState } from "preact/hooks";

export function useFetched<T>(load: () => Promise<T>, inputs: readonly unknown[] = []): { value: T | null; error: string } {
  const [state, setState] = useState<{ value: T | null; error: string }>({ value: null, error: "" });
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && setState({ value, error: "" }),
      (e: Error) => live && setState({ value: null, error: e.message }),
    );
    return () => {
      live = false;
    };
  }, inputs);
  return state;
}
